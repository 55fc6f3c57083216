// The live preview: the form's trigger rendered for a sample instance (and, optionally, its
// previous state) by the dry-run API (POST /api/action-triggers/test), which sends nothing and
// shows dynamic values as `{{ path }}`, and says whether the condition holds.
// Whatever goes wrong is shown in the panel, never thrown.
import { api, ApiError } from './api.js';
import { h, replace } from './dom.js';
import { dryRunView } from './dry-run-view.js';
import { parseJson } from './trigger-draft.js';
import { SIGNALS } from './trigger-text.js';

export const PREVIEW_DELAY_MS = 400;

/**
 * The preview panel and `schedule()`, to call on every edit: after PREVIEW_DELAY_MS of quiet it
 * asks the API; an older answer arriving late is dropped.
 */
export function livePreview(bodyOfForm, { startNow }) {
  const signal = h(
    'select',
    { id: 'preview-signal' },
    h('option', { value: '' }, "the trigger's first signal"),
    SIGNALS.map((s) => h('option', { value: s }, s)),
  );
  const instance = h('textarea', { id: 'preview-instance', rows: 6, spellcheck: 'false' });
  instance.value = '{\n  "id": 1,\n  "name": "Example"\n}';
  const previous = h('textarea', { id: 'preview-previous', rows: 4, spellcheck: 'false', 'aria-describedby': 'preview-previous-hint' });
  const output = h(
    'div',
    { id: 'preview-output', class: 'preview-output' },
    h('p', { class: 'muted' }, startNow ? 'Rendering…' : 'Fill in the form to see what a dispatch would send.'),
  );
  let timer;
  let turn = 0;

  const show = (...children) => replace(output, ...children);
  async function run() {
    const mine = ++turn;
    const { body, errors } = bodyOfForm();
    let sample;
    try {
      sample = JSON.parse(instance.value);
    } catch (e) {
      errors.push({ path: 'sample instance', message: `is not valid JSON (${e.message})` });
    }
    const before = parseJson(previous.value);
    if (before.problem) errors.push({ path: 'sample previous state', message: before.problem });
    if (errors.length > 0)
      return show(
        h('p', { class: 'error' }, 'No preview yet:'),
        h(
          'ul',
          {},
          errors.map((e) => h('li', {}, `${e.path}: ${e.message}`)),
        ),
      );
    const chosen = signal.value || body.config_signals[0]?.signal || 'post_save';
    output.setAttribute('aria-busy', 'true');
    try {
      const signalBody = { signal: chosen, instance: sample, ...(before.value === undefined ? {} : { previous: before.value }) };
      const res = await api('POST', '/api/action-triggers/test', { body: { trigger: body, ...signalBody } });
      if (mine !== turn) return;
      show(dryRunView(res.body));
    } catch (e) {
      if (mine !== turn) return;
      if (e instanceof ApiError && e.status === 400) {
        show(
          h('p', { class: 'error' }, 'The preview needs a valid trigger and sample:'),
          h(
            'ul',
            {},
            e.fieldErrors.map((f) => h('li', {}, `${f.path}: ${f.message}`)),
          ),
        );
      } else if (e instanceof ApiError && e.status === 403) {
        show(h('p', { class: 'error' }, 'Your API key may not run previews (they need the triggers:write scope).'));
      } else {
        show(h('p', { class: 'error' }, `No preview: ${e?.message ?? e}`));
      }
    } finally {
      if (mine === turn) output.removeAttribute('aria-busy');
    }
  }
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      run().catch(() => undefined);
    }, PREVIEW_DELAY_MS);
  };
  signal.addEventListener('change', schedule);
  instance.addEventListener('input', schedule);
  previous.addEventListener('input', schedule);
  if (startNow) schedule();

  const element = h(
    'section',
    { class: 'preview', 'aria-labelledby': 'preview-title' },
    h('h2', { id: 'preview-title' }, 'Live preview'),
    h(
      'p',
      { class: 'muted' },
      'What a dispatch would send for this sample, rendered by the service without sending anything. Dynamic values stay as {{ path }}.',
    ),
    h('label', { for: 'preview-signal' }, 'Sample signal'),
    signal,
    h('label', { for: 'preview-instance' }, 'Sample instance (JSON)'),
    instance,
    h('label', { for: 'preview-previous' }, 'Sample previous state (JSON, optional)'),
    h(
      'div',
      { id: 'preview-previous-hint', class: 'hint muted' },
      'The instance before the change, for previous.… paths and $changed. Blank: the signal has none.',
    ),
    previous,
    h('h3', {}, 'Rendered'),
    output,
  );
  return { element, schedule };
}
