import autocannon from 'autocannon';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startOtlpReceiver } from '../test/support/otlp-receiver';
import { startReceiver } from '../test/support/receiver';
import { jsonPoster } from './post';
import { drained } from './dispatch';
import { startBenchTemporal, startService } from './server';
import { cpuSeconds } from './temporal-costs';

const SUSTAIN_S = Number(process.env.BENCH_SUSTAIN_S ?? 20);
const SHORT_S = Number(process.env.BENCH_DURATION_S ?? 10);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Variant {
  name: string;
  config: Record<string, unknown>;
  tracing: boolean;
}
/** Off twice, first and last, so drift over the run shows; the ratios are against their mean. */
const ALL_VARIANTS: Variant[] = [
  { name: 'off', config: { metrics: { enabled: false } }, tracing: false },
  { name: 'metrics', config: {}, tracing: false },
  { name: 'tracing', config: { metrics: { enabled: false } }, tracing: true },
  { name: 'metrics + tracing', config: {}, tracing: true },
  { name: 'off (again)', config: { metrics: { enabled: false } }, tracing: false },
];
/** `BENCH_VARIANTS=off,metrics + tracing`: only those (the smoke run's two cover every code path). */
const VARIANTS = process.env.BENCH_VARIANTS
  ? ALL_VARIANTS.filter((v) => process.env.BENCH_VARIANTS!.split(',').includes(v.name))
  : ALL_VARIANTS;

interface Figures {
  get: number;
  accepted: number;
  deliveries: number;
  cpuMs: number;
}

const cannon = async (url: string, method: 'GET' | 'POST', body?: unknown) =>
  (
    await autocannon({
      url,
      connections: 50,
      duration: SHORT_S,
      method,
      headers: { 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    })
  ).requests.average;

/**
 * `npm run bench -- observability`: what metrics and tracing cost the service, beside both off,
 * in one run on one Temporal dev server: GET one trigger and POST /api/signals (50 connections,
 * autocannon), and sustained one-webhook deliveries/s with the service's CPU per delivery.
 */
export const benchObservability = async () => {
  const temporal = await startBenchTemporal();
  const rx = await startReceiver();
  const otlp = await startOtlpReceiver();
  const rows: Array<Variant & Figures & { spans: number }> = [];
  try {
    for (const [n, variant] of VARIANTS.entries()) {
      const dir = mkdtempSync(join(tmpdir(), 'at-bench-obs-'));
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ allow_private_targets: true, ...variant.config }));
      const service = await startService({
        DATA_DIR: dir,
        TEMPORAL_ADDRESS: temporal.address,
        ACTION_TRIGGERS_CONFIG: join(dir, 'config.json'),
        ...(variant.tracing ? { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint } : {}),
      });
      const poster = jsonPoster(service.url);
      const api = poster.post;
      try {
        const path = `/v${n}`;
        const trigger = (await (
          await api('/api/action-triggers', {
            config_signals: [{ signal: 'post_save' }],
            content_types: [{ app_label: 'bench', model_name: `m${n}` }],
            active: true,
            webhooks: [{ url: rx.url(path), http_method: 'POST' }],
          })
        ).json()) as { id: string };
        await sleep(2000); // warm-up: bundling, first connections
        const spansBefore = otlp.spans.length;
        const get = await cannon(`${service.url}/api/action-triggers/${trigger.id}`, 'GET');
        const accepted = await cannon(`${service.url}/api/signals`, 'POST', {
          signal: 'post_save',
          app_label: 'bench',
          model_name: 'unmatched',
          instance: { id: 1 },
        });
        const cpuAtStart = cpuSeconds(service.child.pid!);
        const start = Date.now();
        const end = start + SUSTAIN_S * 1000;
        let emitted = 0;
        await Promise.all(
          Array.from({ length: 50 }, async () => {
            while (Date.now() < end) {
              if (emitted - rx.count(path) > 200) {
                await sleep(5);
                continue;
              }
              emitted++;
              await api('/api/signals', { signal: 'post_save', app_label: 'bench', model_name: `m${n}`, instance: { id: emitted } });
            }
          }),
        );
        const inWindow = rx.on(path).filter((r) => r.at >= start && r.at <= end).length;
        const cpuMs = ((cpuSeconds(service.child.pid!) - cpuAtStart) * 1000) / inWindow;
        await drained(temporal.address);
        rows.push({ ...variant, get, accepted, deliveries: inWindow / SUSTAIN_S, cpuMs, spans: otlp.spans.length - spansBefore });
      } finally {
        await poster.close();
        await service.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    await otlp.close();
    await rx.close();
    await temporal.stop();
  }
  const offs = rows.filter((r) => r.name.startsWith('off'));
  const base = (k: keyof Figures) => offs.reduce((s, r) => s + r[k], 0) / offs.length;
  const cell = (r: Figures, k: keyof Figures, digits = 0) => `${r[k].toFixed(digits)} (${(r[k] / base(k)).toFixed(2)})`;
  console.log(
    `\nObservability overhead (loopback; one Temporal dev server; each variant a fresh service; ratio to the mean of the two "off" runs)\n`,
  );
  console.log(
    `| variant | GET one trigger, req/s | POST /api/signals (unmatched), accepted/s | deliveries/s over ${SUSTAIN_S} s | service CPU per delivery, ms | spans exported |`,
  );
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const r of rows)
    console.log(
      `| ${r.name} | ${cell(r, 'get')} | ${cell(r, 'accepted')} | ${cell(r, 'deliveries')} | ${cell(r, 'cpuMs', 1)} | ${r.spans} |`,
    );
};
