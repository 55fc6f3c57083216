import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** What a destination's pace records, by destination key (`webhook:<name>`, `broker:<name>`: from the config, never a request). */
export interface PaceMetrics {
  /** Deliveries waiting for the destination, as this process last saw its pace. */
  backlog(destination: string, waiting: number): void;
  /** How long an attempt waits for its slot or place. */
  waited(destination: string, seconds: number): void;
  /** A paced attempt ended (its rate is the destination's pace). */
  attempted(destination: string): void;
}

/** Seconds: none, a slot's interval, up to a backlog of hours. */
const WAIT_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600, 21600];

export const createPaceMetrics = (registry: Registry, prefix: string): PaceMetrics => {
  const registers = [registry];
  const backlog = new Gauge({
    name: `${prefix}destination_backlog`,
    help: "Deliveries waiting for their destination's limit (as the process last saw it)",
    labelNames: ['destination'],
    aggregator: 'max',
    registers,
  });
  const wait = new Histogram({
    name: `${prefix}destination_wait_seconds`,
    help: "How long an attempt waited for its destination's limit",
    labelNames: ['destination'],
    buckets: WAIT_BUCKETS,
    registers,
  });
  const attempts = new Counter({
    name: `${prefix}destination_paced_attempts_total`,
    help: 'Attempts sent to a destination with a limit (its rate is the pace)',
    labelNames: ['destination'],
    registers,
  });
  return {
    backlog: (destination, waiting) => backlog.set({ destination }, waiting),
    waited: (destination, seconds) => wait.observe({ destination }, Math.max(0, seconds)),
    attempted: (destination) => attempts.inc({ destination }),
  };
};

export const noPaceMetrics: PaceMetrics = { backlog: () => undefined, waited: () => undefined, attempted: () => undefined };
