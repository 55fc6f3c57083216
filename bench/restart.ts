import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedTriggers } from './seed';
import { rssMb, startBenchTemporal, startService } from './server';

const COUNT = Number(process.env.BENCH_TRIGGERS ?? 100_000);

/** Time from spawn until /readyz says the projection has caught up, and the RSS then. */
const timeToReady = async (dir: string, temporalAddress: string, role: 'all' | 'api') => {
  const started = process.hrtime.bigint();
  const service = await startService({ DATA_DIR: dir, TEMPORAL_ADDRESS: temporalAddress }, role);
  while ((await fetch(`${service.url}/readyz`)).status !== 200) await new Promise((r) => setTimeout(r, 20));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const rss = rssMb(service.child.pid!);
  const list = (await (await fetch(`${service.url}/api/action-triggers?limit=1000`)).json()) as unknown[];
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
    console.log(`\nRestart benchmark: ${COUNT} stored triggers (ready = /readyz 200: projection caught up, Temporal reachable)\n`);
    console.log('| role | start | ready after s | × empty-store start | RSS MB |');
    console.log('|---|---|---:|---:|---:|');
    // api: the API and its projection (`npm run api`); all: plus a worker that bundles the workflow code at start (`npm start`).
    for (const role of ['api', 'all'] as const) {
      const baseline = await timeToReady(empty, temporal.address, role);
      console.log(`| ${role} | baseline: empty store | ${baseline.seconds.toFixed(2)} | 1.00 | ${baseline.rss.toFixed(0)} |`);
      if (role === 'api') {
        // The first start on the seeded store rebuilds the read model from all the events.
        const cold = await timeToReady(dir, temporal.address, role);
        console.log(
          `| ${role} | cold: read model rebuilt from the events | ${cold.seconds.toFixed(2)} | ${(cold.seconds / baseline.seconds).toFixed(2)} | ${cold.rss.toFixed(0)} |`,
        );
        if (cold.listed !== Math.min(1000, COUNT)) throw new Error('the service did not list the seeded triggers');
      }
      const warm = await timeToReady(dir, temporal.address, role);
      console.log(
        `| ${role} | restart: read model on disk, caught up | ${warm.seconds.toFixed(2)} | ${(warm.seconds / baseline.seconds).toFixed(2)} | ${warm.rss.toFixed(0)} |`,
      );
      if (warm.listed !== Math.min(1000, COUNT)) throw new Error('the service did not list the seeded triggers');
    }
    await temporal.stop();
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(empty, { recursive: true, force: true });
  }
};
