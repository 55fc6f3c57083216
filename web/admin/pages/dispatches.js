// #/triggers/<id>/dispatches: the trigger's dispatches, newest first, each with its actions' outcome;
// while one runs, the page follows it live (also for a deleted trigger: its dispatches are kept).
import { adminConfig, api, ApiError } from '../api.js';
import { errorView } from '../app.js';
import { announce, h, pageHeading, replace, time } from '../dom.js';
import { follow } from '../lib/follow.js';
import { mapLimited } from '../lib/pool.js';
import { workflowLink } from '../lib/temporal-link.js';
import { triggerLinks } from '../lib/trigger-links.js';

const PAGE_SIZE = 20;
/** Signal views asked for at once: a page of 20 costs 5 rounds, and the API is not flooded. */
const CONCURRENCY = 4;
/** Visibility's states in which a dispatch still changes. */
const LIVE_STATES = ['queued', 'running'];
const isLive = (d) => LIVE_STATES.includes(d.state);

/** Where a dispatch's own view is: the signal's, or its redelivery's (`signal-<id>/redelivery-<n>`). */
const viewPathOf = (d) => {
  const n = /\/redelivery-(\d+)$/.exec(d.workflow_id)?.[1];
  const base = `/api/signals/${encodeURIComponent(d.signal_id)}`;
  return n ? `${base}/redeliveries/${n}` : base;
};

/** The dispatch's view, or the error that kept it (shown in its row, not for the whole page). */
const detailsOf = (d) => api('GET', viewPathOf(d)).then((r) => ({ view: r.body }), (error) => ({ error }));

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** This trigger's actions in the dispatch: outcome, attempts, status code, last error. */
function outcomeOf(triggerId, { view, error }) {
  if (error) return h('span', { class: 'muted' }, `details unavailable (${error.status ?? ''} ${error.message})`);
  const mine = view.actions.filter((a) => a.trigger_id === triggerId);
  if (mine.length === 0) return h('span', { class: 'muted' }, view.reason ?? 'no action of this trigger');
  return h('ul', { class: 'plain outcomes' }, mine.map((a) => h('li', { 'data-delivery-id': a.delivery_id },
    h('strong', {}, `${a.kind} #${a.index}`), ' ',
    h('span', { class: `state state-${a.state}` }, a.state),
    ` · ${plural(a.attempts, 'attempt')}`,
    a.status_code === undefined ? '' : ` · status ${a.status_code}`,
    a.last_error ? h('div', { class: 'last-error' }, `Last error: ${a.last_error}`) : null)));
}

function stateOf(d) {
  return [h('span', { class: `state state-${d.state}` }, d.state),
    isLive(d) ? h('span', { class: 'muted' }, ' (following live)') : null,
    d.failed ? [' ', h('span', { class: 'state state-failed' }, '(an action failed)')] : null,
    d.redelivery_of ? h('div', { class: 'muted' }, 'redelivery') : null];
}

function row(triggerId, d, details, config) {
  return h('tr', { 'data-workflow-id': d.workflow_id },
    h('td', {}, time(d.started_at)),
    h('td', {}, d.closed_at ? time(d.closed_at) : '—'),
    h('td', {}, stateOf(d)),
    h('th', { scope: 'row' }, h('a', { href: `#/signals/${encodeURIComponent(d.signal_id)}` }, d.signal_id)),
    h('td', {}, outcomeOf(triggerId, details)),
    h('td', {}, workflowLink(config, d.workflow_id)));
}

/** Loads the page again in place; keeps the keyboard on the Refresh button. */
async function refresh(main, id, query) {
  try {
    await render(main, { id }, query);
    main.querySelector('.actions button')?.focus();
    announce('Dispatches refreshed');
  } catch (e) { replace(main, errorView(e)); }
}

/** False once the trigger is deleted (404); its dispatches stay listed, from Temporal. */
const stillExists = (id) => api('GET', `/api/action-triggers/${encodeURIComponent(id)}`).then(() => true, (e) => {
  if (e instanceof ApiError && e.status === 404) return false;
  throw e;
});

/**
 * A page of dispatches with each one's details. A closed dispatch no longer changes: its details
 * are kept in `closed` (by workflow id) and not asked for again while the page follows the rest.
 */
async function loadPage(id, cursor, closed) {
  const { body } = await api('GET', `/api/action-triggers/${encodeURIComponent(id)}/dispatches`, { query: { limit: PAGE_SIZE, cursor } });
  const details = await mapLimited(body.items, CONCURRENCY, (d) => closed.get(d.workflow_id) ?? detailsOf(d));
  body.items.forEach((d, i) => { if (!isLive(d) && !details[i].error) closed.set(d.workflow_id, details[i]); });
  return { items: body.items, next: body.next_cursor, details };
}

/**
 * Follows the page's rows while any dispatch on it runs: each second the page is read again and
 * only the rows that changed are redrawn (the rest, and the keyboard's place in them, stay).
 */
function followRows(tbody, draw, { id, cursor, closed, note, items }) {
  const states = new Map(items.map((d) => [d.workflow_id, d.state]));
  return follow(tbody, {
    load: () => loadPage(id, cursor, closed),
    show: (page) => {
      const rows = page.items.map((d, i) => draw(d, page.details[i]));
      const sameRows = rows.length === tbody.rows.length && rows.every((tr, i) => tr.dataset.workflowId === tbody.rows[i].dataset.workflowId);
      if (!sameRows) tbody.replaceChildren(...rows);
      else rows.forEach((tr, i) => { if (tr.dataset.signature !== tbody.rows[i].dataset.signature) tbody.rows[i].replaceWith(tr); });
      for (const d of page.items) {
        if (states.has(d.workflow_id) && states.get(d.workflow_id) !== d.state) announce(`Dispatch of signal ${d.signal_id}: ${d.state}`);
        states.set(d.workflow_id, d.state);
      }
    },
    fail: (e) => replace(note, errorView(e)),
    isLive: (page) => page.items.some(isLive),
  });
}

export default async function render(main, { id }, query) {
  const cursor = query.get('cursor') ?? undefined;
  const closed = new Map();
  const [config, exists, page] = await Promise.all([adminConfig(), stillExists(id), loadPage(id, cursor, closed)]);
  const { items, next, details } = page;
  const base = `#/triggers/${encodeURIComponent(id)}/dispatches`;
  const triggerId = id.toLowerCase();
  const draw = (d, detail) => {
    const tr = row(triggerId, d, detail, config);
    tr.dataset.signature = JSON.stringify([d, detail.view ?? detail.error?.message]);
    return tr;
  };
  const tbody = h('tbody', {}, items.map((d, i) => draw(d, details[i])));
  const note = h('div');
  replace(main,
    pageHeading(`Dispatches of trigger ${id}`),
    triggerLinks(id, '/dispatches', { deleted: !exists }),
    exists ? null : h('p', { class: 'notice' }, 'This trigger is deleted. Its dispatches are kept and listed here.'),
    h('div', { class: 'actions' }, h('button', { type: 'button', onclick: () => refresh(main, id, query) }, 'Refresh')),
    note,
    items.length === 0 ? h('p', {}, cursor ? 'No more dispatches.' : 'No dispatches yet.') : h('table', { class: 'dispatches' },
      h('caption', { class: 'muted' }, 'Newest first. Outcome: this trigger\'s actions in the dispatch.'),
      h('thead', {}, h('tr', {}, ['Started', 'Closed', 'State', 'Signal', 'Outcome', 'Workflow'].map((c) => h('th', { scope: 'col' }, c)))),
      tbody),
    h('nav', { class: 'actions', 'aria-label': 'Pages' },
      cursor ? h('a', { href: base }, 'First page') : null,
      next ? h('a', { href: `${base}?cursor=${encodeURIComponent(next)}`, rel: 'next' }, 'Next page') : null));
  // After the rows are on the page: following stops as soon as they are not.
  if (items.some(isLive)) followRows(tbody, draw, { id, cursor, closed, note, items });
}
