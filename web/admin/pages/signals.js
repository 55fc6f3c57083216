// #/signals: stored signals, newest first (GET /api/signals), filtered by trigger and state; and a jump to one by id.
import { adminConfig, api, nextCursor } from '../lib/api.js';
import { fieldId, h, pageHeading, replace, time } from '../lib/dom.js';
import { addPaging, pageLinks, pagingOf } from '../lib/paging.js';
import { workflowLink } from '../lib/temporal-link.js';

const PAGE_SIZE = 50;
/** The states the API filters by (src/signals/list/list-query.ts). */
const STATES = ['queued', 'unmatched', 'refused', 'running', 'completed', 'failed', 'terminated', 'timed_out', 'canceled', 'expired'];
const TRIGGER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const FILTERS = ['trigger_id', 'state'];
/** Kept in the page's address with the filters (`#/signals?limit=10`), so paging keeps it. */
const LIMIT_RE = /^(100|[1-9][0-9]?)$/;

/** `#/signals?…` for these filters (and limit) and paging (../lib/paging.js). */
const hashOf = (params, paging) => {
  const q = addPaging(new URLSearchParams(Object.entries(params).filter(([, v]) => v)), paging).toString();
  return `#/signals${q ? `?${q}` : ''}`;
};

function filterForm(current) {
  const triggerInput = h('input', {
    type: 'text',
    id: fieldId('trigger_id'),
    name: 'trigger_id',
    value: current.trigger_id ?? '',
    autocomplete: 'off',
    'aria-describedby': `${fieldId('trigger_id')}-error`,
  });
  const triggerError = h('p', { class: 'field-error', id: `${fieldId('trigger_id')}-error`, hidden: true });
  const form = h(
    'form',
    { class: 'filters', 'aria-label': 'Filter signals' },
    h('div', { class: 'field' }, h('label', { for: triggerInput.id }, 'Trigger id'), triggerInput, triggerError),
    h(
      'div',
      { class: 'field' },
      h('label', { for: fieldId('state') }, 'State'),
      h(
        'select',
        { id: fieldId('state'), name: 'state' },
        h('option', { value: '' }, 'any'),
        STATES.map((s) => h('option', { value: s, selected: current.state === s }, s)),
      ),
    ),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Filter')),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const triggerId = triggerInput.value.trim();
    // Checked here as the API would (a UUID), so a typo is shown at the field without a failed request.
    const bad = triggerId !== '' && !TRIGGER_ID.test(triggerId);
    triggerError.hidden = !bad;
    triggerError.textContent = bad ? 'trigger_id: must be a trigger id (a UUID)' : '';
    triggerInput.setAttribute('aria-invalid', String(bad));
    if (bad) {
      triggerInput.focus();
      return;
    }
    location.hash = hashOf({ trigger_id: triggerId, state: form.elements.state.value, limit: current.limit });
  });
  return form;
}

function jumpForm() {
  const input = h('input', { type: 'text', id: 'signal-jump', name: 'signal_id', autocomplete: 'off', required: true });
  const form = h(
    'form',
    { class: 'jump', 'aria-label': 'Open a signal' },
    h('label', { for: 'signal-jump' }, 'Open a signal by id'),
    input,
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Open')),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    if (input.value.trim()) location.hash = `#/signals/${encodeURIComponent(input.value.trim())}`;
  });
  return form;
}

function table(items, config) {
  if (items.length === 0) return h('p', {}, 'No signals match.');
  return h(
    'table',
    { class: 'signals' },
    h('caption', { class: 'muted' }, 'Newest first.'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['Signal', 'Kind', 'Accepted', 'State', 'Triggers', 'Workflow'].map((c) => h('th', { scope: 'col' }, c)),
      ),
    ),
    h(
      'tbody',
      {},
      items.map((s) =>
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, h('a', { href: `#/signals/${encodeURIComponent(s.id)}` }, s.id)),
          h('td', {}, `${s.signal} of ${s.app_label}.${s.model_name}`),
          h('td', {}, time(s.accepted_at)),
          h(
            'td',
            {},
            h('span', { class: `state state-${s.state}` }, s.state),
            s.failed_actions ? [' ', h('span', { class: 'state-failed' }, '(an action failed)')] : null,
          ),
          h(
            'td',
            {},
            (s.trigger_ids ?? []).length === 0
              ? '—'
              : h(
                  'ul',
                  { class: 'plain' },
                  s.trigger_ids.map((t) => h('li', {}, h('a', { href: `#/triggers/${encodeURIComponent(t)}` }, t))),
                ),
          ),
          h('td', {}, s.workflow_id ? workflowLink(config, s.workflow_id) : '—'),
        ),
      ),
    ),
  );
}

export default async function render(main, _params, query) {
  const current = Object.fromEntries(FILTERS.map((f) => [f, query.get(f) ?? undefined]));
  if (LIMIT_RE.test(query.get('limit') ?? '')) current.limit = query.get('limit');
  const paging = pagingOf(query);
  const { cursor } = paging;
  const top = [pageHeading('Signals'), jumpForm(), filterForm(current)];
  const config = await adminConfig();
  const page = await api('GET', '/api/signals', { query: { limit: PAGE_SIZE, ...current, cursor } });
  const next = page.body.next_cursor ?? nextCursor(page.link);
  replace(
    main,
    top,
    table(page.body.items, config),
    pageLinks((p) => hashOf(current, p), paging, next),
  );
}
