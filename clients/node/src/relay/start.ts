import { uuidv7 } from '../ids/uuidv7.ts';
import { listenForCommits } from './listen.ts';
import { outboxLag, type OutboxLag } from './lag.ts';
import { type RelayOptions, settingsOf } from './options.ts';
import { runPass } from './pass.ts';

export interface Relay {
  /** Stops after the pass under way (its requests are bounded by `timeoutMs`); resolves once stopped. */
  stop(): Promise<void>;
  /** How far behind the outbox is: rows waiting, the oldest one's age, rows set aside. */
  lag(): Promise<OutboxLag>;
  /** This relay's lease owner, as `lease_owner` shows it in the table. */
  readonly id: string;
}

/** Back-off while the service is away: 0.5 s doubling to `maxBackoffMs`, with jitter; a Retry-After is waited at least (up to 10 minutes). */
const FIRST_BACKOFF_MS = 500;
const MAX_RETRY_AFTER_MS = 600_000;

/**
 * Sends the outbox's rows to the service until stopped: a pass as soon as a commit wrote rows
 * (LISTEN/NOTIFY), else every `pollIntervalMs`. Several relays may run at once, on one database:
 * rows are leased, one instance's rows are sent in order by one relay at a time, and a row sent
 * twice (a relay killed after the request) is one dispatch, its signal id being the same.
 */
export const startRelay = (options: RelayOptions): Relay => {
  const s = settingsOf(options);
  const id = uuidv7();
  let stopped = false;
  let woken = false;
  let wakeUp: (() => void) | undefined;
  const wake = () => {
    woken = true;
    wakeUp?.();
  };
  /** Waits `ms`, or less when `wakeable` and a commit (or stop) comes first. */
  const sleep = (ms: number, wakeable: boolean) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      wakeUp = () => (wakeable || stopped ? done() : undefined);
    });

  const listener = listenForCommits(s.pool, wake, s.log);
  const loop = async () => {
    let backoff = FIRST_BACKOFF_MS;
    while (!stopped) {
      woken = false;
      let wait: number | undefined;
      try {
        const outcome = await runPass(s, id);
        if (outcome.sent || outcome.setAside) s.log({ level: 'info', message: 'sent', sent: outcome.sent, set_aside: outcome.setAside });
        if (outcome.unavailable) {
          const jittered = backoff / 2 + (Math.random() * backoff) / 2;
          wait = Math.max(jittered, Math.min(outcome.unavailable.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
          s.log({
            level: 'warn',
            message: 'the service could not take signals; trying again later',
            reason: outcome.unavailable.reason,
            wait_ms: Math.round(wait),
          });
          backoff = Math.min(backoff * 2, s.maxBackoffMs);
          await sleep(wait, false);
          continue;
        }
        backoff = FIRST_BACKOFF_MS;
        if (outcome.claimed > 0) continue;
      } catch (e) {
        // The database away, a statement refused: back off as from the service.
        wait = backoff / 2 + (Math.random() * backoff) / 2;
        s.log({
          level: 'error',
          message: 'a relay pass failed; trying again later',
          error: e instanceof Error ? e.message : String(e),
          wait_ms: Math.round(wait),
        });
        backoff = Math.min(backoff * 2, s.maxBackoffMs);
        await sleep(wait, false);
        continue;
      }
      if (!woken) await sleep(s.pollIntervalMs, true);
    }
  };
  const done = loop().finally(() => listener.close());
  return {
    id,
    stop: async () => {
      stopped = true;
      wakeUp?.();
      await done;
    },
    lag: () => outboxLag(s.pool),
  };
};
