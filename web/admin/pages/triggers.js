// The triggers list: filters and the cursor live in the hash, so reload, back and forward work.
import { api, ApiError, nextCursor } from '../lib/api.js';
import { announce, fieldId, h, pageHeading, replace, time } from '../lib/dom.js';
import { addPaging, pageLinks, pagingOf } from '../lib/paging.js';
import { contentTypesText, etagOf, SIGNALS, signalsText, triggerName } from '../lib/trigger-text.js';

export const PAGE_SIZE = 50;
const FILTERS = ['q', 'signal', 'app_label', 'model_name', 'active'];

/** `#/triggers?…` for these filters (empty ones left out) and paging (../lib/paging.js). */
const listHash = (filter, paging) => {
  const params = new URLSearchParams();
  for (const name of FILTERS) if (filter[name]) params.set(name, filter[name]);
  const search = addPaging(params, paging).toString();
  return `#/triggers${search ? `?${search}` : ''}`;
};

const choice = (name, label, options, current) => [
  h('label', { for: fieldId(`query.${name}`) }, label),
  h(
    'select',
    { id: fieldId(`query.${name}`), name },
    options.map(([value, text]) => h('option', { value, selected: value === current }, text)),
  ),
];

const text = (name, label, current, hint) => [
  h('label', { for: fieldId(`query.${name}`) }, label),
  h('input', { id: fieldId(`query.${name}`), name, type: name === 'q' ? 'search' : 'text', value: current, placeholder: hint }),
];

function filterForm(filter) {
  const form = h(
    'form',
    { role: 'search', 'aria-label': 'Filter triggers', class: 'filters' },
    h('div', {}, text('q', 'Search content types and webhook URLs', filter.q, 'e.g. shop.order or hooks.example')),
    h('div', {}, choice('signal', 'Signal', [['', 'any'], ...SIGNALS.map((s) => [s, s])], filter.signal)),
    h('div', {}, text('app_label', 'App label', filter.app_label)),
    h('div', {}, text('model_name', 'Model name', filter.model_name)),
    h(
      'div',
      {},
      choice(
        'active',
        'Active',
        [
          ['', 'any'],
          ['true', 'yes'],
          ['false', 'no'],
        ],
        filter.active,
      ),
    ),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', class: 'primary' }, 'Apply filters'),
      h('a', { href: '#/triggers' }, 'Clear filters'),
    ),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const data = new FormData(form);
    location.hash = listHash(Object.fromEntries(FILTERS.map((n) => [n, String(data.get(n) ?? '').trim()])));
  });
  return form;
}

/** The row's switch: PATCH `{active}` with If-Match of the version the row shows; a conflict reloads the row. */
function activeToggle(trigger, onChanged) {
  const box = h('input', {
    type: 'checkbox',
    checked: trigger.active,
    id: `active-${trigger.id}`,
    'aria-label': `Active: ${triggerName(trigger)}`,
  });
  box.addEventListener('change', async () => {
    const wanted = box.checked;
    box.disabled = true;
    try {
      const res = await api('PATCH', `/api/action-triggers/${encodeURIComponent(trigger.id)}`, {
        body: { active: wanted },
        ifMatch: etagOf(trigger.version),
      });
      onChanged(res.body);
      announce(`${triggerName(res.body)} is now ${res.body.active ? 'active' : 'inactive'}`);
    } catch (e) {
      box.checked = !wanted;
      if (e instanceof ApiError && e.status === 412) {
        const fresh = await api('GET', `/api/action-triggers/${encodeURIComponent(trigger.id)}`);
        onChanged(fresh.body);
        announce(`${triggerName(trigger)} was changed by someone else; the row now shows its current state`);
      } else {
        announce(
          e instanceof ApiError && e.status === 403
            ? 'Your API key may not change triggers.'
            : `Could not change ${triggerName(trigger)}: ${e.message}`,
        );
      }
    } finally {
      box.disabled = false;
    }
  });
  return box;
}

function row(trigger) {
  const tr = h('tr', { 'data-id': trigger.id });
  const fill = (t) => {
    const urls = t.webhooks.map((w) => w.url);
    replace(
      tr,
      h(
        'td',
        {},
        h('a', { href: `#/triggers/${encodeURIComponent(t.id)}` }, contentTypesText(t)),
        h('div', { class: 'muted small' }, t.id),
      ),
      h('td', {}, signalsText(t)),
      h(
        'td',
        {},
        `${urls.length}`,
        urls.length > 0
          ? h(
              'ul',
              { class: 'plain' },
              urls.map((u) => h('li', { class: 'url' }, u)),
            )
          : null,
      ),
      h('td', {}, `${t.msg_broker_queues.length}`),
      h('td', {}, activeToggle(t, fill)),
      h('td', {}, time(t.updated_at), h('div', { class: 'muted small' }, `version ${t.version}`)),
    );
  };
  fill(trigger);
  return tr;
}

export default async function render(main, _params, query) {
  const filter = Object.fromEntries(FILTERS.map((n) => [n, query.get(n) ?? '']));
  const paging = pagingOf(query);
  const { cursor } = paging;
  const heading = pageHeading('Triggers');
  const form = filterForm(filter);
  let res;
  try {
    res = await api('GET', '/api/action-triggers', { query: { ...filter, limit: PAGE_SIZE, cursor } });
  } catch (e) {
    if (!(e instanceof ApiError) || e.status !== 400) throw e;
    // A bad filter: say which, beside the form, and leave the form as typed.
    replace(
      main,
      heading,
      form,
      h(
        'div',
        { class: 'error', role: 'alert' },
        'These filters cannot be used: ',
        h(
          'ul',
          {},
          e.fieldErrors.map((f) => h('li', {}, `${f.path.replace(/^query\./, '')} ${f.message}`)),
        ),
      ),
    );
    return;
  }
  const items = res.body;
  const next = nextCursor(res.link);
  const filtered = FILTERS.some((n) => filter[n]);
  const table =
    items.length === 0
      ? h(
          'p',
          {},
          filtered ? 'No trigger matches these filters.' : 'No triggers yet. ',
          filtered ? null : h('a', { href: '#/triggers/new' }, 'Create one.'),
        )
      : h(
          'table',
          { class: 'triggers' },
          h(
            'caption',
            { class: 'muted' },
            `${items.length} trigger${items.length === 1 ? '' : 's'} on this page${cursor ? ' (not the first)' : ''}`,
          ),
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ['Content types', 'Signals', 'Webhooks', 'Broker queues', 'Active', 'Updated'].map((c) => h('th', { scope: 'col' }, c)),
            ),
          ),
          h('tbody', {}, items.map(row)),
        );
  replace(
    main,
    heading,
    h('p', {}, h('a', { href: '#/triggers/new' }, 'New trigger')),
    form,
    table,
    pageLinks((p) => listHash(filter, p), paging, next),
  );
}
