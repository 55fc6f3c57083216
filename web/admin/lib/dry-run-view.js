// A dry run's answer (POST /api/action-triggers/test and /api/action-triggers/<id>/test) as
// nodes: whether a real signal would dispatch, the condition's result, each action's rendering.
import { conditionResult } from './condition-text.js';
import { h } from './dom.js';

const pretty = (body, contentType) => {
  if (body === null || body === undefined) return '(no body)';
  if (!/json/i.test(contentType ?? '')) return body;
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
};

/** One action of a dry run's answer: what it would send, or why not. */
export function actionView(a, i) {
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
    // Focusable: a long body scrolls, and the keyboard must be able to scroll it too.
    h('pre', { class: 'preview-body', tabindex: '0', 'aria-label': `Rendered body, action ${i + 1}` }, pretty(body, contentType)),
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

/** The whole answer: why a real signal would not dispatch (if so), the condition, the actions. */
export const dryRunView = (view) => [
  view.would_dispatch ? null : h('p', { class: 'notice' }, `A real signal would not dispatch: ${view.not_dispatched_reason}`),
  conditionResult(view.condition),
  view.actions.length === 0 ? h('p', { class: 'muted' }, 'This trigger has no webhooks or broker queues: nothing would be sent.') : null,
  view.actions.map(actionView),
];
