// #/triggers/<id>/send-test: sends a test signal the trigger watches, then follows its dispatch live.
import { adminConfig, api, ApiError } from '../api.js';
import { announce, fieldId, h, pageHeading, replace } from '../dom.js';
import { errorView } from '../app.js';
import { triggerLinks } from '../lib/trigger-links.js';
import { followSignal } from './signal.js';

/** A fresh signal id: readable as a test, unique enough not to be deduplicated against another. */
export const newSignalId = () => `test-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

/** Each field of the form and the request body paths whose errors it shows. */
const FIELDS = {
  signal: ['signal'], content_type: ['app_label', 'model_name'], instance: ['instance'], id: ['id'],
};
const fieldOfPath = (path) => Object.keys(FIELDS).find((f) => FIELDS[f].some((p) => path === p || path.startsWith(`${p}.`) || path.startsWith(`${p}[`)));

const errorBox = (name) => h('p', { class: 'field-error', id: `${fieldId(name)}-error`, hidden: true });

function field(name, label, control, hint) {
  control.id = fieldId(name);
  control.name = name;
  control.setAttribute('aria-describedby', [hint && `${fieldId(name)}-hint`, `${fieldId(name)}-error`].filter(Boolean).join(' '));
  return h('div', { class: 'field' }, h('label', { for: control.id }, label),
    hint ? h('p', { class: 'muted hint', id: `${fieldId(name)}-hint` }, hint) : null, control, errorBox(name));
}

/** Shows each error at its field (all at once); returns the messages no field shows. */
function showErrors(form, errors) {
  for (const name of Object.keys(FIELDS)) {
    const box = form.querySelector(`#${fieldId(name)}-error`);
    const mine = errors.filter((e) => fieldOfPath(e.path) === name);
    box.hidden = mine.length === 0;
    box.textContent = mine.map((e) => `${e.path}: ${e.message}`).join('; ');
    form.elements[name].setAttribute('aria-invalid', String(mine.length > 0));
  }
  const first = errors.map((e) => fieldOfPath(e.path)).find(Boolean);
  if (first) form.elements[first].focus();
  return errors.filter((e) => !fieldOfPath(e.path));
}

function bodyOf(form, contentTypes) {
  const instanceText = form.elements.instance.value;
  let instance;
  try { instance = JSON.parse(instanceText); } catch (e) { return { errors: [{ path: 'instance', message: `is not JSON: ${e.message}` }] }; }
  const ct = contentTypes[Number(form.elements.content_type.value)];
  const id = form.elements.id.value.trim();
  return { body: { signal: form.elements.signal.value, app_label: ct.app_label, model_name: ct.model_name, instance, ...(id ? { id } : {}) } };
}

/**
 * A 403 for a missing scope, at the form, in words and focused (the keyboard is where the news is).
 * False for another 403, which errorView shows as the API said it.
 */
function refuse(box, error) {
  const scope = /lacks the scope (\S+)/.exec(error.message)?.[1];
  if (!scope) return false;
  replace(box, h('div', { class: 'error', role: 'alert', tabindex: '-1' },
    `Your API key may not send signals: it lacks the ${scope} scope. Nothing was sent.`));
  box.firstChild.focus();
  return true;
}

export default async function render(main, { id }) {
  const [config, { body: trigger }] = await Promise.all([adminConfig(), api('GET', `/api/action-triggers/${encodeURIComponent(id)}`)]);
  const contentTypes = trigger.content_types;
  // errorView and the refusal below are alerts themselves: this holds them, not one more alert around them.
  const formError = h('div', { class: 'form-error' });
  const result = h('section', { 'aria-labelledby': 'result-heading', hidden: true });
  let following;
  const form = h('form', { novalidate: true, 'aria-label': 'Test signal' },
    field('signal', 'Signal', h('select', {}, trigger.config_signals.map((s) => h('option', { value: s.signal }, s.signal)))),
    field('content_type', 'Content type', h('select', {}, contentTypes.map((c, i) => h('option', { value: String(i) }, `${c.app_label}.${c.model_name}`)))),
    field('instance', 'Sample instance (JSON object)', h('textarea', { rows: 8, spellcheck: 'false' }, '{\n  "id": 1\n}'),
      'The attributes of the model instance, as your application would send them; the payload is rendered from them.'),
    field('id', 'Signal id', h('input', { type: 'text', value: newSignalId(), autocomplete: 'off' }),
      'Generated; a signal id already used is not dispatched again.'),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Send test signal')),
    formError);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    replace(formError);
    const { body, errors } = bodyOf(form, contentTypes);
    if (errors) { showErrors(form, errors); return; }
    showErrors(form, []);
    try {
      const { body: accepted } = await api('POST', '/api/signals', { body });
      following?.stop();
      const box = h('div', { class: 'signal-view' });
      replace(result, h('h2', { id: 'result-heading' }, 'Signal ', h('a', { href: `#/signals/${encodeURIComponent(accepted.id)}` }, accepted.id),
        accepted.duplicate ? ' (sent before: not dispatched again)' : ''), box);
      result.hidden = false;
      announce(`Test signal ${accepted.id} accepted`);
      following = followSignal(box, accepted.id, config);
      form.elements.id.value = newSignalId();
    } catch (e) {
      if (e instanceof ApiError && e.status === 403 && refuse(formError, e)) return;
      const rest = e instanceof ApiError ? showErrors(form, e.fieldErrors) : [];
      if (!(e instanceof ApiError) || e.fieldErrors.length === 0 || rest.length > 0) replace(formError, errorView(e));
    }
  });
  replace(main,
    pageHeading(`Send a test signal for trigger ${id}`),
    triggerLinks(id, '/send-test'),
    h('p', {}, 'The signal is real: every active trigger that watches it, not only this one, dispatches it to its targets.'),
    trigger.active ? null : h('p', { class: 'notice' }, 'This trigger is inactive: a test signal will not match it.'),
    form, result);
}
