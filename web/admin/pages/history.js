// #/triggers/<id>/history: every event of the trigger, with what each changed in its definition.
import { api, ApiError, nextCursor } from '../lib/api.js';
import { errorView } from '../app.js';
import { announce, h, pageHeading, replace, time } from '../lib/dom.js';
import { diffView } from '../lib/diff-view.js';
import { stableStringify } from '../lib/diff.js';
import { triggerLinks } from '../lib/trigger-links.js';
import { EVENT_LABELS, versionsOf } from '../lib/versions.js';

const COLUMNS = ['Version', 'Event', 'Actor', 'Request id', 'Time'];

/** The change an event made: the first shows the whole definition, a deletion says so, the rest a diff. */
function changeOf({ event, before, after }, first) {
  const v = event.version;
  if (first && after !== undefined) {
    return h('details', {}, h('summary', {}, `Definition at version ${v}`), h('pre', { class: 'json' }, stableStringify(after)));
  }
  if (event.type === 'TriggerDeleted') return h('p', {}, 'The trigger was deleted; its history and dispatches are kept.');
  if (before === undefined && after === undefined) return h('p', { class: 'muted' }, 'No definition.');
  return diffView(before, after, `Changes from version ${v - 1} to version ${v}`);
}

/** An event's row and the row of its change; `first`: the first event of the whole history. */
function rowsOf(entry, first) {
  const { event } = entry;
  const meta = event.metadata ?? {};
  const label = EVENT_LABELS[event.type] ?? event.type;
  const reason = event.type === 'TriggerDeactivated' && event.data?.reason ? ` (by the service: ${event.data.reason})` : '';
  return [
    h(
      'tr',
      { id: `v${event.version}` },
      h('th', { scope: 'row' }, String(event.version)),
      h('td', {}, label + reason),
      h('td', {}, meta.actor ?? '—'),
      h('td', {}, h('code', {}, meta.request_id ?? '—')),
      h('td', {}, time(meta.occurred_at)),
    ),
    h('tr', { class: 'change' }, h('td', { colspan: COLUMNS.length }, changeOf(entry, first))),
  ];
}

const exists = (id) =>
  api('GET', `/api/action-triggers/${encodeURIComponent(id)}`).then(
    () => true,
    (e) => {
      if (e instanceof ApiError && e.status === 404) return false;
      throw e;
    },
  );

const deletedNotice = (last) =>
  last?.type === 'TriggerDeleted'
    ? ['This trigger is deleted (version ', String(last.version), ', ', time(last.metadata?.occurred_at), '). Its history stays.']
    : ['This trigger is deleted; the deletion is among the later versions. Its history stays.'];

/**
 * The history comes a page at a time (the API answers at most 100 events by default). "Later
 * versions" appends the next page in place, following the `Link` header; the definition after
 * the last event shown is kept, so the first event of the next page is diffed against it.
 */
export default async function render(main, { id }) {
  const path = `/api/action-triggers/${encodeURIComponent(id)}/history`;
  const first = await api('GET', path);
  const events = first.body;
  const last = events[events.length - 1];
  // With later pages to come, the last event shown says nothing of a deletion: ask the trigger.
  const deleted = first.link ? !(await exists(id)) : last?.type === 'TriggerDeleted';
  let shown = 0;
  let definition;
  const tbody = h('tbody');
  const caption = h('caption', { class: 'muted' });
  const notice = deleted ? h('p', { class: 'notice' }) : null;
  const more = h('div', { class: 'actions' });
  const note = h('div');
  const add = (page, link) => {
    const entries = versionsOf(page, definition);
    tbody.append(...entries.flatMap((entry, i) => rowsOf(entry, shown === 0 && i === 0)));
    shown += page.length;
    if (entries.length > 0) definition = entries[entries.length - 1].after;
    const end = page[page.length - 1];
    if (notice && (shown === page.length || end?.type === 'TriggerDeleted')) replace(notice, deletedNotice(end));
    replace(
      caption,
      `${shown} event${shown === 1 ? '' : 's'}, oldest first; below each, what it changed.${link ? ' Later versions follow.' : ''}`,
    );
    offer(nextCursor(link, 'after'));
  };
  const offer = (after) =>
    replace(
      more,
      after === undefined
        ? null
        : h(
            'button',
            {
              type: 'button',
              onclick: (e) => {
                e.currentTarget.disabled = true;
                later(after);
              },
            },
            'Later versions',
          ),
    );
  const later = async (after) => {
    replace(note);
    try {
      const res = await api('GET', path, { query: { after } });
      add(res.body, res.link);
      if (res.body.length === 0) return;
      // The button went (or moved on): the keyboard continues at the first new version.
      const row = tbody.querySelector(`tr[id="v${res.body[0].version}"] > th`);
      row?.setAttribute('tabindex', '-1');
      row?.focus();
      announce(`Versions ${res.body[0].version} to ${res.body[res.body.length - 1].version} shown`);
    } catch (e) {
      replace(note, errorView(e));
      offer(after);
    }
  };
  add(events, first.link);
  replace(
    main,
    pageHeading(`History of trigger ${id}`),
    triggerLinks(id, '/history', { deleted }),
    notice,
    h(
      'table',
      { class: 'history' },
      caption,
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          COLUMNS.map((c) => h('th', { scope: 'col' }, c)),
        ),
      ),
      tbody,
    ),
    note,
    more,
  );
}
