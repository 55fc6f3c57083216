import { ActionCounts } from '../src/temporal/history-actions';
import { pacedWindow } from './paced';
import { paceStoreMemory } from './pace-store-memory';
import { jsonPoster } from './post';
import { rssMb, startBenchStack } from './server';
import { median } from './stats';
import { actionsOfWorkflows, cpuSeconds } from './temporal-costs';

const RATE = Number(process.env.BENCH_RATE ?? 50);
const PACED_S = Number(process.env.BENCH_PACED_S ?? 20);
const WARM_S = Number(process.env.BENCH_WARM_S ?? 10);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
/** Reservations, and queued waiters, in the pace store alone. */
const WAITING = Number(process.env.BENCH_WAITING ?? 100_000);
/** Attempts that end while the queue is that deep, each giving its place to the next waiter. */
const DRAIN = Number(process.env.BENCH_DRAIN ?? 10_000);
/** Signals to a destination limited to 1/s through the whole service. */
const WAITING_FULL = Number(process.env.BENCH_WAITING_FULL ?? 5000);
/** How long CPU is measured with the service idle, then with every delivery waiting. */
const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 10);
/** Histories read per variant for the Temporal actions per delivery. */
const HISTORIES = Number(process.env.BENCH_HISTORIES ?? 20);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The three ways the one webhook is sent: under a rate that never delays, under no limit, under an in-flight cap. */
const VARIANTS = [
  { name: 'rate', label: 'max_per_second 1000', limit: { max_per_second: 1000, burst: 100 } },
  { name: 'free', label: 'no limit' },
  { name: 'inflight', label: 'max_in_flight 100', limit: { max_in_flight: 100 } },
] as const;
type VariantName = (typeof VARIANTS)[number]['name'];
/** The destination of part 2: limited to one attempt a second, so every delivery but the first waits. */
const SLOW = { name: 'slow', limit: { max_per_second: 1 } };
const pathOf = (name: string) => `/${name}/hook`;

/** CPU seconds of the service and the Temporal server over `seconds`, as % of one core. */
const cpuPercent = async (pids: { service: number; temporal: number }, seconds: number) => {
  const s0 = cpuSeconds(pids.service);
  const t0 = cpuSeconds(pids.temporal);
  await sleep(seconds * 1000);
  return { service: ((cpuSeconds(pids.service) - s0) * 100) / seconds, temporal: ((cpuSeconds(pids.temporal) - t0) * 100) / seconds };
};

const f1 = (n: number) => n.toFixed(1);
const f2 = (n: number) => n.toFixed(2);

/**
 * `npm run bench -- pacing`: what `webhook_limits` costs. (1) The service's CPU per delivery of
 * one one-webhook trigger at `BENCH_RATE`/s, its URL under a rate limit that never delays (the
 * limiter's bookkeeping alone), under no limit, and under `max_in_flight: 100` (a place taken and
 * given back every attempt), in alternating rounds of one run; with the Temporal actions per
 * delivery of each from their histories. (2) Memory with deliveries waiting: the pace store alone
 * with `BENCH_WAITING` reservations and as many queued waiters (this process, SQLite), then the
 * whole service with `BENCH_WAITING_FULL` deliveries to a destination limited to 1/s.
 */
export const benchPacing = async () => {
  // The store alone first, in this process while it holds nothing else.
  const storeRun = await paceStoreMemory(WAITING, DRAIN);
  const out = (s = '') => console.log(s);
  out(
    `\nThe pace store alone (SQLite event store, this process), one operation after another: ${WAITING} reservations, ${WAITING} places asked for, then ${Math.min(DRAIN, WAITING)} attempts ended\n`,
  );
  out(
    '| phase | ms per operation | stream events on disk after its cuts | stream KB (data + metadata) | events file + WAL MB | RSS MB | heap used MB |',
  );
  out('|---|---:|---:|---:|---:|---:|---:|');
  out(`| before | | | | | ${f1(storeRun.before.rssMb)} | ${f1(storeRun.before.heapMb)} |`);
  for (const p of storeRun.phases)
    out(`| ${p.what} | ${p.msPerOp.toFixed(3)} | ${p.events} | ${f1(p.kb)} | ${f1(p.fileMb)} | ${f1(p.rssMb)} | ${f1(p.heapMb)} |`);
  out(
    `\nThe last slot reserved falls ${f1(storeRun.aheadS)} s ahead; ${storeRun.queued} deliveries queued, ${storeRun.told} told their place while the queue drained.`,
  );

  const stack = await startBenchStack('pacing', 'all', (rx) => ({
    webhook_limits: [...VARIANTS, SLOW].flatMap((v) =>
      'limit' in v ? [{ name: `bench-${v.name}`, url_prefix: rx.url(`/${v.name}/`), ...v.limit }] : [],
    ),
  }));
  const { temporal, rx, service } = stack;
  const pids = { service: service.child.pid!, temporal: temporal.pid! };
  const poster = jsonPoster(service.url);
  const api = poster.post;
  try {
    for (const v of [...VARIANTS, SLOW]) {
      const res = await api('/api/action-triggers', {
        config_signals: [{ signal: 'post_save' }],
        content_types: [{ app_label: 'bench', model_name: `pacing_${v.name}` }],
        active: true,
        webhooks: [{ url: rx.url(pathOf(v.name)), http_method: 'POST' }],
      });
      if (res.status !== 201) throw new Error(`trigger ${v.name}: ${res.status} ${JSON.stringify(await res.json())}`);
    }

    // (1) CPU per delivery, the variants in turn, the order reversed every other round.
    const windows = Object.fromEntries(
      VARIANTS.map((v) => [
        v.name,
        pacedWindow({
          api,
          rx,
          temporalPid: pids.temporal,
          servicePid: pids.service,
          model: `pacing_${v.name}`,
          path: pathOf(v.name),
          rate: RATE,
        }),
      ]),
    ) as Record<VariantName, ReturnType<typeof pacedWindow>>;
    for (const v of VARIANTS) await windows[v.name](WARM_S, `warm-${v.name}`);
    const load = (await import('node:os')).loadavg()[0]!;
    type Window = Awaited<ReturnType<ReturnType<typeof pacedWindow>>>;
    const rounds: Array<Record<VariantName, Window>> = [];
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? VARIANTS : [...VARIANTS].reverse();
      const round = {} as Record<VariantName, Window>;
      for (const v of order) round[v.name] = await windows[v.name](PACED_S, `r${r}-${v.name}`);
      rounds.push(round);
      console.log(`pacing: round ${r + 1} of ${ROUNDS} measured`);
    }
    const actions = {} as Record<VariantName, ActionCounts>;
    for (const v of VARIANTS) {
      const delivered = rounds.at(-1)![v.name].delivered;
      const every = Math.max(1, Math.floor(delivered.length / HISTORIES));
      const ids = delivered.filter((_, i) => i % every === 0).slice(0, HISTORIES);
      actions[v.name] = (
        await actionsOfWorkflows(
          temporal.address,
          ids.map((d) => `signal-${d.id}`),
        )
      ).mean;
    }

    out(
      `\nPacing: CPU per delivery with a limit and without, one one-webhook trigger at ${RATE} signals/s, ${ROUNDS} alternating rounds of ${PACED_S} s per variant after ${WARM_S} s of warm-up each (load average ${f1(load)} at start)\n`,
    );
    out(
      '| round | service CPU ms per delivery: max_per_second 1000 / no limit / max_in_flight 100 | ratio rate ÷ none | ratio in-flight ÷ none | Temporal CPU ms per delivery (same order) | accept→receipt p50 / p99 ms (same order) | received / sent (same order) |',
    );
    out('|---:|---:|---:|---:|---:|---:|---:|');
    const three = (round: Record<VariantName, Window>, f: (w: Window) => string) => VARIANTS.map((v) => f(round[v.name])).join(' · ');
    rounds.forEach((round, i) =>
      out(
        `| ${i + 1} | ${three(round, (w) => f2(w.cpu.service))} | ${f2(round.rate.cpu.service / round.free.cpu.service)} | ${f2(round.inflight.cpu.service / round.free.cpu.service)} | ${three(round, (w) => f2(w.cpu.temporal))} | ${three(round, (w) => `${w.p50} / ${w.p99}`)} | ${three(round, (w) => `${w.received} / ${w.sent}`)} |`,
      ),
    );
    const med = (f: (round: Record<VariantName, Window>) => number) => median(rounds.map(f));
    out(
      `| median | ${VARIANTS.map((v) => f2(med((r) => r[v.name].cpu.service))).join(' · ')} | ${f2(med((r) => r.rate.cpu.service / r.free.cpu.service))} | ${f2(med((r) => r.inflight.cpu.service / r.free.cpu.service))} | ${VARIANTS.map((v) => f2(med((r) => r[v.name].cpu.temporal))).join(' · ')} | ${VARIANTS.map((v) => `${med((r) => r[v.name].p50)} / ${med((r) => r[v.name].p99)}`).join(' · ')} | |`,
    );
    const kinds: Array<[keyof ActionCounts, string]> = [
      ['workflowTasks', 'workflow tasks'],
      ['localActivities', 'local activities'],
      ['activities', 'activity attempts'],
      ['timers', 'timers'],
      ['signals', 'signals received'],
      ['total', 'total actions'],
    ];
    out(`\nTemporal actions per delivery, from ${HISTORIES} histories of each variant's last window\n`);
    out(`| kind | ${VARIANTS.map((v) => v.label).join(' | ')} |\n|---|${VARIANTS.map(() => '---:').join('|')}|`);
    for (const [k, label] of kinds) out(`| ${label} | ${VARIANTS.map((v) => f2(actions[v.name][k])).join(' | ')} |`);

    // (2ii) The whole service with WAITING_FULL deliveries waiting for a 1/s destination.
    await sleep(3000);
    const idleRss = { service: rssMb(pids.service), temporal: rssMb(pids.temporal) };
    const idleCpu = await cpuPercent(pids, IDLE_S);
    const sentAt = Date.now();
    for (let i = 0; i < WAITING_FULL; i += 100) {
      const batch = Array.from({ length: Math.min(100, WAITING_FULL - i) }, (_, j) => ({
        signal: 'post_save',
        app_label: 'bench',
        model_name: 'pacing_slow',
        instance: { id: `slow-${i + j}` },
      }));
      const res = await api('/api/signals', batch);
      if (res.status !== 202) throw new Error(`signals refused: ${res.status} ${JSON.stringify(await res.json())}`);
    }
    const acceptedS = (Date.now() - sentAt) / 1000;
    // Waiting: every delivery not yet sent has reserved its slot (the backlog counts those beyond the burst of 1).
    const backlog = async () => {
      const { limits } = (await (await fetch(`${service.url}/api/destinations/limits`)).json()) as {
        limits: Array<{ name: string; backlog: number }>;
      };
      const slow = limits.find((l) => l.name === `webhook:bench-${SLOW.name}`);
      if (!slow) throw new Error(`pacing: GET /api/destinations/limits lists no webhook:bench-${SLOW.name}`);
      return slow.backlog;
    };
    let waiting = 0;
    for (;;) {
      waiting = await backlog();
      if (waiting + rx.count(pathOf(SLOW.name)) >= WAITING_FULL - 1) break;
      // A loaded machine may not start them all in time: what was measured is still printed, saying so.
      if (Date.now() - sentAt > 10 * 60_000) break;
      await sleep(500);
    }
    const allWaitingS = (Date.now() - sentAt) / 1000;
    await sleep(5000); // the workflow tasks that set the timers complete
    const waitRss = { service: rssMb(pids.service), temporal: rssMb(pids.temporal) };
    const waitCpu = await cpuPercent(pids, IDLE_S);
    const waitingAfter = await backlog();

    out(
      `\nThe whole service with ${WAITING_FULL} deliveries waiting for a destination limited to 1/s (service = API + worker, one process)\n`,
    );
    out('| measure | idle, before | all waiting |\n|---|---:|---:|');
    out(`| service RSS MB | ${f1(idleRss.service)} | ${f1(waitRss.service)} |`);
    out(`| Temporal server RSS MB | ${f1(idleRss.temporal)} | ${f1(waitRss.temporal)} |`);
    out(`| service CPU % of a core over ${IDLE_S} s | ${f1(idleCpu.service)} | ${f1(waitCpu.service)} |`);
    out(`| Temporal server CPU % of a core over ${IDLE_S} s | ${f1(idleCpu.temporal)} | ${f1(waitCpu.temporal)} |`);
    out(
      `\n${WAITING_FULL} signals accepted in ${f1(acceptedS)} s; ${waiting + rx.count(pathOf(SLOW.name)) >= WAITING_FULL - 1 ? 'all' : `only ${waiting}`} waiting ${f1(allWaitingS)} s after the first was sent; backlog ${waitingAfter} after the CPU window (one delivery a second goes on while they wait).`,
    );
  } finally {
    await poster.close();
    await stack.stop();
  }
};
