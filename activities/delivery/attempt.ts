import { ApplicationFailure, Context } from '@temporalio/activity';
import { ActionKind, ActionPlan, Attempt, DeliveryReceipt, FailureDetails, RetrySettings, SignalEnvelope, workflowIdOf } from '../../src/dispatch/types';
import { boundText, boundWarnings } from '../../src/dispatch/bounds';
import { delayAfter } from '../../src/dispatch/retry-schedule';
import type { TriggerDefinition } from '../../src/triggers/model/codecs';
import type { Logger } from '../../src/kernel/logger';
import { DefinitionAt } from '../../src/triggers/model/definition-at';
import type { DeliveredLedger } from './delivered-ledger';
import type { OutcomeRecorder } from '../../src/breaker/record-outcome';
import type { TurnArgs } from '../../src/dispatch/ordering';
import { DynamicValueError, DynamicValueSource } from './dynamic-values';
import { dynamicPathsIn, DynamicValues, Rendered, renderBody, renderStringMap, RenderTooLarge } from './render';
import { countAttempt, DeliveryMetrics } from './attempt-metrics';
import { Mask, maskedError, maskFrom } from './secret-mask';

/** Ends an attempt from inside a step (preparing, rendering) with a known outcome. */
export class AttemptEnded extends Error {
  constructor(readonly attempt: Exclude<Attempt, { outcome: 'delivered' }>) {
    super(attempt.reason);
    this.name = 'AttemptEnded';
  }
}

export const fail = (errorType: string, reason: string) => new AttemptEnded({ outcome: 'fail', errorType, reason });
export const retry = (errorType: string, reason: string) => new AttemptEnded({ outcome: 'retry', errorType, reason });

/**
 * What every action activity receives from the workflow: references, the signal, the retry
 * schedule, and how many attempts ran before this activity (older dispatches ran the first
 * one locally).
 */
export interface ActionArgs {
  plan: ActionPlan; signal: SignalEnvelope; retry: RetrySettings; attemptsBefore?: number;
  /** Look the delivery up in the ledger first and record it there when delivered (dispatches whose first attempts run locally). */
  ledger?: boolean;
  /** The request that accepted the signal, for the attempt's log lines. */
  requestId?: string;
  /**
   * This action is its trigger's only one in an instance order: once delivered, the attempt ends
   * the dispatch's turn itself (one workflow activation less per ordered delivery).
   */
  endsTurn?: TurnArgs;
}

export interface PipelineDeps {
  /** The trigger's definition at a version (cached: versions never change). */
  readonly definitionAt: DefinitionAt;
  readonly dynamicValues: DynamicValueSource;
  readonly ledger: DeliveredLedger;
  readonly log: Logger;
  /** The circuit breaker: told each delivery and each final failure. */
  readonly breaker?: OutcomeRecorder;
  /** Counts and times each attempt (absent: nothing recorded). */
  readonly metrics?: DeliveryMetrics;
}

/** An action ready to send: its entry, the rendered body, and a renderer for its string maps. */
export interface Prepared<T> {
  readonly plan: ActionPlan;
  readonly definition: TriggerDefinition;
  readonly action: T;
  readonly rendered: Rendered;
  /** Renders a string map (headers, conn_details, parameters) with this attempt's values. */
  readonly renderMap: (map: Record<string, string> | undefined) => Record<string, string>;
  /** This attempt's number across the whole action. */
  readonly attempt: number;
}

/** How one kind of action finds its entry, what of it holds templates, and how it is sent. */
export interface Channel<T> {
  readonly kind: ActionKind;
  /** The action's entry in the definition, or undefined when there is none. */
  pick(definition: TriggerDefinition, index: number): T | undefined;
  /** Checks that need no values (may throw AttemptEnded); returns the values holding templates. */
  templated(definition: TriggerDefinition, action: T): unknown[];
  send(prepared: Prepared<T>): Promise<Attempt>;
}

/** A channel's entries without its sending: what preparing an action (and a dry run) needs. */
export type Entries<T> = Omit<Channel<T>, 'send'>;

/** Renders, or ends the attempt for good: a rendering too large now is too large on every retry. */
const rendering = <A>(render: () => A): A => {
  try {
    return render();
  } catch (e) {
    if (e instanceof RenderTooLarge) throw fail('RenderTooLarge', e.message);
    throw e;
  }
};

/**
 * Resolve the dynamic values an action uses → render. Shared by every attempt and by the dry run,
 * which passes a source that masks each value as its `{{ path }}` text: the same steps, so what
 * it shows is what an attempt sends.
 */
export const prepareAction = async <T>(channel: Entries<T>, definition: TriggerDefinition | undefined, dynamicValues: DynamicValueSource,
  target: { plan: ActionPlan; signal: SignalEnvelope }, attempt: number): Promise<Prepared<T>> => {
  const { plan, signal } = target;
  const action = definition && channel.pick(definition, plan.index);
  if (!definition || action === undefined) throw fail('ActionMissing', `trigger ${plan.triggerId} version ${plan.version} has no ${plan.kind} ${plan.index}`);
  let dynamic: DynamicValues;
  try {
    dynamic = await dynamicValues.resolve(dynamicPathsIn(channel.templated(definition, action)));
  } catch (e) {
    // The message names the path, never a value. A missing value may appear later: retried.
    if (e instanceof DynamicValueError) throw retry('DynamicValue', e.message);
    throw e;
  }
  const rendered = rendering(() => renderBody(definition.payload, signal, plan.triggerId, dynamic));
  return {
    plan, definition, action, attempt, rendered,
    // The string maps' warnings join the body's: one list per attempt, read once it is sent.
    renderMap: (map) => rendering(() => renderStringMap(map, signal.instance, dynamic, rendered.warnings)),
  };
};

/** Load the definition at its version, then prepare the action from it with these values. */
const prepare = async <T>(deps: PipelineDeps, channel: Channel<T>, args: ActionArgs, attempt: number, values: DynamicValueSource): Promise<Prepared<T>> =>
  prepareAction(channel, await deps.definitionAt(args.plan.triggerId, args.plan.version), values, args, attempt);

/** The attempt's outcome with its texts masked (a delivery has none). */
const masked = (result: Attempt, mask: Mask): Attempt =>
  (result.outcome === 'delivered' ? result : { ...result, errorType: mask(result.errorType), reason: mask(result.reason) });

/** What Temporal is told of an attempt that did not deliver. */
export interface AttemptFailure { message: string; type: string; details: FailureDetails; nonRetryable: boolean }

/** An attempt's end as data: a receipt, or the failure Temporal is to read. */
export type Settled = { receipt: DeliveryReceipt } | { failure: AttemptFailure };

/**
 * One attempt of one action, the same for webhooks and every publisher: prepare, send, then
 * settle, with the next delay decided by the retry schedule. `args.ledger`: a delivery is
 * recorded in the dispatch's ledger before it is reported.
 */
export const attemptOnce = async <T>(deps: PipelineDeps, channel: Channel<T>, args: ActionArgs, attempt: number, dispatchId: string): Promise<Settled> => {
  let result: Attempt;
  let warnings: string[] = [];
  let definition: TriggerDefinition | undefined;
  // The values this attempt resolves, kept to mask every text that leaves it: a broker's or
  // client's error may echo a rendered value (a queue name, a host), and from here it would
  // reach the log, the breaker's reason, the workflow history, the API and spans.
  let resolved: DynamicValues = new Map();
  const values: DynamicValueSource = { resolve: async (paths) => { const m = await deps.dynamicValues.resolve(paths); resolved = m; return m; } };
  const started = process.hrtime.bigint();
  try {
    const prepared = await prepare(deps, channel, args, attempt, values);
    definition = prepared.definition;
    result = await channel.send(prepared);
    warnings = prepared.rendered.warnings;
  } catch (e) {
    if (!(e instanceof AttemptEnded)) throw maskedError(e, maskFrom(resolved));
    result = e.attempt;
  }
  result = masked(result, maskFrom(resolved));
  countAttempt(deps.metrics, { args, kind: channel.kind, definition, result, final: result.outcome === 'fail' || attempt >= args.retry.maxAttempts,
    started, ownDispatch: dispatchId === workflowIdOf(args.signal.id) });
  const where = { delivery_id: args.plan.deliveryId, kind: channel.kind, attempt };
  if (result.outcome === 'delivered') {
    deps.log.info('delivered', { ...where, ...(result.statusCode === undefined ? {} : { status: result.statusCode }) });
    const receipt = { attempt, warnings: boundWarnings(warnings), ...(result.statusCode === undefined ? {} : { statusCode: result.statusCode }) };
    // The ledger first: it is what keeps a lost workflow task or a retried batch from sending again.
    if (args.ledger) await deps.ledger.record(dispatchId, args.plan.deliveryId, receipt);
    await deps.breaker?.(args.plan, result, true);
    return { receipt };
  }
  await deps.breaker?.(args.plan, result, result.outcome === 'fail' || attempt >= args.retry.maxAttempts);
  deps.log.warn('attempt failed', { ...where, error_type: result.errorType, reason: result.reason, final: result.outcome === 'fail' });
  const message = boundText(result.reason);
  const details = { attempt, ...(result.statusCode === undefined ? {} : { statusCode: result.statusCode }) };
  if (result.outcome === 'fail') return { failure: { message, type: result.errorType, details, nonRetryable: true } };
  return { failure: { message, type: result.errorType, details: { ...details, retryDelayMs: delayAfter(attempt, args.retry, result.retryAfterMs) }, nonRetryable: false } };
};

/** The dispatch an activity belongs to: the ledger is per dispatch (a redelivery sends again what the original delivered). */
export const dispatchIdOf = (signal: SignalEnvelope) => Context.current().info.workflowExecution?.workflowId ?? workflowIdOf(signal.id);

/**
 * One attempt as one activity: a delivery is a receipt; anything else is the ApplicationFailure
 * the workflow's retry policy reads.
 */
export const runAttempt = async <T>(deps: PipelineDeps, channel: Channel<T>, args: ActionArgs): Promise<DeliveryReceipt> => {
  const attempt = Context.current().info.attempt + (args.attemptsBefore ?? 0);
  const dispatchId = dispatchIdOf(args.signal);
  if (args.ledger) {
    const known = await deps.ledger.find(dispatchId, args.plan.deliveryId);
    if (known) {
      deps.log.info('already delivered; not sent again', { delivery_id: args.plan.deliveryId, kind: channel.kind, attempt: known.attempt });
      return known;
    }
  }
  const settled = await attemptOnce(deps, channel, args, attempt, dispatchId);
  if ('receipt' in settled) return settled.receipt;
  const { message, type, details, nonRetryable } = settled.failure;
  throw ApplicationFailure.create({ message, type, details: [details], nonRetryable, ...(nonRetryable ? {} : { nextRetryDelay: details.retryDelayMs }) });
};
