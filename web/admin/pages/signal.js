// #/signals/<id>: a signal's dispatch (GET /api/signals/<id>), followed live while it runs.
// `followSignal` and `signalView` are also what the test-signal page shows.
import { adminConfig, api } from '../lib/api.js';
import { announce, h, pageHeading, replace, time } from '../lib/dom.js';
import { errorView } from '../app.js';
import { conditionFalseText } from '../lib/condition-text.js';
import { follow } from '../lib/follow.js';
import { workflowLink } from '../lib/temporal-link.js';
import { cancelDeliveries } from '../lib/cancel-deliveries.js';

/** States in which the dispatch still changes. */
export const isLive = (view) => ['queued', 'running', 'matching'].includes(view.state);

const state = (s) => h('span', { class: `state state-${s}` }, s);
const triggerLink = (id, version) =>
  h('a', { href: `#/triggers/${encodeURIComponent(id)}` }, id, version === undefined ? '' : ` (version ${version})`);

/** For a trigger that delivers in order per instance: which instance, or why this signal goes at once. */
const orderingNote = (t) =>
  t.instance_key !== undefined
    ? ` · in order for instance ${t.instance_key}`
    : t.unordered !== undefined
      ? ` · not in order: ${t.unordered}`
      : '';

const fact = (term, ...value) => [h('dt', {}, term), h('dd', {}, ...value)];

/** The actions counted by state, the worst first: `1 failed, 2 delivered`. */
export function outcomeOf(actions) {
  const order = ['failed', 'retrying', 'waiting', 'pending', 'cancelled', 'delivered'];
  const counts = new Map();
  for (const a of actions) counts.set(a.state, (counts.get(a.state) ?? 0) + 1);
  const rank = (st) => (order.includes(st) ? order.indexOf(st) : order.length);
  const states = [...counts.keys()].sort((a, b) => rank(a) - rank(b));
  return states.map((st, i) => [i > 0 ? ', ' : '', h('span', { class: `state-${st}` }, `${counts.get(st)} ${st}`)]);
}

/** One action per row: outcome, attempts, status code, last error, render warnings. */
export function actionsTable(actions, { showTrigger = true } = {}) {
  if (actions.length === 0) return h('p', { class: 'muted' }, 'No actions.');
  const cols = [showTrigger && 'Trigger', 'Action', 'State', 'Attempts', 'Status code', 'Last error', 'Warnings'].filter(Boolean);
  return h(
    'table',
    { class: 'actions-table' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        cols.map((c) => h('th', { scope: 'col' }, c)),
      ),
    ),
    h(
      'tbody',
      {},
      actions.map((a) =>
        h(
          'tr',
          { 'data-delivery-id': a.delivery_id },
          showTrigger ? h('td', {}, triggerLink(a.trigger_id, a.version)) : null,
          h('th', { scope: 'row' }, `${a.kind} #${a.index}`),
          h('td', {}, state(a.state), a.cancelled_by ? h('div', { class: 'muted' }, `by ${a.cancelled_by} `, time(a.cancelled_at)) : null),
          h('td', { class: 'attempts' }, String(a.attempts)),
          h('td', { class: 'status-code' }, a.status_code === undefined ? '—' : String(a.status_code)),
          h('td', { class: 'last-error' }, a.last_error ?? '—'),
          h(
            'td',
            {},
            a.warnings?.length
              ? h(
                  'ul',
                  {},
                  a.warnings.map((w) => h('li', {}, w)),
                )
              : '—',
          ),
        ),
      ),
    ),
  );
}

/** Why a watching trigger was not matched: inactive, its condition false (where and why), or other signals. */
const notMatchedWhy = (n) =>
  n.reason === 'inactive'
    ? 'inactive'
    : n.reason === 'condition_false'
      ? conditionFalseText(n)
      : `watches ${(n.watches ?? []).join(', ') || 'other signals'}`;

function notMatchedList(view) {
  if (!view.not_matched?.length) return null;
  return [
    h('h2', {}, 'Triggers not matched'),
    h(
      'ul',
      {},
      view.not_matched.map((n) => h('li', { 'data-reason': n.reason }, triggerLink(n.trigger_id, n.version), ': ', notMatchedWhy(n))),
    ),
    view.not_matched_truncated ? h('p', { class: 'muted' }, 'More were not matched; only the first are listed.') : null,
  ];
}

function redeliveriesTable(view, config) {
  if (!view.redeliveries?.length) return null;
  return [
    h('h2', {}, 'Redeliveries'),
    h(
      'table',
      {},
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Number', 'Mode', 'Requested', 'Workflow'].map((c) => h('th', { scope: 'col' }, c)),
        ),
      ),
      h(
        'tbody',
        {},
        view.redeliveries.map((r) =>
          h(
            'tr',
            {},
            h('th', { scope: 'row' }, String(r.number)),
            h('td', {}, r.mode),
            h('td', {}, time(r.requested_at)),
            h('td', {}, workflowLink(config, r.workflow_id)),
          ),
        ),
      ),
    ),
  ];
}

/** A dispatch view as nodes: its facts, its actions, what it did not match, its redeliveries. */
export function signalView(view, config) {
  return [
    h(
      'dl',
      { class: 'facts' },
      fact('State', state(view.state), isLive(view) ? h('span', { class: 'muted' }, ' (following live)') : null),
      view.actions.length > 0 ? fact('Outcome', outcomeOf(view.actions)) : null,
      view.reason ? fact('Reason', view.reason) : null,
      view.accepted_at ? fact('Accepted', time(view.accepted_at)) : null,
      view.redelivery_of ? fact('Redelivery of', `${view.redelivery_of} (number ${view.number}, ${view.mode})`) : null,
      fact('Workflow', h('code', {}, view.workflow_id), ' ', workflowLink(config, view.workflow_id)),
      fact(
        'Triggers',
        view.triggers.length === 0
          ? 'none'
          : h(
              'ul',
              { class: 'plain' },
              view.triggers.map((t) => h('li', {}, triggerLink(t.trigger_id, t.version), orderingNote(t))),
            ),
      ),
    ),
    h('h2', {}, 'Actions'),
    actionsTable(view.actions),
    notMatchedList(view),
    redeliveriesTable(view, config),
  ];
}

/** GET /api/signals/<id>. */
export const loadSignal = async (id) => (await api('GET', `/api/signals/${encodeURIComponent(id)}`)).body;

/**
 * Shows signal `id` in `box` and follows it every second while it is live; announces each new
 * state, and hands each view to `onView`. Returns `{ stop }`.
 */
export function followSignal(box, id, config, { intervalMs = 1000, onView = () => undefined } = {}) {
  let shown;
  return follow(box, {
    load: () => loadSignal(id),
    show: (view) => {
      replace(box, signalView(view, config));
      onView(view);
      if (view.state !== shown) announce(`Signal ${id}: ${view.state}`);
      shown = view.state;
    },
    fail: (e) => replace(box, errorView(e)),
    isLive,
    intervalMs,
  });
}

export default async function render(main, { id }) {
  const [config, first] = await Promise.all([adminConfig(), loadSignal(id)]);
  const box = h('div', { class: 'signal-view' }, signalView(first, config));
  let following;
  const reload = () => {
    following?.stop();
    following = followSignal(box, id, config, { onView: cancel.show });
  };
  const cancel = cancelDeliveries(id, reload);
  cancel.show(first);
  const refresh = h('button', { type: 'button', onclick: reload }, 'Refresh');
  replace(main, pageHeading(`Signal ${id}`), h('div', { class: 'actions' }, refresh, ...cancel.nodes), box);
  // After the box is on the page: following stops as soon as it is not.
  if (isLive(first)) following = followSignal(box, id, config, { onView: cancel.show });
}
