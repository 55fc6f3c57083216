import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBenchTemporal, startService } from './server';
import { startReceiver } from '../test/support/receiver';
import { cpuSeconds } from './temporal-costs';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'zz-'));
  const temporal = await startBenchTemporal();
  const rx = await startReceiver();
  writeFileSync(join(dir, 'c.json'), JSON.stringify({ allow_private_targets: true }));
  const service = await startService({ DATA_DIR: dir, TEMPORAL_ADDRESS: temporal.address, ACTION_TRIGGERS_CONFIG: join(dir, 'c.json') });
  const api = (p: string, b: unknown) => fetch(`${service.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) });
  await api('/api/action-triggers', { config_signals: [{ signal: 'post_save' }], content_types: [{ app_label: 'b', model_name: 'o' }], active: true, webhooks: [{ url: rx.url('/x'), http_method: 'POST' }] });
  const rate = Number(process.env.RATE ?? 50); const secs = Number(process.env.SECS ?? 20);
  for (let warm = 0; warm < 50; warm++) await api('/api/signals', { signal: 'post_save', app_label: 'b', model_name: 'o', instance: { id: -1 } });
  await sleep(2000);
  const c0 = [cpuSeconds(service.child.pid!), cpuSeconds(temporal.pid!)];
  const acc = new Map<string, number>(); const t0 = Date.now(); const sends: Promise<void>[] = [];
  for (let i = 0; i < rate * secs; i++) {
    const due = t0 + (i * 1000) / rate; if (due > Date.now()) await sleep(due - Date.now());
    sends.push(api('/api/signals', { signal: 'post_save', app_label: 'b', model_name: 'o', instance: { id: i } }).then(async (r) => { acc.set(((await r.json()) as { id: string }).id, Date.now()); }));
  }
  await Promise.all(sends); await sleep(3000);
  const cpu = [(cpuSeconds(service.child.pid!) - c0[0]!) * 1000 / (rate * secs), (cpuSeconds(temporal.pid!) - c0[1]!) * 1000 / (rate * secs)];
  const lat = rx.on('/x').filter((r) => acc.has(String(r.headers['webhook-id']).split('.')[0]!)).map((r) => r.at - acc.get(String(r.headers['webhook-id']).split('.')[0]!)!).sort((a, b) => a - b);
  const p = (q: number) => lat[Math.min(lat.length - 1, Math.floor(lat.length * q / 100))];
  console.log(`rate ${rate}: n=${lat.length} p50 ${p(50)} p90 ${p(90)} p99 ${p(99)} max ${lat[lat.length - 1]} cpu ms/signal service ${cpu[0]!.toFixed(1)} temporal ${cpu[1]!.toFixed(1)}`);
  await service.stop(); await temporal.stop(); await rx.close();
})();
