import { performance } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Logger } from './logger';

/**
 * After a burst of load, the process goes idle with hundreds of MB of garbage in its heap: V8
 * collects when JavaScript allocates, and an idle process hardly does, so the heap, and the
 * native memory its dead objects still hold (buffers, sockets), stay resident. Measured after a
 * 1,000 × 50 fan-out: 657 MB resident, one full collection later 254 MB (as before the load).
 * So once the process has been quiet for a while after its heap grew, it collects once.
 */
const EVERY_MS = 5000;
/** Event-loop utilisation at or under this is quiet (polling and timers only). */
const QUIET_UTILISATION = 0.05;
/** Quiet samples in a row before collecting: a pause between two bursts is not idleness. */
const QUIET_SAMPLES = 2;
/** Growth of heap + external memory since the last collection worth a full one. */
const GROWTH_BYTES = 64 * 2 ** 20;

export interface Sample {
  utilisation: number;
  heapBytes: number;
}

/** Decides from samples when to collect: quiet long enough after the heap grew enough; once per growth. */
export const idleCollectionPolicy = (baselineBytes: number) => {
  let baseline = baselineBytes;
  let quiet = 0;
  return {
    /** True: collect now. */
    shouldCollect: (s: Sample): boolean => {
      quiet = s.utilisation <= QUIET_UTILISATION ? quiet + 1 : 0;
      return quiet >= QUIET_SAMPLES && s.heapBytes - baseline > GROWTH_BYTES;
    },
    /** The size after a collection: growth is counted from here. */
    collected: (heapBytes: number) => {
      baseline = heapBytes;
      quiet = 0;
    },
  };
};

/** V8's full collection, without the `--expose-gc` flag on every command line; undefined where V8 refuses. */
export const fullCollection = (): (() => void) | undefined => {
  const found = (globalThis as { gc?: unknown }).gc ?? exposed();
  if (typeof found !== 'function') return undefined;
  // `last-resort`: every collection V8 can make, its pooled pages released (a plain one keeps them).
  return () => (found as (o: object) => void)({ type: 'major', execution: 'sync', flavor: 'last-resort' });
};

const exposed = (): unknown => {
  setFlagsFromString('--expose-gc');
  try {
    return runInNewContext('gc') as unknown;
  } finally {
    // Contexts made later (the workflow sandboxes) must not get `gc`.
    setFlagsFromString('--no-expose-gc');
  }
};

const heapBytes = () => {
  const h = getHeapStatistics();
  return h.total_heap_size + h.external_memory;
};

/** Samples every 5 s and collects once when quiet after growth; `stop` ends it (the timer never holds the process). */
export const collectWhenIdle = (log: Logger) => {
  const gc = fullCollection();
  if (!gc) {
    log.warn('V8 refused a full garbage collection: memory freed after a burst may stay resident while idle');
    return { stop: () => undefined };
  }
  const policy = idleCollectionPolicy(heapBytes());
  let last = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const utilisation = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    const before = heapBytes();
    if (!policy.shouldCollect({ utilisation, heapBytes: before })) return;
    gc();
    const after = heapBytes();
    policy.collected(after);
    log.info('idle after load: collected garbage', {
      heap_and_external_mb_before: Math.round(before / 2 ** 20),
      after_mb: Math.round(after / 2 ** 20),
    });
  }, EVERY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
};
