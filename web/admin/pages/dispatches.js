// #/triggers/<id>/dispatches: the trigger's dispatches, newest first, each with its actions' outcome;
// while one runs, the page follows it live (also for a deleted trigger: its dispatches are kept).
// The first page also watches for new dispatches, so one that starts while you look appears by itself.
import { adminConfig, api, ApiError } from '../lib/api.js';
import { errorView } from '../app.js';
import { announce, h, pageHeading, replace, time } from '../lib/dom.js';
import { follow } from '../lib/follow.js';
import { addPaging, pageLinks, pagingOf } from '../lib/paging.js';
import { mapLimited } from '../lib/pool.js';
import { workflowLink } from '../lib/temporal-link.js';
import { triggerLinks } from '../lib/trigger-links.js';

const PAGE_SIZE = 20;
/** Signal views asked for at once: a page of 20 costs 5 rounds, and the API is not flooded. */
const CONCURRENCY = 4;
/** Visibility's states in which a dispatch still changes. */
const LIVE_STATES = ['queued', 'running'];
const isLive = (d) => LIVE_STATES.includes(d.state);
/** While a row runs: how often it is read again. */
const LIVE_MS = 1000;
/** The first page, with nothing running, asks for new dispatches this often… */
const WATCH_MS = 2000;
/** …until nothing has changed for this long (then a button starts it again). */
const WATCH_FOR_MS = 5 * 60_000;

/** Where a dispatch's own view is: the signal's, or its redelivery's (`signal-<id>/redelivery-<n>`). */
const viewPathOf = (d) => {
  const n = /\/redelivery-(\d+)$/.exec(d.workflow_id)?.[1];
  const base = `/api/signals/${encodeURIComponent(d.signal_id)}`;
  return n ? `${base}/redeliveries/${n}` : base;
};

/** The dispatch's view, or the error that kept it (shown in its row, not for the whole page). */
const detailsOf = (d) =>
  api('GET', viewPathOf(d)).then(
    (r) => ({ view: r.body }),
    (error) => ({ error }),
  );

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** This trigger's actions in the dispatch: outcome, attempts, status code, last error. */
function outcomeOf(triggerId, { view, error }) {
  if (error) return h('span', { class: 'muted' }, `details unavailable (${error.status ?? ''} ${error.message})`);
  const mine = view.actions.filter((a) => a.trigger_id === triggerId);
  if (mine.length === 0) return h('span', { class: 'muted' }, view.reason ?? 'no action of this trigger');
  return h(
    'ul',
    { class: 'plain outcomes' },
    mine.map((a) =>
      h(
        'li',
        { 'data-delivery-id': a.delivery_id },
        h('strong', {}, `${a.kind} #${a.index}`),
        ' ',
        h('span', { class: `state state-${a.state}` }, a.state),
        ` · ${plural(a.attempts, 'attempt')}`,
        a.status_code === undefined ? '' : ` · status ${a.status_code}`,
        a.last_error ? h('div', { class: 'last-error' }, `Last error: ${a.last_error}`) : null,
      ),
    ),
  );
}

function stateOf(d) {
  return [
    h('span', { class: `state state-${d.state}` }, d.state),
    isLive(d) ? h('span', { class: 'muted' }, ' (following live)') : null,
    d.failed ? [' ', h('span', { class: 'state state-failed' }, '(an action failed)')] : null,
    d.redelivery_of ? h('div', { class: 'muted' }, 'redelivery') : null,
  ];
}

function row(triggerId, d, details, config) {
  return h(
    'tr',
    { 'data-workflow-id': d.workflow_id },
    h('td', {}, time(d.started_at)),
    h('td', {}, d.closed_at ? time(d.closed_at) : '—'),
    h('td', {}, stateOf(d)),
    h('th', { scope: 'row' }, h('a', { href: `#/signals/${encodeURIComponent(d.signal_id)}` }, d.signal_id)),
    h('td', {}, outcomeOf(triggerId, details)),
    h('td', {}, workflowLink(config, d.workflow_id)),
  );
}

/** Loads the page again in place; keeps the keyboard on the Refresh button. */
async function refresh(main, id, query) {
  try {
    await render(main, { id }, query);
    main.querySelector('.actions button')?.focus();
    announce('Dispatches refreshed');
  } catch (e) {
    replace(main, errorView(e));
  }
}

/** False once the trigger is deleted (404); its dispatches stay listed, from Temporal. */
const stillExists = (id) =>
  api('GET', `/api/action-triggers/${encodeURIComponent(id)}`).then(
    () => true,
    (e) => {
      if (e instanceof ApiError && e.status === 404) return false;
      throw e;
    },
  );

/**
 * A page of dispatches with each one's details. A closed dispatch no longer changes: its details
 * are kept in `closed` (by workflow id) and not asked for again while the page follows the rest.
 */
async function loadPage(id, cursor, closed) {
  const { body } = await api('GET', `/api/action-triggers/${encodeURIComponent(id)}/dispatches`, { query: { limit: PAGE_SIZE, cursor } });
  const details = await mapLimited(body.items, CONCURRENCY, (d) => closed.get(d.workflow_id) ?? detailsOf(d));
  // Final only when the signal's own view says so too: it can still say `queued` for a moment after
  // visibility lists the workflow closed (the relay's saved checkpoint trails by up to 200 ms).
  body.items.forEach((d, i) => {
    if (!isLive(d) && !details[i].error && !LIVE_STATES.includes(details[i].view?.state)) closed.set(d.workflow_id, details[i]);
  });
  return { items: body.items, next: body.next_cursor, details };
}

/**
 * Follows the page's rows while any dispatch on it runs: each second the page is read again and
 * only the rows that changed are redrawn (the rest, and the keyboard's place in them, stay).
 * With `watch` (the first page) it goes on every WATCH_MS while nothing runs, so new dispatches
 * appear at the top, until nothing has changed for WATCH_FOR_MS; `parts.idle()` then says so.
 */
function followRows(parts, { id, cursor, closed, items, watch }) {
  const { tbody, draw } = parts;
  const states = new Map(items.map((d) => [d.workflow_id, d.state]));
  let lastChange = Date.now();
  let going = true;
  return follow(tbody, {
    load: () => loadPage(id, cursor, closed),
    show: (page) => {
      const rows = page.items.map((d, i) => draw(d, page.details[i]));
      const sameRows =
        rows.length === tbody.rows.length && rows.every((tr, i) => tr.dataset.workflowId === tbody.rows[i].dataset.workflowId);
      const changed = !sameRows || rows.some((tr, i) => tr.dataset.signature !== tbody.rows[i].dataset.signature);
      if (!sameRows) tbody.replaceChildren(...rows);
      else
        rows.forEach((tr, i) => {
          if (tr.dataset.signature !== tbody.rows[i].dataset.signature) tbody.rows[i].replaceWith(tr);
        });
      for (const d of page.items) {
        if (!states.has(d.workflow_id)) announce(`New dispatch of signal ${d.signal_id}: ${d.state}`);
        else if (states.get(d.workflow_id) !== d.state) announce(`Dispatch of signal ${d.signal_id}: ${d.state}`);
        states.set(d.workflow_id, d.state);
      }
      parts.shown(page);
      if (changed) lastChange = Date.now();
      going = page.items.some(isLive) || (watch && Date.now() - lastChange < WATCH_FOR_MS);
      if (!going && watch) parts.idle();
    },
    fail: parts.fail,
    isLive: () => going,
    intervalMs: (page) => (page.items.some(isLive) ? LIVE_MS : WATCH_MS),
  });
}

/** The first page's line about watching: what it does, or that it stopped and how to start again. */
function watchLine(onRestart) {
  const line = h(
    'p',
    { class: 'muted watch-line' },
    `New dispatches appear here as they start (checked every ${WATCH_MS / 1000} seconds).`,
  );
  const idle = () => {
    replace(
      line,
      `Nothing new for ${WATCH_FOR_MS / 60_000} minutes, so this page stopped checking. `,
      h('button', { type: 'button', onclick: onRestart }, 'Watch again'),
    );
    announce('Stopped watching for new dispatches');
  };
  return { line, idle };
}

export default async function render(main, { id }, query) {
  const paging = pagingOf(query);
  const { cursor } = paging;
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
  const tbody = h(
    'tbody',
    {},
    items.map((d, i) => draw(d, details[i])),
  );
  const note = h('div');
  const empty = h('p', { hidden: items.length > 0 }, cursor ? 'No more dispatches.' : 'No dispatches yet.');
  const table = h(
    'table',
    { class: 'dispatches', hidden: items.length === 0 },
    h('caption', { class: 'muted' }, "Newest first. Outcome: this trigger's actions in the dispatch."),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['Started', 'Closed', 'State', 'Signal', 'Outcome', 'Workflow'].map((c) => h('th', { scope: 'col' }, c)),
      ),
    ),
    tbody,
  );
  const hrefOf = (p) => {
    const search = addPaging(new URLSearchParams(), p).toString();
    return search ? `${base}?${search}` : base;
  };
  const pages = (nextCursor) => pageLinks(hrefOf, paging, nextCursor);
  let nav = pages(next);
  const watching = cursor ? undefined : watchLine(() => refresh(main, id, query));
  replace(
    main,
    pageHeading(`Dispatches of trigger ${id}`),
    triggerLinks(id, '/dispatches', { deleted: !exists }),
    exists ? null : h('p', { class: 'notice' }, 'This trigger is deleted. Its dispatches are kept and listed here.'),
    h('div', { class: 'actions' }, h('button', { type: 'button', onclick: () => refresh(main, id, query) }, 'Refresh')),
    watching?.line,
    note,
    empty,
    table,
    nav,
  );
  const shown = (p) => {
    table.hidden = p.items.length === 0;
    empty.hidden = p.items.length > 0;
    const fresh = pages(p.next);
    nav.replaceWith(fresh);
    nav = fresh;
  };
  const parts = { tbody, draw, shown, idle: () => watching?.idle(), fail: (e) => replace(note, errorView(e)) };
  // After the rows are on the page: following stops as soon as they are not.
  if (watching || items.some(isLive)) followRows(parts, { id, cursor, closed, items, watch: Boolean(watching) });
}
