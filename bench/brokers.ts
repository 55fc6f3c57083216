import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnections } from '../activities/publishers/connections';
import { publisherFor } from '../activities/publishers/registry';
import { silentLogger } from '../src/logger';
import { installSdkLogging } from '../src/worker';
import { startBrokers, stopBrokers } from '../test/support/brokers';
import { BROKER_TARGETS, BrokerTarget } from '../test/support/broker-targets';
import { freePorts } from '../test/support/free-port';
import { amqpUrlOf, startRabbit, stopRabbit } from '../test/support/rabbitmq';
import { startBenchTemporal, startService } from './server';

const SUSTAIN_S = Number(process.env.BENCH_SUSTAIN_S ?? 30);
const PACED_S = Number(process.env.BENCH_PACED_S ?? 10);
const RATE = Number(process.env.BENCH_RATE ?? 50);
const TYPES = (process.env.BENCH_BROKERS ?? Object.keys(BROKER_TARGETS).join(',')).split(',');
const BODY = JSON.stringify({ order: 42, note: 'bench' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN; };

/** Reads a target until `want` distinct delivery ids arrived (or the time is up), stamping each first arrival. */
const arrivals = async (target: BrokerTarget, want: number, timeoutMs: number, seen = new Map<string, number>()) => {
  const deadline = Date.now() + timeoutMs;
  while (seen.size < want && Date.now() < deadline) {
    for (const m of await target.read(0, 0)) if (m.deliveryId && !seen.has(m.deliveryId)) seen.set(m.deliveryId, Date.now());
    await sleep(20);
  }
  return seen;
};

/**
 * `npm run bench -- brokers`: per broker type, on private servers (loopback), publishes/s
 * through the service (a trigger with one queue action; 50 emitters for SUSTAIN_S) beside the
 * raw client publishing the same body (the publisher port without the service, 50 in flight,
 * same time), and accept → consume p50/p99 at RATE signals/s for PACED_S.
 */
export const benchBrokers = async () => {
  installSdkLogging(silentLogger, 'error');
  const dir = mkdtempSync(join(tmpdir(), 'at-bench-brokers-'));
  const [port, distPort] = await freePorts(2);
  const rabbitNode = { dir: join(dir, 'rabbitmq'), port: port!, distPort: distPort!, name: `at-bench-${process.pid}@localhost` };
  const [temporal, rabbitPgid, brokers] = await Promise.all([startBenchTemporal(), startRabbit(rabbitNode), startBrokers(join(dir, 'brokers'))]);
  const servers = { ...brokers, rabbitUrl: amqpUrlOf(rabbitNode) };
  const rows: string[] = [];
  try {
    for (const type of TYPES) {
      const [viaService, raw, paced] = await Promise.all([BROKER_TARGETS[type]!(servers), BROKER_TARGETS[type]!(servers), BROKER_TARGETS[type]!(servers)]);
      const configFile = join(dir, `${type}.json`);
      writeFileSync(configFile, JSON.stringify({ brokers: { service: viaService.broker, paced: paced.broker } }));
      const service = await startService({ DATA_DIR: join(dir, `data-${type}`), TEMPORAL_ADDRESS: temporal.address, ACTION_TRIGGERS_CONFIG: configFile });
      const post = (path: string, body: unknown) => fetch(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const trigger = (model: string, name: string) => post('/api/action-triggers', { config_signals: [{ signal: 'post_save' }],
        content_types: [{ app_label: 'bench', model_name: model }], active: true, msg_broker_queues: [{ name }], payload: { order: 42, note: 'bench' } });
      try {
        await trigger('sustain', 'service');
        await trigger('paced', 'paced');
        // Through the service: 50 emitters for SUSTAIN_S, then until every accepted signal is consumed.
        const t0 = Date.now();
        let emitted = 0;
        await Promise.all(Array.from({ length: 50 }, async () => {
          while (Date.now() - t0 < SUSTAIN_S * 1000) {
            const res = await post('/api/signals', { signal: 'post_save', app_label: 'bench', model_name: 'sustain', instance: { id: emitted } });
            if (res.status === 202) emitted++;
          }
        }));
        const consumed = await arrivals(viaService, emitted, 180_000);
        const serviceRate = consumed.size / ((Math.max(...consumed.values()) - t0) / 1000);
        // The raw client: the same publisher, no service, 50 in flight for SUSTAIN_S.
        const publisher = publisherFor(type)!;
        const settings = publisher.settings(raw.broker.conn_details, raw.broker.params);
        if (!settings.ok) throw new Error(JSON.stringify(settings.errors));
        const connections = createConnections();
        const r0 = Date.now();
        let published = 0;
        await Promise.all(Array.from({ length: 50 }, async (_, lane) => {
          for (let i = 0; Date.now() - r0 < SUSTAIN_S * 1000; i++) {
            await connections.publish(publisher, settings.value, { body: BODY, contentType: 'application/json', deliveryId: `raw-${lane}-${i}` }, 10_000);
            published++;
          }
        }));
        const rawRate = published / ((Date.now() - r0) / 1000);
        await connections.close();
        // Accept → consume at RATE signals/s.
        const acceptedAt = new Map<string, number>();
        const count = RATE * PACED_S;
        const p0 = Date.now();
        const sends: Promise<void>[] = [];
        for (let i = 0; i < count; i++) {
          const due = p0 + (i * 1000) / RATE;
          if (due > Date.now()) await sleep(due - Date.now());
          sends.push(post('/api/signals', { signal: 'post_save', app_label: 'bench', model_name: 'paced', instance: { id: i } })
            .then(async (res) => { acceptedAt.set(((await res.json()) as { id: string }).id, Date.now()); }));
        }
        const arrived = arrivals(paced, count, 120_000);
        await Promise.all(sends);
        const latencies = [...(await arrived).entries()].map(([id, at]) => at - (acceptedAt.get(id.split('.')[0]!) ?? at));
        rows.push(`| ${type} | ${serviceRate.toFixed(0)} | ${rawRate.toFixed(0)} | ${(serviceRate / rawRate).toFixed(3)} | ${pct(latencies, 50)} / ${pct(latencies, 99)} (${latencies.length}/${count}) |`);
      } finally {
        await service.stop();
        await Promise.all([viaService.close(), raw.close(), paced.close()]);
      }
    }
    console.log(`\nBroker benchmark (loopback; private servers; one Temporal dev server; service = API + worker in one process; ${SUSTAIN_S} s sustained, ${RATE}/s paced for ${PACED_S} s)\n`);
    console.log('| broker_type | publishes/s through the service | raw client publishes/s (50 in flight) | ratio | accept→consume at 50/s: p50 / p99 ms (consumed/sent) |');
    console.log('|---|---:|---:|---:|---|');
    rows.forEach((r) => console.log(r));
  } finally {
    stopBrokers(brokers);
    await stopRabbit(rabbitPgid, servers.rabbitUrl);
    await temporal.stop();
    rmSync(dir, { recursive: true, force: true });
  }
};
