// The live preview: the form's trigger rendered for a sample instance by the dry-run API
// (POST /api/action-triggers/test), which sends nothing and shows dynamic values as `{{ path }}`.
// Whatever goes wrong is shown in the panel, never thrown.
import { api, ApiError } from './api.js';
import { h, replace } from './dom.js';
import { SIGNALS } from './trigger-text.js';

export const PREVIEW_DELAY_MS = 400;

const pretty = (body, contentType) => {
  if (body === null || body === undefined) return '(no body)';
  if (!/json/i.test(contentType ?? '')) return body;
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
};

function actionView(a, i) {
  // A refused action may have no request or message to show.
  const title =
    a.kind === 'webhook'
      ? `Webhook ${a.index + 1}${a.request ? `: ${a.request.method} ${a.request.url}` : ''}`
      : `Broker queue ${a.index + 1}${a.message ? `: ${a.message.broker} (${a.message.broker_type})` : ''}`;
  const body = a.kind === 'webhook' ? a.request?.body : a.message?.body;
  const contentType = a.kind === 'webhook' ? a.request?.content_type : a.message?.content_type;
  const headers = a.request?.headers ?? a.message?.parameters ?? {};
  return h(
    'div',
    { class: 'preview-action', 'data-index': i },
    h('h3', {}, title),
    a.refused ? h('p', { class: 'error' }, `A dispatch would not send this now: ${a.refused}`) : null,
    a.warnings?.length
      ? h(
          'ul',
          { class: 'warnings' },
          a.warnings.map((w) => h('li', {}, w)),
        )
      : null,
    a.body_omitted ? h('p', { class: 'muted' }, a.body_omitted) : null,
    h('pre', { class: 'preview-body', 'aria-label': `Rendered body, action ${i + 1}` }, pretty(body, contentType)),
    Object.keys(headers).length === 0
      ? null
      : h(
          'details',
          {},
          h('summary', {}, a.kind === 'webhook' ? 'Headers' : 'Parameters'),
          h(
            'pre',
            {},
            Object.entries(headers)
              .map(([k, v]) => `${k}: ${v}`)
              .join('\n'),
          ),
        ),
  );
}

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
      const res = await api('POST', '/api/action-triggers/test', { body: { trigger: body, signal: chosen, instance: sample } });
      if (mine !== turn) return;
      const view = res.body;
      show(
        view.would_dispatch ? null : h('p', { class: 'notice' }, `A real signal would not dispatch: ${view.not_dispatched_reason}`),
        view.actions.length === 0
          ? h('p', { class: 'muted' }, 'This trigger has no webhooks or broker queues: nothing would be sent.')
          : null,
        view.actions.map(actionView),
      );
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
    h('h3', {}, 'Rendered'),
    output,
  );
  return { element, schedule };
}
