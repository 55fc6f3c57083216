// #/alerts: the alert sinks the config names (`alerts.sinks`), each with its last outcome, and the
// last alerts raised, newest first, with what each sink made of them (GET /api/alerts/recent).
// Read once; Refresh reads again.
import { api } from '../lib/api.js';
import { errorView } from '../app.js';
import { announce, h, pageHeading, replace, time } from '../lib/dom.js';

const RECENT = 50;
const SINK_COLUMNS = ['Name', 'Type', 'Target', 'To', 'Events', 'Max per minute', 'Last outcome'];
const ALERT_COLUMNS = ['Time', 'Type', 'Summary', 'About', 'Sinks'];

const list = (items) =>
  items?.length
    ? h(
        'ul',
        { class: 'plain' },
        items.map((i) => h('li', {}, i)),
      )
    : '—';

/** One outcome: sent or not sent (as words, the colour only helps), when, and why not. */
function outcomeView(o, { withSink = false } = {}) {
  const sent = o.outcome === 'sent';
  return h(
    'span',
    { class: `outcome outcome-${sent ? 'sent' : 'not-sent'}`, 'data-sink': o.sink },
    withSink ? `${o.sink}: ` : '',
    h('strong', { class: 'outcome-word' }, sent ? 'sent' : 'not sent'),
    o.digest ? h('span', { class: 'muted small' }, ` in digest ${o.digest}`) : '',
    ' ',
    h('span', { class: 'muted small' }, time(o.at)),
    o.error ? h('span', { class: 'outcome-error' }, ` — ${o.error}`) : '',
  );
}

function sinkRow(s) {
  return h(
    'tr',
    { 'data-sink': s.name },
    h('th', { scope: 'row' }, s.name),
    h('td', {}, s.type),
    h('td', { class: 'url' }, s.target),
    h('td', {}, list(s.to)),
    h('td', {}, list(s.events.map((e) => h('code', {}, e)))),
    h('td', {}, String(s.max_per_minute)),
    h('td', {}, s.last_outcome ? outcomeView(s.last_outcome) : h('span', { class: 'muted' }, 'nothing sent yet')),
  );
}

const head = (columns) =>
  h(
    'thead',
    {},
    h(
      'tr',
      {},
      columns.map((c) => h('th', { scope: 'col' }, c)),
    ),
  );

function sinksSection(sinks) {
  const title = h('h2', { id: 'alert-sinks' }, 'Sinks');
  if (sinks.length === 0)
    return [
      title,
      h(
        'p',
        { class: 'no-sinks' },
        'No alert sinks are configured: alerts are raised and listed below, but sent nowhere. Add sinks in the ',
        h('code', {}, 'alerts'),
        ' section of the config (see ',
        h('code', {}, 'docs/alerts.md'),
        ').',
      ),
    ];
  return [title, h('table', { class: 'sinks', 'aria-labelledby': 'alert-sinks' }, head(SINK_COLUMNS), h('tbody', {}, sinks.map(sinkRow)))];
}

/** What an alert is about: its trigger's page, or the limit behind a backlog. */
function aboutView(a) {
  if (a.trigger_id)
    return h('a', { href: `#/triggers/${encodeURIComponent(a.trigger_id)}`, class: 'trigger-link' }, `Trigger ${a.trigger_id}`);
  if (a.destination) return h('a', { href: '#/limits' }, `Limit ${a.destination}`);
  return '—';
}

/** Each sink's outcome; a sink that takes this type and has none yet says so. */
function outcomesView(a, sinks) {
  const pending = sinks
    .filter((s) => s.events.includes(a.type) && !a.outcomes.some((o) => o.sink === s.name))
    .map((s) => h('span', { class: 'outcome muted', 'data-sink': s.name }, `${s.name}: no outcome yet`));
  return list([...a.outcomes.map((o) => outcomeView(o, { withSink: true })), ...pending]);
}

function alertRow(a, sinks) {
  return h(
    'tr',
    { 'data-alert': a.id, 'data-type': a.type },
    h('td', {}, time(a.occurred_at)),
    h('td', {}, h('code', {}, a.type)),
    h('td', { class: 'summary' }, a.summary),
    h('td', {}, aboutView(a)),
    h('td', { class: 'outcomes' }, outcomesView(a, sinks)),
  );
}

function alertsSection(alerts, sinks) {
  const title = h('h2', { id: 'last-alerts' }, 'Last alerts');
  if (alerts.length === 0) return [title, h('p', { class: 'muted' }, 'No alert has been raised.')];
  return [
    title,
    h(
      'table',
      { class: 'alerts', 'aria-labelledby': 'last-alerts' },
      h('caption', { class: 'muted' }, `The last ${RECENT} at most, newest first.`),
      head(ALERT_COLUMNS),
      h(
        'tbody',
        {},
        alerts.map((a) => alertRow(a, sinks)),
      ),
    ),
  ];
}

/** Loads the page again in place; keeps the keyboard on the Refresh button. */
async function refresh(main) {
  try {
    await render(main);
    main.querySelector('.actions button')?.focus();
    announce('Alerts refreshed');
  } catch (e) {
    replace(main, errorView(e));
  }
}

export default async function render(main) {
  const { body } = await api('GET', '/api/alerts/recent', { query: { limit: RECENT } });
  replace(
    main,
    pageHeading('Alerts'),
    h('div', { class: 'actions' }, h('button', { type: 'button', onclick: () => refresh(main) }, 'Refresh')),
    sinksSection(body.sinks),
    alertsSection(body.alerts, body.sinks),
  );
}
