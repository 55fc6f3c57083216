import { Context } from '@temporalio/activity';
import type { ActionKind, FirstAttempt, FirstAttemptsArgs } from '../dispatch/types';
import { boundText } from '../dispatch/bounds';
import { withLogFields } from '../kernel/log-context';
import type { Slots } from '../kernel/slots';
import { attemptOnce, dispatchIdOf, PipelineDeps } from './attempt';
import type { ActionArgs } from '../dispatch/activities';
import type { Channel } from '../destinations/port/channel';

/** How often a batch reports what it has done while it waits on slow targets (Temporal throttles further). */
const REPORT_EVERY_MS = 1000;

/** The channel of each kind of action. */
export type Channels = Readonly<Record<ActionKind, Channel<unknown>>>;

/** One first attempt, as data: a delivery (recorded in the ledger first) or why not. */
const attemptFirst = async (deps: PipelineDeps, channels: Channels, args: ActionArgs, dispatchId: string): Promise<FirstAttempt> => {
  const { deliveryId } = args.plan;
  try {
    const settled = await attemptOnce(deps, channels[args.plan.kind], { ...args, ledger: true }, 1, dispatchId);
    if ('receipt' in settled) return { deliveryId, receipt: settled.receipt };
    const { message, details, nonRetryable } = settled.failure;
    return { deliveryId, failed: { message, details, retryable: !nonRetryable } };
  } catch (e) {
    // Unexpected (its text masked already): the action goes on to its own retries, as any failure would.
    return {
      deliveryId,
      failed: { message: boundText(e instanceof Error ? e.message : String(e)), details: { attempt: 1 }, retryable: true },
    };
  }
};

/**
 * The first attempts of a batch of a dispatch's actions, in one activity: sent at once (as many
 * as the worker's slots allow), each delivery recorded in the dispatch's ledger as soon as it
 * succeeds, progress reported by heartbeat. A batch retried after its worker died sends only
 * what neither its last heartbeat nor the ledger knows of: the duplicates are at most the
 * sends in flight when it died. Every action gets its outcome; none fails the batch.
 */
export const firstAttempts =
  (deps: PipelineDeps, channels: Channels, slots: Slots) =>
  (args: FirstAttemptsArgs): Promise<FirstAttempt[]> =>
    withLogFields({ signal_id: args.signal.id, ...(args.requestId ? { request_id: args.requestId } : {}) }, async () => {
      const ctx = Context.current();
      const dispatchId = dispatchIdOf(args.signal);
      const done = new Map<string, FirstAttempt>();
      for (const r of (ctx.info.heartbeatDetails as FirstAttempt[] | undefined) ?? []) done.set(r.deliveryId, r);
      if (ctx.info.attempt > 1) {
        for (const [deliveryId, receipt] of await deps.ledger.all(dispatchId)) done.set(deliveryId, { deliveryId, receipt });
      }
      const report = () => ctx.heartbeat([...done.values()]);
      const reporting = setInterval(report, REPORT_EVERY_MS);
      try {
        await Promise.all(
          args.plans
            .filter((p) => !done.has(p.deliveryId))
            .map(async (plan) => {
              const release = await slots.take();
              try {
                // Temporal gave up on this attempt (its worker was thought dead): send nothing more.
                if (ctx.cancellationSignal.aborted) return;
                done.set(
                  plan.deliveryId,
                  await attemptFirst(
                    deps,
                    channels,
                    { plan, signal: args.signal, retry: args.retry, requestId: args.requestId },
                    dispatchId,
                  ),
                );
                report();
              } finally {
                release();
              }
            }),
        );
      } finally {
        clearInterval(reporting);
      }
      if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason;
      return args.plans.map((p) => done.get(p.deliveryId)!);
    });
