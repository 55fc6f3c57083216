// #/triggers/<id>/send-test: sends a test signal the trigger watches, then follows its dispatch live;
// or dry-runs it against this trigger first (POST /api/action-triggers/<id>/test: sends nothing).
import { adminConfig, api, ApiError } from '../lib/api.js';
import { announce, h, pageHeading, replace } from '../lib/dom.js';
import { errorView } from '../app.js';
import { conditionView } from '../lib/condition-text.js';
import { dryRunView } from '../lib/dry-run-view.js';
import { markFields } from '../lib/field-errors.js';
import { createRegistry, selectField, textField } from '../lib/form-fields.js';
import { triggerLinks } from '../lib/trigger-links.js';
import { followSignal } from './signal.js';

/** A fresh signal id: readable as a test, unique enough not to be deduplicated against another. */
export const newSignalId = () => `test-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

/** The text at a field names the request's path: the content type stands for two (app_label, model_name). */
const errorLine = (e) => `${e.path}: ${e.message}`;
/** Unmarked fields say so (aria-invalid="false"); marking puts it back when cleared. */
const VALID = { 'aria-invalid': 'false' };

/** The form's fields, bound to `values` and registered under the request paths whose errors they show. */
function fields(reg, values, trigger) {
  const contentType = selectField(reg, {
    path: 'content_type',
    label: 'Content type',
    model: values,
    key: 'content_type',
    attrs: VALID,
    options: trigger.content_types.map((c, i) => [String(i), `${c.app_label}.${c.model_name}`]),
  });
  const select = contentType.querySelector('select');
  for (const path of ['app_label', 'model_name'])
    reg.add({ path, label: 'Content type', focus: select, inputs: [select], container: contentType });
  return [
    selectField(reg, {
      path: 'signal',
      label: 'Signal',
      model: values,
      key: 'signal',
      attrs: VALID,
      options: trigger.config_signals.map((x) => x.signal),
    }),
    contentType,
    textField(reg, {
      path: 'instance',
      label: 'Sample instance (JSON object)',
      model: values,
      key: 'instance',
      multiline: true,
      rows: 8,
      attrs: VALID,
      hint: 'The attributes of the model instance, as your application would send them; the payload is rendered from them.',
    }),
    textField(reg, {
      path: 'previous',
      label: 'Previous state (JSON object, optional)',
      model: values,
      key: 'previous',
      multiline: true,
      rows: 4,
      attrs: VALID,
      hint: "The instance before the change, for a condition's previous.… paths and $changed. Blank: the signal has none.",
    }),
    textField(reg, {
      path: 'id',
      label: 'Signal id',
      model: values,
      key: 'id',
      attrs: VALID,
      hint: 'Generated; a signal id already used is not dispatched again.',
    }),
  ];
}

/** JSON typed in a field, or the error at its path; blank gives undefined where `optional`. */
const parsed = (text, path, optional) => {
  if (optional && text.trim() === '') return { value: undefined };
  try {
    return { value: JSON.parse(text) };
  } catch (e) {
    return { error: { path, message: `is not JSON: ${e.message}` } };
  }
};

function bodyOf(values, contentTypes) {
  const instance = parsed(values.instance, 'instance', false);
  const previous = parsed(values.previous, 'previous', true);
  const errors = [instance.error, previous.error].filter(Boolean);
  if (errors.length > 0) return { errors };
  const ct = contentTypes[Number(values.content_type)];
  const id = values.id.trim();
  return {
    body: {
      signal: values.signal,
      app_label: ct.app_label,
      model_name: ct.model_name,
      instance: instance.value,
      ...(previous.value === undefined ? {} : { previous: previous.value }),
      ...(id ? { id } : {}),
    },
  };
}

/**
 * A 403 for a missing scope, at the form, in words and focused (the keyboard is where the news is).
 * False for another 403, which errorView shows as the API said it.
 */
function refuse(box, error, what) {
  const scope = /lacks the scope (\S+)/.exec(error.message)?.[1];
  if (!scope) return false;
  replace(
    box,
    h(
      'div',
      { class: 'error', role: 'alert', tabindex: '-1' },
      `Your API key may not ${what}: it lacks the ${scope} scope. Nothing was sent.`,
    ),
  );
  box.firstChild.focus();
  return true;
}

export default async function render(main, { id }) {
  const [config, { body: trigger }] = await Promise.all([adminConfig(), api('GET', `/api/action-triggers/${encodeURIComponent(id)}`)]);
  const contentTypes = trigger.content_types;
  // errorView and the refusal below are alerts themselves: this holds them, not one more alert around them.
  const formError = h('div', { class: 'form-error' });
  const result = h('section', { 'aria-labelledby': 'result-heading', hidden: true });
  const values = {
    signal: trigger.config_signals[0]?.signal,
    content_type: '0',
    instance: '{\n  "id": 1\n}',
    previous: '',
    id: newSignalId(),
  };
  const registry = createRegistry();
  const dryRunButton = h('button', { type: 'button' }, 'Dry run (send nothing)');
  let following;
  const form = h(
    'form',
    { novalidate: true, 'aria-label': 'Test signal' },
    fields(registry, values, trigger),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Send test signal'), dryRunButton),
    formError,
  );
  /** Shows the errors at their fields (the first focused); returns those no field shows. */
  const mark = (errors) => {
    const { placed, rest } = markFields(form, registry, errors, { line: errorLine });
    placed[0]?.entry.focus.focus();
    return rest;
  };
  /** The fields' body, or undefined after showing why there is none. */
  const checkedBody = () => {
    replace(formError);
    const { body, errors } = bodyOf(values, contentTypes);
    mark(errors ?? []);
    return body;
  };
  /** Shows an API refusal: a missing scope in words, field errors at their fields, the rest as the API said it. */
  const refused = (e, what) => {
    if (e instanceof ApiError && e.status === 403 && refuse(formError, e, what)) return;
    const rest = e instanceof ApiError ? mark(e.fieldErrors) : [];
    if (!(e instanceof ApiError) || e.fieldErrors.length === 0 || rest.length > 0) replace(formError, errorView(e));
  };
  dryRunButton.addEventListener('click', async () => {
    const body = checkedBody();
    if (!body) return;
    try {
      const { body: view } = await api('POST', `/api/action-triggers/${encodeURIComponent(id)}/test`, { body });
      following?.stop();
      replace(result, h('h2', { id: 'result-heading' }, 'Dry run (nothing was sent)'), dryRunView(view));
      result.hidden = false;
      announce(view.would_dispatch ? 'Dry run: a signal like this would dispatch' : 'Dry run: a signal like this would not dispatch');
    } catch (e) {
      refused(e, 'run dry runs');
    }
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = checkedBody();
    if (!body) return;
    try {
      const { body: accepted } = await api('POST', '/api/signals', { body });
      following?.stop();
      const box = h('div', { class: 'signal-view' });
      replace(
        result,
        h(
          'h2',
          { id: 'result-heading' },
          'Signal ',
          h('a', { href: `#/signals/${encodeURIComponent(accepted.id)}` }, accepted.id),
          accepted.duplicate ? ' (sent before: not dispatched again)' : '',
        ),
        box,
      );
      result.hidden = false;
      announce(`Test signal ${accepted.id} accepted`);
      following = followSignal(box, accepted.id, config);
      values.id = newSignalId();
      registry.find('id').focus.value = values.id;
    } catch (e) {
      refused(e, 'send signals');
    }
  });
  replace(
    main,
    pageHeading(`Send a test signal for trigger ${id}`),
    triggerLinks(id, '/send-test'),
    h('p', {}, 'The signal is real: every active trigger that watches it, not only this one, dispatches it to its targets.'),
    trigger.active ? null : h('p', { class: 'notice' }, 'This trigger is inactive: a test signal will not match it.'),
    trigger.condition === undefined
      ? null
      : [
          h('p', {}, 'This trigger dispatches only when its condition holds (a dry run says whether it does):'),
          conditionView(trigger.condition),
        ],
    form,
    result,
  );
}
