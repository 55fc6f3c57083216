import { isTriggerId } from '../model/triggers/codecs';
import type { Request, Response } from 'express';
import { ActionPreview, PreviewOptions, previewTrigger } from '../delivery/preview';
import type { SignalEnvelope } from '../dispatch/types';
import { type Config, planningOf } from '../config';
import { loadTrigger } from '../model/triggers/handle-command';
import { sendError } from '../http/problem';
import { toFieldErrors } from '../kernel/field-errors';
import type { Ordering, TriggerDefinition } from '../model/triggers/codecs';
import { instanceKeyOf, NO_INSTANCE_KEY } from '../model/signals/instance-key';
import { TriggerDeps } from './deps';
import { DryRunInput, envelopeOf, notDispatchedReason, UNSTORED_TRIGGER_ID, unstoredDryRunCodec } from './dry-run-codec';
import { streamOf } from '../model/triggers/events';
import { destinationPreviews } from '../destinations/registry';
import { conditionOf } from '../model/signals/conditions';
import type { ConditionResult } from '../model/conditions/syntax';

/** What a dry run needs of the config: what the worker would send with, without any secret. */
export const previewOptionsOf = (config: Config): PreviewOptions => ({
  kinds: destinationPreviews(config.destinations, { allowPrivateTargets: config.file.allow_private_targets ?? false }),
  allowedDynamicPaths: config.file.dynamic_values?.allowed_paths ?? [],
  dynamicModule: config.file.dynamic_values?.module !== undefined,
  planning: planningOf(config),
});

/** The answer of a dry run (the OpenAPI document's `DryRun`). */
export interface DryRunView {
  trigger_id: string;
  /** null for a trigger body. */
  version: number | null;
  signal: Omit<SignalEnvelope, 'instance' | 'previous'>;
  would_dispatch: boolean;
  not_dispatched_reason?: string;
  /** The trigger's condition for this signal; null: it has none. */
  condition: ConditionResult | null;
  ordering: Ordering;
  /** `per_instance`: the instance this signal's dispatch would wait in, or why it would go at once. */
  instance_key?: string;
  unordered?: string;
  varies_per_attempt: string[];
  actions: ActionPreview[];
}

const orderingOf = (d: TriggerDefinition, signal: SignalEnvelope) => {
  if (d.ordering !== 'per_instance') return { ordering: 'none' as const };
  const key = instanceKeyOf(signal);
  return { ordering: d.ordering, ...(key === undefined ? { unordered: NO_INSTANCE_KEY } : { instance_key: key }) };
};

interface Subject {
  id: string;
  version: number | null;
  definition: TriggerDefinition;
}

/** Renders every action of the trigger for the signal, sends nothing, answers 200 with what it would send. */
const answer = async (deps: TriggerDeps, res: Response, trigger: Subject, input: DryRunInput) => {
  const now = deps.now();
  const envelope = envelopeOf(input, trigger.definition, now);
  if (Array.isArray(envelope)) return sendError(res, { _tag: 'Validation', errors: envelope });
  const actions = await previewTrigger(deps.preview, { ...trigger, version: trigger.version ?? 0 }, envelope, now);
  const { instance: _instance, previous: _previous, ...signal } = envelope;
  const condition = trigger.definition.condition === undefined ? null : conditionOf(trigger.definition, envelope);
  const notDispatched = notDispatchedReason(envelope, trigger.definition, condition);
  const view: DryRunView = {
    trigger_id: trigger.id,
    version: trigger.version,
    signal,
    would_dispatch: notDispatched === undefined,
    ...(notDispatched === undefined ? {} : { not_dispatched_reason: notDispatched }),
    condition,
    ...orderingOf(trigger.definition, envelope),
    varies_per_attempt: [
      'webhook-timestamp',
      ...(actions.some((a) => a.request?.headers['webhook-signature']) ? ['webhook-signature'] : []),
    ],
    actions,
  };
  res.status(200).json(view);
};

/** POST /api/action-triggers/<id>/test: the stored trigger, at its current version. */
export const dryRunStored = (deps: TriggerDeps) => async (req: Request, res: Response) => {
  const id = req.params.id;
  const notFound = () => sendError(res, { _tag: 'NotFound', ids: [String(id)] });
  if (!isTriggerId(id)) return notFound();
  const loaded = await loadTrigger(deps.store, streamOf(id));
  if (loaded.state.status !== 'live') return notFound();
  const input = DryRunInput.decode(req.body);
  if (input._tag === 'Left') return sendError(res, { _tag: 'Validation', errors: toFieldErrors(input.left) });
  await answer(deps, res, { id, version: loaded.version, definition: loaded.state.definition }, input.right);
};

/** POST /api/action-triggers/test: a trigger body, checked as POST /api/action-triggers checks it, never stored. */
export const dryRunUnstored = (deps: TriggerDeps) => {
  const codec = unstoredDryRunCodec(deps.triggerInput);
  return async (req: Request, res: Response) => {
    const input = codec.decode(req.body);
    if (input._tag === 'Left') return sendError(res, { _tag: 'Validation', errors: toFieldErrors(input.left) });
    const { trigger, ...signal } = input.right;
    await answer(deps, res, { id: trigger.id ?? UNSTORED_TRIGGER_ID, version: null, definition: trigger.definition }, signal);
  };
};
