// #/triggers/<id>/dispatches: the trigger's dispatches, newest first, each with its actions' outcome.
import { adminConfig, api } from '../api.js';
import { errorView } from '../app.js';
import { announce, h, pageHeading, replace, time } from '../dom.js';
import { mapLimited } from '../lib/pool.js';
import { workflowLink } from '../lib/temporal-link.js';
import { triggerLinks } from '../lib/trigger-links.js';

const PAGE_SIZE = 20;
/** Signal views asked for at once: a page of 20 costs 5 rounds, and the API is not flooded. */
const CONCURRENCY = 4;

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

export default async function render(main, { id }, query) {
  const cursor = query.get('cursor') ?? undefined;
  const [config, page] = await Promise.all([
    adminConfig(),
    api('GET', `/api/action-triggers/${encodeURIComponent(id)}/dispatches`, { query: { limit: PAGE_SIZE, cursor } }),
  ]);
  const { items, next_cursor: next } = page.body;
  const details = await mapLimited(items, CONCURRENCY, detailsOf);
  const base = `#/triggers/${encodeURIComponent(id)}/dispatches`;
  const triggerId = id.toLowerCase();
  replace(main,
    pageHeading(`Dispatches of trigger ${id}`),
    triggerLinks(id, '/dispatches'),
    h('div', { class: 'actions' }, h('button', { type: 'button', onclick: () => refresh(main, id, query) }, 'Refresh')),
    items.length === 0 ? h('p', {}, cursor ? 'No more dispatches.' : 'No dispatches yet.') : h('table', { class: 'dispatches' },
      h('caption', { class: 'muted' }, 'Newest first. Outcome: this trigger\'s actions in the dispatch.'),
      h('thead', {}, h('tr', {}, ['Started', 'Closed', 'State', 'Signal', 'Outcome', 'Workflow'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, items.map((d, i) => row(triggerId, d, details[i], config)))),
    h('nav', { class: 'actions', 'aria-label': 'Pages' },
      cursor ? h('a', { href: base }, 'First page') : null,
      next ? h('a', { href: `${base}?cursor=${encodeURIComponent(next)}`, rel: 'next' }, 'Next page') : null));
}
