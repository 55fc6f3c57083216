// How a trigger's condition and its outcomes read in the admin: the condition itself (trigger
// page), a signal's trigger whose condition was false (signal page), a dry run's result (previews).
import { h } from './dom.js';

/** `false at <clause>: <detail>`, the clause as code. */
const falseAt = (clause, detail) => ['false at ', h('code', { class: 'clause' }, clause), ': ', h('span', { class: 'detail' }, detail)];

/** A trigger's condition as pretty JSON, or a line saying it fires for every watched signal. */
export const conditionView = (condition) =>
  condition === undefined || condition === null
    ? h('p', { class: 'muted condition-none' }, 'always (no condition)')
    : h('pre', { class: 'json condition' }, JSON.stringify(condition, null, 2));

/** A `not_matched` entry of reason `condition_false`, as the end of its line. */
export const conditionFalseText = (n) => ['condition ', falseAt(n.clause ?? 'condition', n.detail ?? '')];

/** A dry run's `condition`: null (none), `{held: true}` or `{held: false, clause, detail}`. */
export function conditionResult(condition) {
  if (condition === null || condition === undefined)
    return h('p', { class: 'condition-result muted' }, 'Condition: none, so every watched signal dispatches.');
  if (condition.held) return h('p', { class: 'condition-result condition-held' }, 'Condition: held.');
  return h('p', { class: 'condition-result condition-false' }, 'Condition: ', falseAt(condition.clause, condition.detail));
}
