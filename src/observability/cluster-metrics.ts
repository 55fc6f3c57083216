import cluster from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import { Metrics } from './metrics';

const ASK = 'action-triggers:metrics?';
const ANSWER = 'action-triggers:metrics';
const TIMEOUT_MS = 10_000;

interface Ask {
  type: typeof ASK;
  id: number;
}
interface Answer {
  type: typeof ANSWER;
  id: number;
  body?: string;
  error?: string;
}

/**
 * The cluster primary of `API_PROCESSES>1` serves no HTTP: a process that is asked for
 * `/metrics` asks the primary, which collects every process's registry (prom-client's
 * AggregatorRegistry: counters and histograms summed, lag gauges the maximum) and answers.
 */
export const answerClusterMetrics = () => {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: Ask) => {
    if (message?.type !== ASK) return;
    aggregator.clusterMetrics().then(
      (body) => worker.send({ type: ANSWER, id: message.id, body } satisfies Answer),
      (e: unknown) => worker.send({ type: ANSWER, id: message.id, error: String(e) } satisfies Answer),
    );
  });
};

/**
 * In an API process of a cluster: this process's metrics, with the page of the whole cluster.
 * A primary that does not answer within `timeoutMs`, or is gone, fails the page (the route's 503).
 */
export const clusterMetricsOf = (metrics: Metrics, timeoutMs = TIMEOUT_MS): Metrics => {
  // Answers the primary's collection requests with this registry (AggregatorRegistry adds the listener).
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([metrics.registry]);
  const waiting = new Map<number, { resolve: (body: string) => void; reject: (e: Error) => void }>();
  let next = 0;
  process.on('message', (message: Answer) => {
    if (message?.type !== ANSWER) return;
    const w = waiting.get(message.id);
    waiting.delete(message.id);
    if (message.error !== undefined) w?.reject(new Error(message.error));
    else w?.resolve(message.body ?? '');
  });
  const ask = () =>
    new Promise<string>((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error('the cluster primary did not answer'));
      }, timeoutMs);
      const settle = {
        resolve: (b: string) => {
          clearTimeout(timer);
          resolve(b);
        },
        reject: (e: Error) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      waiting.set(id, settle);
      // With a callback, a closed channel (the primary gone) fails this page; without one, Node
      // emits it as the process's 'error' event, which nothing handles: the API process crashed.
      process.send!({ type: ASK, id } satisfies Ask, (e: Error | null) => {
        if (!e) return;
        waiting.delete(id);
        settle.reject(new Error(`the cluster primary is gone (${e.message})`));
      });
    });
  return { ...metrics, render: async () => ({ contentType: metrics.registry.contentType, body: await ask() }) };
};
