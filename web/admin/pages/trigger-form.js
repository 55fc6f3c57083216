// Create (`#/triggers/new`) and edit (`#/triggers/<id>/edit`) a trigger in one form. The API
// validates; its errors are shown at their fields. Edits send If-Match with the version loaded.
// Leaving with unsaved edits asks first.
import { api, ApiError } from '../lib/api.js';
import { announce, h, pageHeading, replace } from '../lib/dom.js';
import { conditionOperators } from '../lib/condition-operators.js';
import { clearErrors, showErrors } from '../lib/field-errors.js';
import { createRegistry } from '../lib/form-fields.js';
import { leaveDialog } from '../lib/leave-dialog.js';
import { guardLeaving } from '../lib/leave-guard.js';
import { livePreview } from '../lib/preview.js';
import { bodyOf, draftOf, emptyDraft } from '../lib/trigger-draft.js';
import { triggerFields } from '../lib/trigger-fields.js';
import { triggerName } from '../lib/trigger-text.js';

const path = (id) => `/api/action-triggers/${encodeURIComponent(id)}`;

/** The draft as compared for "changed": every field as typed, the signals in a fixed order. */
const snapshotOf = (draft) => JSON.stringify({ ...draft, signals: [...draft.signals].sort() });

export default async function render(main, params) {
  const editing = params.id !== undefined;
  const [operators, first] = await Promise.all([conditionOperators(), editing ? api('GET', path(params.id)) : undefined]);
  let loaded = first;
  let draft = loaded ? draftOf(loaded.body) : emptyDraft();
  /** The draft as last loaded or saved: leaving asks only when the form differs from it. */
  let kept = snapshotOf(draft);

  const registry = createRegistry();
  const summary = h('div', { class: 'error-summary', role: 'alert', tabindex: '-1', hidden: true });
  const notice = h('div', { class: 'form-notice' });
  const fields = h('div', { class: 'fields' });
  const submit = h('button', { type: 'submit', class: 'primary' }, editing ? 'Save changes' : 'Create trigger');
  const cancel = h('a', { href: editing ? `#/triggers/${encodeURIComponent(params.id)}` : '#/triggers' }, 'Cancel');
  const form = h(
    'form',
    { novalidate: true, 'aria-label': editing ? 'Edit the trigger' : 'New trigger' },
    summary,
    fields,
    h('div', { class: 'actions' }, submit, cancel),
  );
  const intro = h('p', { class: 'muted' });
  const describe = () =>
    replace(
      intro,
      editing
        ? `Version ${loaded.body.version}. Saving replaces the whole trigger.`
        : 'A trigger dispatches its webhooks and broker queues when a watched signal arrives for a watched content type.',
    );
  describe();
  const preview = livePreview(() => bodyOf(draft), { startNow: editing });

  /** Draws the fields from the draft; `focusId`: what to focus after a row was added or removed. */
  const draw = (focusId) => {
    registry.reset();
    replace(fields, triggerFields(registry, draft, draw, operators));
    if (focusId) {
      const target = document.getElementById(focusId);
      (target?.matches('button, input, select, textarea') ? target : target?.querySelector('input, select, textarea, button'))?.focus();
      preview.schedule();
    }
  };
  draw();
  form.addEventListener('input', preview.schedule);
  form.addEventListener('change', preview.schedule);

  const reload = async () => {
    loaded = await api('GET', path(params.id));
    draft = draftOf(loaded.body);
    kept = snapshotOf(draft);
    clearErrors(form, summary);
    replace(notice);
    describe();
    draw();
    preview.schedule();
    announce(`Reloaded version ${loaded.body.version} into the form`);
    fields.querySelector('input, select, textarea')?.focus();
  };

  const refuse = (...children) => {
    replace(notice, h('div', { class: 'error', role: 'alert', tabindex: '-1' }, ...children));
    notice.firstChild.focus();
  };

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    replace(notice);
    const { body, errors } = bodyOf(draft);
    if (errors.length > 0) return showErrors(form, summary, registry, errors, 'The trigger was not saved');
    submit.disabled = true;
    try {
      const res = editing
        ? await api('PUT', path(params.id), { body, ifMatch: loaded.etag })
        : await api('POST', '/api/action-triggers', { body });
      announce(editing ? `Saved ${triggerName(res.body)}, version ${res.body.version}` : `Created ${triggerName(res.body)}`);
      kept = snapshotOf(draft);
      location.hash = `#/triggers/${encodeURIComponent(res.body.id)}`;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      clearErrors(form, summary);
      if (err.status === 400 && err.fieldErrors.length > 0) {
        showErrors(form, summary, registry, err.fieldErrors, 'The trigger was not saved');
      } else if (err.status === 412) {
        const button = h('button', { type: 'button' }, 'Reload the current version');
        button.addEventListener('click', () => {
          reload().catch((x) => refuse(`Could not reload: ${x.message}`));
        });
        refuse(
          h(
            'p',
            {},
            'Someone else changed this trigger since you opened it, so your changes were not saved. ',
            'Reload to edit the current version (your edits here will be replaced).',
          ),
          button,
        );
      } else if (err.status === 403) {
        refuse('Your API key may not change triggers: it lacks the triggers:write scope. Nothing was saved.');
      } else if (err.status === 404) {
        refuse('This trigger no longer exists (it was deleted). ', h('a', { href: '#/triggers' }, 'Back to the triggers.'));
      } else {
        refuse(`Not saved: ${err.problem.title ?? 'error'} (${err.status}): ${err.message}`);
      }
    } finally {
      submit.disabled = false;
    }
  });

  const leave = leaveDialog(
    editing
      ? 'Your changes to this trigger are not saved; leaving this page loses them.'
      : 'This trigger is not created yet; leaving this page loses what you entered.',
  );
  replace(
    main,
    pageHeading(editing ? `Edit trigger ${triggerName(loaded.body)}` : 'New trigger'),
    intro,
    notice,
    h('div', { class: 'form-and-preview' }, form, preview.element),
    leave.dialog,
  );
  guardLeaving({ changed: () => snapshotOf(draft) !== kept, confirm: leave.ask });
}
