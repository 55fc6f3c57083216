import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedTriggers } from './seed';
import { rssMb, startBenchTemporal, startService } from './server';

const COUNT = Number(process.env.BENCH_TRIGGERS ?? 100_000);

/** Time from spawn until /readyz says the projection has caught up, and the RSS then. */
const timeToReady = async (dir: string, temporalAddress: string) => {
  const started = process.hrtime.bigint();
  const service = await startService({ DATA_DIR: dir, TEMPORAL_ADDRESS: temporalAddress });
  while ((await fetch(`${service.url}/readyz`)).status !== 200) await new Promise((r) => setTimeout(r, 20));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const rss = rssMb(service.child.pid!);
  const list = await (await fetch(`${service.url}/api/action-triggers?limit=1000`)).json() as unknown[];
  await service.stop();
  return { seconds, rss, listed: list.length };
};

/** `npm run bench -- restart`: 100,000 stored triggers; a cold start (rebuild) and a warm restart. */
export const benchRestart = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'at-bench-restart-'));
  const empty = mkdtempSync(join(tmpdir(), 'at-bench-empty-'));
  try {
    const seedStart = Date.now();
    await seedTriggers(dir, COUNT);
    console.log(`seeded ${COUNT} triggers in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`);
    const temporal = await startBenchTemporal();
    const baseline = await timeToReady(empty, temporal.address);
    const cold = await timeToReady(dir, temporal.address);
    const warm = await timeToReady(dir, temporal.address);
    await temporal.stop();
    console.log(`\nRestart benchmark: ${COUNT} stored triggers\n`);
    console.log('| start | ready after s | × empty-store start | RSS MB |');
    console.log('|---|---:|---:|---:|');
    console.log(`| baseline: empty store | ${baseline.seconds.toFixed(2)} | 1.00 | ${baseline.rss.toFixed(0)} |`);
    console.log(`| cold: read model rebuilt from ${COUNT} events | ${cold.seconds.toFixed(2)} | ${(cold.seconds / baseline.seconds).toFixed(2)} | ${cold.rss.toFixed(0)} |`);
    console.log(`| restart: read model on disk, caught up | ${warm.seconds.toFixed(2)} | ${(warm.seconds / baseline.seconds).toFixed(2)} | ${warm.rss.toFixed(0)} |`);
    if (cold.listed !== 1000 || warm.listed !== 1000) throw new Error('the service did not list the seeded triggers');
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(empty, { recursive: true, force: true });
  }
};
