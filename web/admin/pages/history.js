// #/triggers/<id>/history: every event of the trigger, with what each changed in its definition.
import { api } from '../api.js';
import { h, pageHeading, replace, time } from '../dom.js';
import { diffView } from '../lib/diff-view.js';
import { stableStringify } from '../lib/diff.js';
import { triggerLinks } from '../lib/trigger-links.js';
import { EVENT_LABELS, versionsOf } from '../lib/versions.js';

const COLUMNS = ['Version', 'Event', 'Actor', 'Request id', 'Time'];

/** The change an event made: the first shows the whole definition, a deletion says so, the rest a diff. */
function changeOf({ event, before, after }, index) {
  const v = event.version;
  if (index === 0 && after !== undefined) {
    return h('details', {},
      h('summary', {}, `Definition at version ${v}`),
      h('pre', { class: 'json' }, stableStringify(after)));
  }
  if (event.type === 'TriggerDeleted') return h('p', {}, 'The trigger was deleted; its history and dispatches are kept.');
  if (before === undefined && after === undefined) return h('p', { class: 'muted' }, 'No definition.');
  return diffView(before, after, `Changes from version ${v - 1} to version ${v}`);
}

function rowsOf(entry, index) {
  const { event } = entry;
  const meta = event.metadata ?? {};
  const label = EVENT_LABELS[event.type] ?? event.type;
  const reason = event.type === 'TriggerDeactivated' && event.data?.reason ? ` (by the service: ${event.data.reason})` : '';
  return [
    h('tr', { id: `v${event.version}` },
      h('th', { scope: 'row' }, String(event.version)),
      h('td', {}, label + reason),
      h('td', {}, meta.actor ?? '—'),
      h('td', {}, h('code', {}, meta.request_id ?? '—')),
      h('td', {}, time(meta.occurred_at))),
    h('tr', { class: 'change' }, h('td', { colspan: COLUMNS.length }, changeOf(entry, index))),
  ];
}

export default async function render(main, { id }) {
  const { body: events } = await api('GET', `/api/action-triggers/${encodeURIComponent(id)}/history`);
  const entries = versionsOf(events);
  const last = events[events.length - 1];
  const deleted = last?.type === 'TriggerDeleted';
  replace(main,
    pageHeading(`History of trigger ${id}`),
    triggerLinks(id, '/history', { deleted }),
    deleted ? h('p', { class: 'notice' }, 'This trigger is deleted (version ', String(last.version), ', ', time(last.metadata?.occurred_at), '). Its history stays.') : null,
    h('table', { class: 'history' },
      h('caption', { class: 'muted' }, `${events.length} event${events.length === 1 ? '' : 's'}, oldest first; below each, what it changed.`),
      h('thead', {}, h('tr', {}, COLUMNS.map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, entries.map(rowsOf))));
}
