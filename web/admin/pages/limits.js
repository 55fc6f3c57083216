// #/limits: the limits the config sets per destination (GET /api/destinations/limits), each with
// its backlog, its deliveries in flight and a receiver's pause. Read once; Refresh reads again.
import { api } from '../lib/api.js';
import { errorView } from '../app.js';
import { announce, h, pageHeading, replace, time } from '../lib/dom.js';

const COLUMNS = ['Limit', 'Matches', 'Max per second', 'Burst', 'Max in flight', 'Backlog', 'In flight', 'Paused until'];

/** A limit field the config left out: no such limit. */
const orNone = (value) => (value === undefined ? '—' : String(value));

function row(l) {
  return h(
    'tr',
    { 'data-limit': l.name },
    h('th', { scope: 'row' }, l.name),
    h('td', { class: l.kind === 'webhook' ? 'url' : null }, l.matches),
    h('td', {}, orNone(l.max_per_second)),
    h('td', {}, orNone(l.burst)),
    h('td', {}, orNone(l.max_in_flight)),
    h('td', {}, String(l.backlog)),
    h('td', {}, String(l.in_flight)),
    h('td', {}, l.paused_until ? time(l.paused_until) : '—'),
  );
}

function table(limits) {
  if (limits.length === 0) return h('p', {}, 'The config sets no limit (webhook_limits, brokers.<name>.limits).');
  return h(
    'table',
    { class: 'limits' },
    h(
      'caption',
      { class: 'muted' },
      'Backlog: deliveries waiting for their destination now. Paused until: the receiver asked for no request.',
    ),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        COLUMNS.map((c) => h('th', { scope: 'col' }, c)),
      ),
    ),
    h('tbody', {}, limits.map(row)),
  );
}

/** Loads the page again in place; keeps the keyboard on the Refresh button. */
async function refresh(main) {
  try {
    await render(main);
    main.querySelector('.actions button')?.focus();
    announce('Limits refreshed');
  } catch (e) {
    replace(main, errorView(e));
  }
}

export default async function render(main) {
  const { body } = await api('GET', '/api/destinations/limits');
  replace(
    main,
    pageHeading('Destination limits'),
    h('div', { class: 'actions' }, h('button', { type: 'button', onclick: () => refresh(main) }, 'Refresh')),
    table(body.limits),
  );
}
