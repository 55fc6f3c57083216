import { actionsOf, Planning } from '../model/signals/matching';
import type { ActionKind, ActionPlan, SignalEnvelope } from '../dispatch/types';
import type { TriggerDefinition } from '../model/triggers/codecs';
import { MAX_DRY_RUN_BODY_CHARS } from '../kernel/limits';
import { prepareAction } from './attempt';
import { AttemptEnded, Entries } from '../destinations/port/channel';
import type { Shown } from '../destinations/port/destination';
import { type ActionViews, type KindPreview, paceLimitOf } from '../destinations/registry';
import { LimitView, limitViewOf } from '../destinations/port/limit-view';
import { maskedDynamicValues } from './masked-values';

export interface PreviewOptions {
  /** How each kind shows an action: the worker's view of its settings (brokers, signing, targets), no secret. */
  readonly kinds: Readonly<Record<ActionKind, KindPreview>>;
  readonly allowedDynamicPaths: readonly string[];
  readonly dynamicModule: boolean;
  /** How a dispatch would plan the actions: their time-outs and the limits over their destinations. */
  readonly planning: Planning;
}

/** Prepares an action as an attempt would, with every dynamic value masked as its `{{ path }}`. */
const prepared = <T>(o: PreviewOptions, entries: Entries<T>, definition: TriggerDefinition, plan: ActionPlan, signal: SignalEnvelope) =>
  prepareAction(entries, definition, maskedDynamicValues(o), { plan, signal }, 1);

/**
 * One action of a dry run: which it is, and its kind's view (a webhook's `request` and
 * `masked_headers`, a queue's `message`); `refused` is the reason an attempt would end with now,
 * `retried` whether a dispatch would retry it.
 */
export type ActionPreview = ActionViews &
  Shown & {
    kind: ActionKind;
    index: number;
    delivery_id: string;
    timeout_secs: number;
    body_omitted?: string;
    limit?: LimitView;
  };

/** The limit a dispatch would pace the action by, as the config writes it (read by its key, as the worker reads it). */
const limitShown = (o: PreviewOptions, plan: ActionPlan): { limit?: LimitView } => {
  const limit = plan.pace === undefined ? undefined : paceLimitOf(o.planning.destinations, plan.pace);
  return plan.pace !== undefined && limit ? { limit: limitViewOf(plan.pace, limit) } : {};
};

const refusal = (e: AttemptEnded) => ({
  refused: e.attempt.reason,
  error_type: e.attempt.errorType,
  retried: e.attempt.outcome === 'retry',
});

/** Keeps the answer bounded: bodies past MAX_DRY_RUN_BODY_CHARS in all are left out, and say so. */
const withinBudget =
  (budget: { left: number }) =>
  (a: ActionPreview): ActionPreview => {
    const body = a.request?.body ?? a.message?.body ?? '';
    budget.left -= body.length;
    if (budget.left >= 0) return a;
    const body_omitted = `${body.length} characters, left out: a dry run shows at most ${MAX_DRY_RUN_BODY_CHARS} characters of bodies`;
    return {
      ...a,
      body_omitted,
      ...(a.request ? { request: { ...a.request, body: null } } : {}),
      ...(a.message ? { message: { ...a.message, body: null } } : {}),
    };
  };

/**
 * Every request and message one trigger would send for one signal, built by the same steps as an
 * attempt (prepare with masked dynamic values → build the request or message), never sent.
 */
export const previewTrigger = async (
  o: PreviewOptions,
  trigger: { id: string; version: number; definition: TriggerDefinition },
  signal: SignalEnvelope,
  now: Date,
): Promise<ActionPreview[]> => {
  const nowSecs = Math.floor(now.getTime() / 1000);
  // Together: a webhook's DNS check may wait up to its time-out, and 100 of them in a row would add up.
  const previews = await Promise.all(
    actionsOf(trigger, signal.id, o.planning).map(async (plan): Promise<ActionPreview> => {
      const head = {
        kind: plan.kind,
        index: plan.index,
        delivery_id: plan.deliveryId,
        timeout_secs: plan.timeoutSecs,
        ...limitShown(o, plan),
      };
      const kind = o.kinds[plan.kind];
      try {
        return { ...head, ...(await kind.show(await prepared(o, kind.entries, trigger.definition, plan, signal), nowSecs)) };
      } catch (e) {
        if (!(e instanceof AttemptEnded)) throw e;
        return { ...head, ...refusal(e), warnings: [] };
      }
    }),
  );
  return previews.map(withinBudget({ left: MAX_DRY_RUN_BODY_CHARS }));
};
