import type { ActionPlan, DispatchPlan, RedeliveryMode } from '../../dispatch/types';
import type { FieldError } from '../../kernel/field-errors';

/** What a caller asks to send again. */
export interface RedeliveryAsk {
  mode: RedeliveryMode;
  /** Only these actions; else every action no dispatch of the signal delivered. */
  delivery_ids?: readonly string[];
  /** Only this trigger's actions (the bulk `redeliver-failed` of one trigger). */
  triggerId?: string;
}

export type Choice = { ok: true; plan: DispatchPlan } | { ok: false; errors: FieldError[] } | { ok: false; nothing: string };

/**
 * The plan of a redelivery, pure. `as_dispatched` takes the original's actions at the versions it
 * recorded; `current` takes the same triggers' actions as they are now (`current` is the API's
 * fresh plan for the signal: a trigger now inactive or deleted has none). Delivery ids stay those
 * of the original, so receivers can deduplicate by `webhook-id`.
 */
export const chooseActions = (
  ask: RedeliveryAsk,
  original: DispatchPlan,
  current: DispatchPlan,
  delivered: ReadonlySet<string>,
): Choice => {
  const originalTriggers = new Set(original.triggers.map((t) => t.triggerId));
  const base =
    ask.mode === 'as_dispatched'
      ? original
      : {
          triggers: current.triggers.filter((t) => originalTriggers.has(t.triggerId)),
          actions: current.actions.filter((a) => originalTriggers.has(a.triggerId)),
        };
  const candidates = base.actions.filter((a) => ask.triggerId === undefined || a.triggerId === ask.triggerId);
  let chosen: ActionPlan[];
  if (ask.delivery_ids) {
    const byId = new Map(candidates.map((a) => [a.deliveryId, a]));
    const errors = ask.delivery_ids.flatMap((id, i) =>
      byId.has(id)
        ? []
        : [
            {
              path: `delivery_ids[${i}]`,
              message:
                ask.mode === 'as_dispatched'
                  ? "is not an action of this signal's dispatch"
                  : "is not an action of this signal's triggers as they are now (inactive, deleted, or the action was removed)",
            },
          ],
    );
    if (errors.length > 0) return { ok: false, errors };
    chosen = [...new Set(ask.delivery_ids)].map((id) => byId.get(id)!);
  } else {
    chosen = candidates.filter((a) => !delivered.has(a.deliveryId));
    if (chosen.length === 0) {
      if (candidates.length > 0) return { ok: false, nothing: 'every action was delivered; name delivery_ids to send some again' };
      return {
        ok: false,
        nothing:
          ask.mode === 'as_dispatched'
            ? 'the dispatch has no action to redeliver'
            : 'no action to redeliver: no trigger of the original dispatch matches the signal now',
      };
    }
  }
  const used = new Set(chosen.map((a) => a.triggerId));
  return { ok: true, plan: { triggers: base.triggers.filter((t) => used.has(t.triggerId)), actions: chosen } };
};
