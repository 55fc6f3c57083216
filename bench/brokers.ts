import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnections } from '../src/destinations/broker-kit/connections';
import { publisherFor } from '../src/destinations/brokers/registry';
import { silentLogger } from '../src/kernel/logger';
import { bundleWorkflows, installSdkLogging } from '../src/worker';
import { BENCH_BROKERS, Destination } from './broker-destinations';
import { floor } from './dispatch';
import { Running, startBenchTemporal, startService } from './server';
import { pct } from './stats';

const SUSTAIN_S = Number(process.env.BENCH_SUSTAIN_S ?? 30);
const RAW_S = Number(process.env.BENCH_RAW_S ?? 10);
const PACED_S = Number(process.env.BENCH_PACED_S ?? 10);
const RATE = Number(process.env.BENCH_RATE ?? 50);
const TYPES = (process.env.BENCH_BROKERS ?? Object.keys(BENCH_BROKERS).join(',')).split(',');
const EMITTERS = 50;
/** As in the dispatch bench: emitters stay at most this many signals ahead of what arrived. */
const AHEAD = 200;
/** Untimed, before the timed phases: a first connection and the broker's JIT stay out of the figures. */
const WARM_SIGNALS = 50;
const WARM_S = 2;
const BODY = JSON.stringify({ order: 42, note: 'bench' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Row {
  type: string;
  clock: string;
  service: number;
  consumed: number;
  accepted: number;
  raw: number;
  latencies: number[];
  paced: number;
}

/** The raw client: the publisher port with its shared connections, no service, 50 in flight; publishes/s after WARM_S untimed. */
const rawPublishes = async (broker: Destination['broker'], seconds: number) => {
  const publisher = publisherFor(broker.broker_type)!;
  const settings = publisher.settings(broker.conn_details, broker.params);
  if (!settings.ok) throw new Error(JSON.stringify(settings.errors));
  const connections = createConnections();
  const run = async (tag: string, ms: number) => {
    const [start, end] = [Date.now(), Date.now() + ms];
    let published = 0;
    await Promise.all(
      Array.from({ length: EMITTERS }, async (_, lane) => {
        for (let i = 0; Date.now() < end; i++) {
          await connections.publish(
            publisher,
            settings.value,
            { body: BODY, contentType: 'application/json', deliveryId: `${tag}-${lane}-${i}` },
            10_000,
          );
          published++;
        }
      }),
    );
    return published / ((Date.now() - start) / 1000);
  };
  try {
    await run('warm', WARM_S * 1000);
    return await run('raw', seconds * 1000);
  } finally {
    await connections.close();
  }
};

/** One type on its own server: raw client, then the service sustained, then paced. */
const measure = async (type: string, temporalAddress: string, bundlePath: string, dir: string): Promise<Row> => {
  const { clock, start } = BENCH_BROKERS[type]!;
  const laps: string[] = [];
  let last = Date.now();
  const lap = (what: string) => {
    laps.push(`${what} ${((Date.now() - last) / 1000).toFixed(0)} s`);
    last = Date.now();
  };
  const broker = await start(join(dir, type));
  lap('server');
  const destinations: Destination[] = [];
  let service: Running | undefined;
  try {
    const [sustained, raw, paced] = await Promise.all([broker.destination(), broker.destination(), broker.destination()]);
    destinations.push(sustained!, raw!, paced!);
    const configFile = join(dir, `${type}.json`);
    writeFileSync(configFile, JSON.stringify({ brokers: { sustained: sustained!.broker, paced: paced!.broker } }));
    service = await startService({
      DATA_DIR: join(dir, `data-${type}`),
      TEMPORAL_ADDRESS: temporalAddress,
      ACTION_TRIGGERS_CONFIG: configFile,
      WORKFLOW_BUNDLE_PATH: bundlePath,
    });
    const url = service.url;
    lap('service');
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json().catch(() => ({}))) as { id?: string } };
    };
    const signal = (model: string, id: number) =>
      post('/api/signals', { signal: 'post_save', app_label: 'bench', model_name: model, instance: { id } });
    for (const [model, name] of [
      ['sustained', 'sustained'],
      ['paced', 'paced'],
    ]) {
      await post('/api/action-triggers', {
        config_signals: [{ signal: 'post_save' }],
        content_types: [{ app_label: 'bench', model_name: model }],
        active: true,
        msg_broker_queues: [{ name }],
        payload: { order: 42, note: 'bench' },
      });
    }

    const rawRate = await rawPublishes(raw!.broker, RAW_S);
    lap('raw');

    // Through the service: 50 emitters for SUSTAIN_S, at most AHEAD signals ahead of arrivals; counted by arrival time in the window.
    await Promise.all(Array.from({ length: WARM_SIGNALS }, (_, i) => signal('sustained', i)));
    await sustained!.arrivals(WARM_SIGNALS, 60_000);
    let accepted = WARM_SIGNALS;
    let arrived = await sustained!.count();
    let emitting = true;
    const watching = (async () => {
      while (emitting) {
        arrived = await sustained!.count();
        await sleep(200);
      }
    })();
    const [t0, end] = [Date.now(), Date.now() + SUSTAIN_S * 1000];
    await Promise.all(
      Array.from({ length: EMITTERS }, async () => {
        while (Date.now() < end) {
          if (accepted - arrived > AHEAD) {
            await sleep(5);
            continue;
          }
          if ((await signal('sustained', accepted)).status === 202) accepted++;
        }
      }),
    );
    emitting = false;
    await watching;
    lap('sustained');
    const consumed = await sustained!.arrivals(accepted, 120_000);
    lap(`drained (last arrival ${((Math.max(...consumed.values()) - end) / 1000).toFixed(0)} s after the window) and read`);
    // From the window's first arrival to its end: the time the pipeline takes to fill is latency, not throughput.
    const timed = [...consumed.values()].filter((at) => at >= t0 && at <= end);
    const serviceRate = timed.length === 0 ? 0 : timed.length / ((end - Math.min(...timed)) / 1000);

    // Accept → arrival at RATE signals/s.
    const acceptedAt = new Map<string, number>();
    const count = RATE * PACED_S;
    const p0 = Date.now();
    const sends: Promise<void>[] = [];
    for (let i = 0; i < count; i++) {
      const due = p0 + (i * 1000) / RATE;
      if (due > Date.now()) await sleep(due - Date.now());
      sends.push(
        signal('paced', i).then(({ json }) => {
          acceptedAt.set(json.id ?? '', Date.now());
        }),
      );
    }
    await Promise.all(sends);
    lap('paced');
    const arrivals = await paced!.arrivals(count, 60_000);
    lap(`drained (last arrival ${((Math.max(...arrivals.values()) - Date.now()) / 1000).toFixed(0)} s ago) and read`);
    const latencies = [...arrivals.entries()].flatMap(([id, at]) => {
      const acceptance = acceptedAt.get(id.split('.')[0]!);
      return acceptance === undefined ? [] : [at - acceptance];
    });
    return { type, clock, service: serviceRate, consumed: consumed.size, accepted, raw: rawRate, latencies, paced: count };
  } finally {
    await service?.stop();
    await Promise.all(destinations.map((d) => d.close().catch(() => undefined)));
    await broker.stop();
    const failed = (service?.output().match(/"attempt failed"/g) ?? []).length;
    console.error(`brokers: ${type}: ${laps.join(', ')}; ${failed} failed attempts in the service's log`);
  }
};

/**
 * `npm run bench -- brokers`: per broker type, with only that type's server running (and the
 * one Temporal dev server): publishes/s through the service (a trigger with one queue action,
 * 50 emitters for SUSTAIN_S) beside the raw client publishing the same body (the publisher
 * port without the service, 50 in flight, RAW_S), and accept → arrival p50/p99 at RATE
 * signals/s for PACED_S. Arrival is the broker's own timestamp where it has one (see
 * broker-destinations.ts), so no consumer's polling shapes a figure. The floor (empty
 * workflows/s on the same Temporal server) is measured once, first.
 */
export const benchBrokers = async () => {
  installSdkLogging(silentLogger, 'error');
  const dir = mkdtempSync(join(tmpdir(), 'at-bench-brokers-'));
  const temporal = await startBenchTemporal();
  const rows: Row[] = [];
  try {
    const bundlePath = join(dir, 'workflows.js');
    const bundle = await bundleWorkflows();
    writeFileSync(bundlePath, 'code' in bundle ? bundle.code : '');
    const started = Date.now();
    const a = await floor(temporal.address);
    console.error(`brokers: floor ${a.toFixed(0)} workflows/s (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    for (const type of TYPES) {
      if (!BENCH_BROKERS[type]) throw new Error(`unknown broker type ${type}; choose from ${Object.keys(BENCH_BROKERS).join(', ')}`);
      rows.push(await measure(type, temporal.address, bundlePath, dir));
    }
    console.log(
      `\nBroker benchmark (loopback; one broker server at a time, one Temporal dev server; service = API + worker in one process; ` +
        `${SUSTAIN_S} s sustained, raw client ${RAW_S} s, ${RATE}/s paced for ${PACED_S} s; ${((Date.now() - started) / 1000).toFixed(0)} s in all)\n`,
    );
    console.log(`Floor (empty workflows completed/s on the same Temporal server, 50 in flight): ${a.toFixed(0)}\n`);
    console.log(
      `| broker_type | publishes/s through the service (consumed/accepted) | × floor | raw client publishes/s | service / raw | accept→arrival at ${RATE}/s: p50 / p99 ms (max; arrived/sent) |`,
    );
    console.log('|---|---:|---:|---:|---:|---|');
    for (const r of rows) {
      console.log(
        `| ${r.type} | ${r.service.toFixed(0)} (${r.consumed}/${r.accepted}) | ${(r.service / a).toFixed(2)} | ${r.raw.toFixed(0)} | ${(r.service / r.raw).toFixed(3)} ` +
          `| ${pct(r.latencies, 50)} / ${pct(r.latencies, 99)} (${Math.max(...r.latencies)}; ${r.latencies.length}/${r.paced}) |`,
      );
    }
    console.log('\nArrival time per type:');
    for (const r of rows) console.log(`- ${r.type}: ${r.clock}`);
  } finally {
    await temporal.stop();
    rmSync(dir, { recursive: true, force: true });
  }
};
