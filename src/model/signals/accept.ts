import type { DispatchPlan, SignalEnvelope } from '../../dispatch/types';
import { MAX_ACTIONS_PER_DISPATCH, MAX_SIGNAL_BYTES } from '../../kernel/limits';
import { FieldError } from '../../kernel/field-errors';

/** Where item `i` of a request sits: `[i]` in an array body, the body itself otherwise. */
export const itemPath = (isBatch: boolean, i: number, field?: string) =>
  isBatch ? `[${i}]${field ? `.${field}` : ''}` : (field ?? '(body)');

/** Signals over MAX_SIGNAL_BYTES: each is part of its workflow's input, which Temporal bounds. */
export const oversizeSignals = (signals: readonly SignalEnvelope[], isBatch: boolean): FieldError[] =>
  signals.flatMap((s, i) => {
    const bytes = Buffer.byteLength(JSON.stringify(s));
    if (bytes <= MAX_SIGNAL_BYTES) return [];
    // Named by the larger of the two parts a signal's size comes from.
    const field =
      s.previous !== undefined && Buffer.byteLength(JSON.stringify(s.previous)) > Buffer.byteLength(JSON.stringify(s.instance))
        ? 'previous'
        : 'instance';
    return [{ path: itemPath(isBatch, i, field), message: `makes the signal ${bytes} bytes as JSON; at most ${MAX_SIGNAL_BYTES}` }];
  });

/** Plans with more actions than one dispatch may hold: accepting them could never complete. */
export const overfullPlans = (plans: readonly DispatchPlan[], isBatch: boolean): FieldError[] =>
  plans.flatMap((p, i) =>
    p.actions.length > MAX_ACTIONS_PER_DISPATCH
      ? [
          {
            path: itemPath(isBatch, i),
            message: `matches ${p.actions.length} actions (webhooks and queues of ${p.triggers.length} triggers); at most ${MAX_ACTIONS_PER_DISPATCH} per signal`,
          },
        ]
      : [],
  );
