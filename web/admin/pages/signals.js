// #/signals: accepted signals, newest first, filtered by trigger and state; and a jump to one by id.
import { adminConfig, api, ApiError, nextCursor } from '../api.js';
import { fieldId, h, pageHeading, replace, time } from '../dom.js';
import { workflowLink } from '../lib/temporal-link.js';

const PAGE_SIZE = 50;
const STATES = ['queued', 'running', 'completed', 'unmatched', 'refused', 'expired'];
const FILTERS = ['trigger_id', 'state'];
/** Kept in the page's address with the filters (`#/signals?limit=10`), so paging keeps it. */
const LIMIT_RE = /^[1-9][0-9]{0,2}$/;

const hashOf = (params) => {
  const q = new URLSearchParams(Object.entries(params).filter(([, v]) => v)).toString();
  return `#/signals${q ? `?${q}` : ''}`;
};

/** Delivered, failed, … counted over a signal's actions: `2 delivered, 1 failed`. */
const actionSummary = (actions) => {
  const counts = {};
  for (const a of actions ?? []) counts[a.state] = (counts[a.state] ?? 0) + 1;
  const parts = Object.entries(counts).map(([s, n]) => `${n} ${s}`);
  return parts.length > 0 ? parts.join(', ') : 'none';
};

function filterForm(current) {
  const labelled = (name, label, control) => {
    control.id = fieldId(name);
    control.name = name;
    return h('div', { class: 'field' }, h('label', { for: control.id }, label), control);
  };
  const form = h('form', { class: 'filters', 'aria-label': 'Filter signals' },
    labelled('trigger_id', 'Trigger id', h('input', { type: 'text', value: current.trigger_id ?? '', autocomplete: 'off' })),
    labelled('state', 'State', h('select', {}, h('option', { value: '' }, 'any'),
      STATES.map((s) => h('option', { value: s, selected: current.state === s }, s)))),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Filter')));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    location.hash = hashOf({ ...Object.fromEntries(FILTERS.map((f) => [f, form.elements[f].value.trim()])), limit: current.limit });
  });
  return form;
}

function jumpForm() {
  const input = h('input', { type: 'text', id: 'signal-jump', name: 'signal_id', autocomplete: 'off', required: true });
  const form = h('form', { class: 'jump', 'aria-label': 'Open a signal' },
    h('label', { for: 'signal-jump' }, 'Open a signal by id'), input,
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Open')));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    if (input.value.trim()) location.hash = `#/signals/${encodeURIComponent(input.value.trim())}`;
  });
  return form;
}

function table(items, config) {
  if (items.length === 0) return h('p', {}, 'No signals match.');
  return h('table', { class: 'signals' },
    h('thead', {}, h('tr', {}, ['Signal', 'Accepted', 'State', 'Triggers', 'Actions', 'Workflow'].map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, items.map((s) => h('tr', {},
      h('th', { scope: 'row' }, h('a', { href: `#/signals/${encodeURIComponent(s.id)}` }, s.id)),
      h('td', {}, time(s.accepted_at)),
      h('td', {}, h('span', { class: `state state-${s.state}` }, s.state)),
      h('td', {}, (s.triggers ?? []).length === 0 ? '—' : h('ul', { class: 'plain' }, s.triggers.map((t) => h('li', {},
        h('a', { href: `#/triggers/${encodeURIComponent(t.trigger_id)}` }, t.trigger_id))))),
      h('td', {}, actionSummary(s.actions)),
      h('td', {}, s.workflow_id ? workflowLink(config, s.workflow_id) : '—')))));
}

export default async function render(main, _params, query) {
  const current = Object.fromEntries(FILTERS.map((f) => [f, query.get(f) ?? undefined]));
  if (LIMIT_RE.test(query.get('limit') ?? '')) current.limit = query.get('limit');
  const cursor = query.get('cursor') ?? undefined;
  const top = [pageHeading('Signals'), jumpForm(), filterForm(current)];
  const config = await adminConfig();
  let page;
  try {
    page = await api('GET', '/api/signals', { query: { limit: PAGE_SIZE, ...current, cursor } });
  } catch (e) {
    // A service without the list (an older version) still shows a signal by id.
    if (e instanceof ApiError && (e.status === 404 || e.status === 405)) {
      replace(main, top, h('p', { class: 'notice' }, 'This service does not list signals. Open one by its id above.'));
      return;
    }
    throw e;
  }
  const next = nextCursor(page.link);
  replace(main, top, table(page.body.items ?? page.body, config),
    h('nav', { class: 'actions', 'aria-label': 'Pages' },
      cursor ? h('a', { href: hashOf(current) }, 'First page') : null,
      next ? h('a', { href: hashOf({ ...current, cursor: next }), rel: 'next' }, 'Next page') : null));
}
