import { ApplicationFailure, Context } from '@temporalio/activity';
import { ActionPlan, Attempt, AttemptErrorType, DeliveryReceipt, FailureDetails, SignalEnvelope, workflowIdOf } from '../dispatch/types';
import { boundText, boundWarnings } from '../dispatch/bounds';
import { delayAfter, millis } from '../dispatch/retry-schedule';
import type { Logger } from '../kernel/logger';
import { DefinitionAt } from '../model/triggers/definition-at';
import type { DeliveredLedger } from './delivered-ledger';
import type { OutcomeRecorder } from '../model/breaker/record-outcome';
import type { ActionArgs } from '../dispatch/activities';
import { DynamicValueError, DynamicValueSource } from './dynamic-values';
import { DynamicValues, renderBody, renderStringMap, RenderTooLarge } from './render';
import { dynamicPathsIn } from '../kernel/template-expressions';
import { ActionLists, AttemptEnded, Channel, Entries, fail, Prepared, retry } from '../destinations/port/channel';
import { countAttempt, DeliveryMetrics } from './attempt-metrics';
import { Mask, maskedError, maskFrom } from './secret-mask';

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
  /**
   * Right before the request leaves, once it is ready: a paced attempt's check of its
   * destination's limit, which may wait a little or throw PaceHold.
   */
  readonly beforeSend?: (args: ActionArgs) => Promise<void>;
}

/** The destination's limit holds the attempt until `until` (epoch ms): nothing was sent, and it does not count. */
export class PaceHold extends Error {
  constructor(
    readonly until: number,
    /** Whether `until` is a slot reserved for the attempt (else the end of a receiver's pause). */
    readonly reserved: boolean,
  ) {
    super(`the destination's limit holds this attempt until ${new Date(until).toISOString()}`);
    this.name = 'PaceHold';
  }
}

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
export const prepareAction = async <T>(
  channel: Entries<T>,
  definition: ActionLists | undefined,
  dynamicValues: DynamicValueSource,
  target: { plan: ActionPlan; signal: SignalEnvelope },
  attempt: number,
): Promise<Prepared<T>> => {
  const { plan, signal } = target;
  const action = definition && channel.pick(definition, plan.index);
  if (!definition || action === undefined)
    throw fail('ActionMissing', `trigger ${plan.triggerId} version ${plan.version} has no ${plan.kind} ${plan.index}`);
  let dynamic: DynamicValues;
  try {
    dynamic = await dynamicValues.resolve(dynamicPathsIn(channel.templated(definition, action)));
  } catch (e) {
    // The message names the path, never a value. A missing value may appear later: retried.
    if (e instanceof DynamicValueError) throw retry('DynamicValue', e.message);
    throw e;
  }
  const rendered = rendering(() => renderBody(channel.payload(definition, action), signal, plan.triggerId, dynamic));
  return {
    plan,
    definition,
    action,
    attempt,
    rendered,
    // The string maps' warnings join the body's: one list per attempt, read once it is sent.
    renderMap: (map) => rendering(() => renderStringMap(map, signal, dynamic, rendered.warnings)),
  };
};

/** Load the definition at its version, then prepare the action from it with these values. */
const prepare = async <T>(
  deps: PipelineDeps,
  channel: Channel<T>,
  args: ActionArgs,
  attempt: number,
  values: DynamicValueSource,
): Promise<Prepared<T>> => prepareAction(channel, await deps.definitionAt(args.plan.triggerId, args.plan.version), values, args, attempt);

/**
 * When a paced destination's receiver asked for a pause: a retry it answered with a wait
 * (`Retry-After` on a 429 or 503), capped at the schedule's longest interval; epoch ms.
 */
const pauseAsked = (args: ActionArgs, result: Attempt): number | undefined =>
  args.paced && result.outcome === 'retry' && result.retryAfterMs !== undefined && PAUSING_STATUSES.has(result.statusCode ?? 0)
    ? Date.now() + Math.min(result.retryAfterMs, millis(args.retry.maxIntervalSecs))
    : undefined;
const PAUSING_STATUSES = new Set([429, 503]);

/** The attempt's outcome with its reason masked (a delivery has none; an error type is one of a closed list). */
const masked = (result: Attempt, mask: Mask): Attempt =>
  result.outcome === 'delivered' ? result : { ...result, reason: mask(result.reason) };

/** What Temporal is told of an attempt that did not deliver. */
export interface AttemptFailure {
  message: string;
  type: AttemptErrorType;
  details: FailureDetails;
  nonRetryable: boolean;
}

/** An attempt's end as data: a receipt, or the failure Temporal is to read. */
export type Settled = { receipt: DeliveryReceipt } | { failure: AttemptFailure };

/**
 * One attempt of one action, the same for webhooks and every publisher: prepare, send, then
 * settle, with the next delay decided by the retry schedule. `args.ledger`: a delivery is
 * recorded in the dispatch's ledger before it is reported.
 */
export const attemptOnce = async <T>(
  deps: PipelineDeps,
  channel: Channel<T>,
  args: ActionArgs,
  attempt: number,
  dispatchId: string,
): Promise<Settled> => {
  let result: Attempt;
  let warnings: string[] = [];
  let definition: ActionLists | undefined;
  // The values this attempt resolves, kept to mask every text that leaves it: a broker's or
  // client's error may echo a rendered value (a queue name, a host), and from here it would
  // reach the log, the breaker's reason, the workflow history, the API and spans.
  let resolved: DynamicValues = new Map();
  const values: DynamicValueSource = {
    resolve: async (paths) => {
      const m = await deps.dynamicValues.resolve(paths);
      resolved = m;
      return m;
    },
  };
  const started = process.hrtime.bigint();
  try {
    const prepared = await prepare(deps, channel, args, attempt, values);
    definition = prepared.definition;
    await deps.beforeSend?.(args);
    result = await channel.send(prepared);
    warnings = prepared.rendered.warnings;
  } catch (e) {
    if (e instanceof PaceHold) throw e;
    if (!(e instanceof AttemptEnded)) throw maskedError(e, maskFrom(resolved));
    result = e.attempt;
  }
  result = masked(result, maskFrom(resolved));
  const pausedUntil = pauseAsked(args, result);
  const final = pausedUntil === undefined && (result.outcome === 'fail' || attempt >= args.retry.maxAttempts);
  countAttempt(deps.metrics, {
    args,
    kind: channel.kind,
    definition,
    result,
    final,
    started,
    ownDispatch: dispatchId === workflowIdOf(args.signal.id),
  });
  const where = { delivery_id: args.plan.deliveryId, kind: channel.kind, attempt };
  if (result.outcome === 'delivered') {
    deps.log.info('delivered', { ...where, ...(result.statusCode === undefined ? {} : { status: result.statusCode }) });
    const receipt = {
      attempt,
      warnings: boundWarnings(warnings),
      ...(result.statusCode === undefined ? {} : { statusCode: result.statusCode }),
    };
    // The ledger first: it is what keeps a lost workflow task or a retried batch from sending again.
    if (args.ledger) await deps.ledger.record(dispatchId, args.plan.deliveryId, receipt);
    await deps.breaker?.(args.plan, result, true);
    return { receipt };
  }
  // A receiver's pause is neither a success nor a failure to the breaker.
  await deps.breaker?.(args.plan, result, final);
  deps.log.warn('attempt failed', {
    ...where,
    error_type: result.errorType,
    reason: result.reason,
    final: result.outcome === 'fail',
    ...(pausedUntil === undefined ? {} : { paused_until: new Date(pausedUntil).toISOString() }),
  });
  const message = boundText(result.reason);
  const details = { attempt, ...(result.statusCode === undefined ? {} : { statusCode: result.statusCode }) };
  if (result.outcome === 'fail') return { failure: { message, type: result.errorType, details, nonRetryable: true } };
  return {
    failure: {
      message,
      type: result.errorType,
      details: {
        ...details,
        retryDelayMs: delayAfter(attempt, args.retry, result.retryAfterMs),
        ...(pausedUntil === undefined ? {} : { pausedUntil }),
      },
      nonRetryable: false,
    },
  };
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
  throw ApplicationFailure.create({
    message,
    type,
    details: [details],
    nonRetryable,
    ...(nonRetryable ? {} : { nextRetryDelay: details.retryDelayMs }),
  });
};
