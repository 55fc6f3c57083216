import { Client, Connection } from '@temporalio/client';
import { silentLogger } from '../src/kernel/logger';
import { installSdkLogging } from '../src/worker';
import { countActions, meanActions } from '../src/temporal/history-actions';
import { Receiver } from '../test/support/receiver';
import { startBenchStack } from './server';
import { threadCpu, threadRows } from './thread-cpu';

const SIGNALS = Number(process.env.BENCH_SIGNALS ?? 2000);
const INSTANCES = Number(process.env.BENCH_INSTANCES ?? 20);
/** BENCH_THREADS=1: also the service's CPU per signal by thread, for each comparison. */
const SHOW_THREADS = process.env.BENCH_THREADS !== undefined;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

type Post = (path: string, body: unknown) => Promise<Response>;
type Outcome = Awaited<ReturnType<typeof measure>>;

/** All at once (requests of 100), or one signal per request at a rate the service keeps up with. */
interface Load {
  count: number;
  perRequest: number;
  perS?: number;
}
const BURST: Load = { count: SIGNALS, perRequest: 100 };
const PACED: Load = {
  count: Number(process.env.BENCH_PACED_SIGNALS ?? 300),
  perRequest: 1,
  perS: Number(process.env.BENCH_PACED_RATE ?? 10),
};
/** Paced rounds, each beside an unordered trigger then beside a per_instance one: the spread of the first is this machine's noise. */
const PACED_ROUNDS = Number(process.env.BENCH_PACED_ROUNDS ?? 3);

/** Sends signals of `model` round-robin over INSTANCES instances, each stamped with its send time; waits for every delivery to `path`. */
const run = async (post: Post, rx: Receiver, model: string, path = `/${model}`, load = BURST) => {
  const started = Date.now();
  const ids: string[] = [];
  const total = load.count;
  for (let i = 0; i < total; i += load.perRequest) {
    if (load.perS) await sleep(Math.max(0, started + (i * 1000) / load.perS - Date.now()));
    const batch = Array.from({ length: Math.min(load.perRequest, total - i) }, (_, j) => ({
      signal: 'post_save',
      app_label: 'bench',
      model_name: model,
      instance: { id: `i${(i + j) % INSTANCES}`, n: i + j, sent: Date.now() },
    }));
    const res = await post('/api/signals', batch);
    if (res.status !== 202) throw new Error(`signals refused: ${res.status} ${await res.text()}`);
    ids.push(...((await res.json()) as Array<{ id: string }>).map((a) => a.id));
  }
  return { ...(await measure(rx, path, total, started)), ids };
};

/** Waits for `total` distinct deliveries to `path`, then their latency, rate and order. */
const measure = async (rx: Receiver, path: string, total: number, started: number) => {
  const mine = () => rx.received.filter((r) => r.path === path);
  while (new Set(mine().map((r) => r.headers['webhook-id'])).size < total) {
    if (Date.now() - started > 20 * 60_000) throw new Error(`${path}: ${mine().length} of ${total} after 20 minutes`);
    await sleep(200);
  }
  const received = mine();
  const latencies = received.map((r) => r.at - (JSON.parse(r.body) as { sent: number }).sent).sort((a, b) => a - b);
  // In order: each instance's deliveries arrive with n increasing.
  const lastN = new Map<string, number>();
  let outOfOrder = 0;
  for (const r of received) {
    const { key, n } = JSON.parse(r.body) as { key: string; n: number };
    if ((lastN.get(key) ?? -1) > n) outOfOrder++;
    lastN.set(key, n);
  }
  const seconds = (Math.max(...received.map((r) => r.at)) - started) / 1000;
  return {
    perS: total / seconds,
    p50: pct(latencies, 50),
    p90: pct(latencies, 90),
    p99: pct(latencies, 99),
    duplicates: received.length - total,
    outOfOrder,
  };
};

/** Temporal actions per delivery: the mean over the dispatches' histories (turns are kept in our store, not in a workflow of their own). */
const actionsPerDelivery = async (address: string, dispatchIds: string[]) => {
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection });
    const dispatches = await Promise.all(
      dispatchIds.map(async (id) => countActions((await client.workflow.getHandle(`signal-${id}`).fetchHistory()).events ?? [])),
    );
    return meanActions(dispatches);
  } finally {
    await connection.close();
  }
};

/**
 * `npm run bench -- ordering`: SIGNALS signals over INSTANCES instances to a trigger with
 * `ordering: per_instance`, then the same to one with `none`, then to an unordered trigger beside a
 * second trigger, unordered then `per_instance` (paced below what ordered delivery keeps up with,
 * then all at once), in one run (service = API + worker,
 * loopback receiver answering at once). Reports deliveries/s, accept→receipt p50/p99, out-of-order
 * arrivals, duplicates, and the Temporal actions per ordered and per unordered delivery.
 */
export const benchOrdering = async () => {
  installSdkLogging(silentLogger, 'error');
  const { temporal, rx, service, stop } = await startBenchStack('ordering');
  const post: Post = (path, body) =>
    fetch(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const trigger = async (model: string, ordering: string, path = `/${model}`) =>
    (
      (await (
        await post('/api/action-triggers', {
          config_signals: [{ signal: 'post_save' }],
          content_types: [{ app_label: 'bench', model_name: model }],
          active: true,
          ordering,
          webhooks: [{ url: rx.url(path), http_method: 'POST' }],
          payload: { key: '{{ instance.id }}', n: '{{ instance.n }}', sent: '{{ instance.sent }}' },
        })
      ).json()) as { id: string }
    ).id;
  try {
    await trigger('ordered', 'per_instance');
    await trigger('unordered', 'none');
    const ordered = await run(post, rx, 'ordered');
    const unordered = await run(post, rx, 'unordered');
    // Signals that match two triggers: an unordered one's deliveries beside another unordered one, then beside an ordered one.
    // CPU ms per signal of Temporal's server and of the service, while the signals and both triggers' deliveries ran.
    const cpu = () => [temporal.pid!, service.child.pid!].map((pid) => [...threadCpu(pid).values()].reduce((sum, t) => sum + t.seconds, 0));
    const perSignal = (before: number[], count: number) => cpu().map((c, i) => ((c - before[i]!) * 1000) / count);
    const beside = async (load: Load, name: string) => {
      await trigger(`${name}-pair`, 'none', `/${name}-pair`);
      await trigger(`${name}-pair`, 'none', `/${name}-pair-other`);
      const pairAt = Date.now();
      const cpuPair = cpu();
      const threadsPair = SHOW_THREADS ? threadCpu(service.child.pid!) : undefined;
      const none = await run(post, rx, `${name}-pair`, `/${name}-pair`, load);
      await measure(rx, `/${name}-pair-other`, load.count, pairAt);
      const pairCpu = perSignal(cpuPair, load.count);
      const pairThreads = threadsPair && threadRows(service.child.pid!, threadsPair, threadCpu(service.child.pid!), load.count);
      await trigger(`${name}-mixed`, 'none', `/${name}-mixed`);
      await trigger(`${name}-mixed`, 'per_instance', `/${name}-mixed-ordered`);
      const mixedAt = Date.now();
      const cpuMixed = cpu();
      const threadsMixed = SHOW_THREADS ? threadCpu(service.child.pid!) : undefined;
      const ordered = await run(post, rx, `${name}-mixed`, `/${name}-mixed`, load);
      // Its ordered partner's own figures; the next measure starts on a quiet service.
      const orderedPartner = await measure(rx, `/${name}-mixed-ordered`, load.count, mixedAt);
      const mixedCpu = perSignal(cpuMixed, load.count);
      if (pairThreads && threadsMixed) {
        const mixedThreads = threadRows(service.child.pid!, threadsMixed, threadCpu(service.child.pid!), load.count);
        const msOf = (rows: typeof pairThreads, label: string) => (rows.find((r) => r.label === label)?.ms ?? 0).toFixed(1);
        const labels = [...new Set([...pairThreads, ...mixedThreads].map((r) => r.label))];
        console.log(
          `${name}: service CPU ms per signal by thread, beside an unordered trigger → beside a per_instance one: ${labels
            .map((label) => `${label} ${msOf(pairThreads, label)} → ${msOf(mixedThreads, label)}`)
            .join('; ')}`,
        );
      }
      return { none, ordered, orderedPartner, cpu: { pair: pairCpu, mixed: mixedCpu } };
    };
    const pacedRounds: Array<Awaited<ReturnType<typeof beside>>> = [];
    for (let r = 1; r <= PACED_ROUNDS; r++) pacedRounds.push(await beside(PACED, `paced${r}`));
    const burst = await beside(BURST, 'burst');
    const sample = (ids: string[]) => ids.filter((_, i) => i % Math.max(1, Math.floor(SIGNALS / 20)) === 0);
    const actions = await actionsPerDelivery(temporal.address, sample(ordered.ids));
    const unorderedActions = await actionsPerDelivery(temporal.address, sample(unordered.ids));

    console.log(
      `\nOrdering benchmark (${SIGNALS} signals over ${INSTANCES} instances, one webhook each, receiver answering at once; service = API + worker)\n`,
    );
    console.log('| measure | ordering: per_instance | ordering: none |\n|---|---:|---:|');
    console.log(`| deliveries/s | ${ordered.perS.toFixed(0)} | ${unordered.perS.toFixed(0)} |`);
    console.log(`| accept → receipt p50 ms | ${ordered.p50} | ${unordered.p50} |`);
    console.log(`| accept → receipt p99 ms | ${ordered.p99} | ${unordered.p99} |`);
    console.log(`| arrivals out of instance order | ${ordered.outOfOrder} | ${unordered.outOfOrder} |`);
    console.log(`| duplicates | ${ordered.duplicates} | ${unordered.duplicates} |`);
    console.log("\nAn unordered trigger's deliveries when its signals also match a second trigger:\n");
    console.log(`| measure | beside an unordered trigger | beside a per_instance trigger |\n|---|---:|---:|`);
    const row = (label: string, pair: { none: Outcome; ordered: Outcome }, f: (r: Outcome) => string) =>
      console.log(`| ${label} | ${f(pair.none)} | ${f(pair.ordered)} |`);
    const latency = (r: Outcome) => `${r.p50} / ${r.p90} / ${r.p99}`;
    pacedRounds.forEach((pair, i) => row(`${PACED.count} at ${PACED.perS}/s, round ${i + 1}: p50 / p90 / p99 ms`, pair, latency));
    row(`${SIGNALS} at once: deliveries/s`, burst, (r) => r.perS.toFixed(0));
    row(`${SIGNALS} at once: p50 / p90 / p99 ms`, burst, latency);
    console.log(
      `\nThe per_instance partner's own deliveries (p50 / p90 / p99 ms): ${pacedRounds.map((p, i) => `paced round ${i + 1} ${latency(p.orderedPartner)}`).join('; ')}; ` +
        `at once ${latency(burst.orderedPartner)}, ${burst.orderedPartner.perS.toFixed(0)}/s, ${burst.orderedPartner.outOfOrder} out of order`,
    );
    const cpuOf = (c: number[]) => `Temporal ${c[0]!.toFixed(1)} + service ${c[1]!.toFixed(1)}`;
    console.log(
      `CPU ms per signal (two deliveries each), beside an unordered trigger → beside a per_instance one: ${[
        ...pacedRounds.map((p, i) => [`paced round ${i + 1}`, p] as const),
        ['at once', burst] as const,
      ]
        .map(([label, p]) => `${label} ${cpuOf(p.cpu.pair)} → ${cpuOf(p.cpu.mixed)}`)
        .join('; ')}`,
    );
    const kinds = (a: typeof actions) =>
      `${a.workflowTasks.toFixed(2)} workflow tasks, ${a.localActivities.toFixed(2)} local activities, ${a.activities.toFixed(2)} activities, ` +
      `${a.signals.toFixed(2)} signals, ${a.timers.toFixed(2)} timers`;
    console.log(
      `\nTemporal actions per ordered delivery: ${actions.total.toFixed(2)} (${kinds(actions)}); ` +
        `per unordered delivery: ${unorderedActions.total.toFixed(2)} (${kinds(unorderedActions)})`,
    );
  } finally {
    await stop();
  }
};
