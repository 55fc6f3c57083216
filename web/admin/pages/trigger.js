// One trigger: its definition as text and as JSON, where to go from here, and delete (confirmed).
import { api, ApiError } from '../lib/api.js';
import { announce, h, pageHeading, replace, time } from '../lib/dom.js';
import { conditionView } from '../lib/condition-text.js';
import { activeBadge, mapText, signalsText, triggerName } from '../lib/trigger-text.js';

const path = (id) => `/api/action-triggers/${encodeURIComponent(id)}`;

const facts = (pairs) =>
  h(
    'dl',
    { class: 'facts' },
    pairs.filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
  );

/** A table under its own h2 (which names it), or a line saying there is nothing. */
const section = (title, heads, rows) => {
  const id = `section-${title.toLowerCase().replace(/\W+/g, '-')}`;
  return [
    h('h2', { id }, title),
    rows.length === 0
      ? h('p', { class: 'muted' }, `No ${title.toLowerCase()}.`)
      : h(
          'table',
          { 'aria-labelledby': id },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              heads.map((c) => h('th', { scope: 'col' }, c)),
            ),
          ),
          h(
            'tbody',
            {},
            rows.map((cells) =>
              h(
                'tr',
                {},
                cells.map((c) => h('td', {}, c)),
              ),
            ),
          ),
        ),
  ];
};

const pre = (s) => h('pre', {}, s);
/** A string map as `key: value` lines, or a dash when empty. */
const mapCell = (m) => (m && Object.keys(m).length > 0 ? pre(mapText(m)) : '—');
/** An entry's own payload, or that it sends the trigger's. */
const payloadCell = (p) => (p === undefined ? h('span', { class: 'muted' }, "the trigger's") : pre(JSON.stringify(p, null, 2)));

function definition(t) {
  return [
    facts([
      ['Id', h('code', {}, t.id)],
      ['State', activeBadge(t)],
      ['Deactivated because', t.deactivated_reason ?? null],
      ['Version', String(t.version)],
      ['Signals', signalsText(t)],
      [
        'Content types',
        h(
          'ul',
          { class: 'plain' },
          t.content_types.map((ct) => h('li', {}, `${ct.app_label}.${ct.model_name}`)),
        ),
      ],
      ['Ordering', t.ordering === 'per_instance' ? "per instance: one instance's signals in the order accepted" : 'none'],
      ['Created', time(t.created_at)],
      ['Updated', time(t.updated_at)],
    ]),
    h('h2', {}, 'Condition'),
    conditionView(t.condition),
    section(
      'Webhooks',
      ['Method', 'URL', 'Headers', 'Timeout (s)', 'Payload'],
      t.webhooks.map((w) => [
        w.http_method,
        h('span', { class: 'url' }, w.url),
        mapCell(w.headers),
        w.timeout_secs ?? 'default',
        payloadCell(w.payload),
      ]),
    ),
    section(
      'Broker queues',
      ['Broker', 'Connection details', 'Parameters', 'Timeout (s)', 'Payload'],
      t.msg_broker_queues.map((q) => [
        q.name,
        mapCell(q.conn_details),
        mapCell(q.parameters),
        q.timeout_secs ?? 'default',
        payloadCell(q.payload),
      ]),
    ),
    h('h2', {}, 'Payload'),
    t.payload === undefined
      ? h('p', { class: 'muted' }, 'No payload template: the default body is sent.')
      : pre(JSON.stringify(t.payload, null, 2)),
    h('details', {}, h('summary', {}, 'The trigger as JSON'), pre(JSON.stringify(t, null, 2))),
  ];
}

/** A modal confirmation; Escape or Cancel closes it, Delete deletes at the version shown. */
function deleteDialog(t, etag) {
  const message = h('div', { role: 'alert', class: 'error', hidden: true });
  const cancel = h('button', { type: 'button' }, 'Cancel');
  const confirm = h('button', { type: 'button', class: 'danger' }, 'Delete');
  const dialog = h(
    'dialog',
    { 'aria-labelledby': 'delete-title', 'aria-describedby': 'delete-text' },
    h('h2', { id: 'delete-title' }, 'Delete this trigger?'),
    h('p', { id: 'delete-text' }, `${triggerName(t)} will stop dispatching. Its history is kept.`),
    message,
    h('div', { class: 'actions' }, cancel, confirm),
  );
  cancel.addEventListener('click', () => dialog.close());
  confirm.addEventListener('click', async () => {
    confirm.disabled = true;
    try {
      await api('DELETE', path(t.id), { ifMatch: etag });
      dialog.close();
      announce(`Deleted ${triggerName(t)}`);
      location.hash = '#/triggers';
    } catch (e) {
      message.hidden = false;
      message.textContent =
        e instanceof ApiError && e.status === 412
          ? 'Someone else changed this trigger since this page loaded. Cancel and reload the page to see it.'
          : e instanceof ApiError && e.status === 403
            ? 'Your API key may not change triggers.'
            : `Not deleted: ${e.message}`;
    } finally {
      confirm.disabled = false;
    }
  });
  return {
    dialog,
    open: () => {
      message.hidden = true;
      dialog.showModal();
      cancel.focus();
    },
  };
}

export default async function render(main, params) {
  const res = await api('GET', path(params.id));
  const t = res.body;
  const base = `#/triggers/${encodeURIComponent(t.id)}`;
  const del = deleteDialog(t, res.etag);
  replace(
    main,
    pageHeading(`Trigger ${triggerName(t)}`),
    h(
      'nav',
      { 'aria-label': 'This trigger', class: 'actions' },
      h('a', { href: `${base}/edit`, class: 'button' }, 'Edit'),
      h('a', { href: `${base}/history`, class: 'button' }, 'History'),
      h('a', { href: `${base}/dispatches`, class: 'button' }, 'Dispatches'),
      h('a', { href: `${base}/send-test`, class: 'button' }, 'Send a test signal'),
      h('button', { type: 'button', class: 'danger', onclick: del.open }, 'Delete…'),
    ),
    definition(t),
    del.dialog,
  );
}
