import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { silentLogger } from '../../../src/kernel/logger';
import { findTemporalCli } from '../../../src/temporal/cli';
import { DevServer, startDevServer } from '../../../src/temporal/dev-server';
import { freePort } from '../../support/free-port';
import { ServerProcess, startServerProcess, stopServerProcess } from '../../support/server-process';
import { ownStalls } from '../../support/own-stalls';
import { testServers } from '../../support/servers';
import { tempDir } from '../../support/test-app';

/**
 * Orchestrators probe with a 1 s time-out: a probe that waits on Temporal would take the API out
 * of rotation during the very outage intake survives. A real service process (`npm start`'s
 * role, worker included) on a Temporal dev server of its own, stopped with SIGTERM and restarted.
 */
const PROBE_EVERY_MS = 100;
const PROBE_TIMEOUT_MS = 1000;
/** A probe is judged late by PROBE_TIMEOUT_MS less this process's own stalls; it is only abandoned after this. */
const PROBE_ABANDON_MS = 5000;

interface Probe {
  path: string;
  at: number;
  ms: number;
  status?: number;
  temporal?: string;
  error?: string;
  /** Of `ms`, the time this test process itself was stalled (not the server's doing). */
  ownStallMs?: number;
}

let dir: string;
let temporalPort: number;
let temporal: DevServer;
let server: ServerProcess;

const startTemporal = async () => {
  temporal = await startDevServer({
    cliPath: findTemporalCli(undefined)!,
    dbFile: join(dir, 'temporal.sqlite'),
    port: temporalPort,
    uiPort: undefined,
    namespace: 'default',
    log: silentLogger,
  });
};

beforeAll(async () => {
  dir = tempDir('at-probes-');
  temporalPort = await freePort();
  await startTemporal();
  server = await startServerProcess(
    {
      DATA_DIR: join(dir, 'data'),
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: 'probes',
      WORKFLOW_BUNDLE_PATH: testServers().workflowBundlePath,
    },
    60_000,
  );
}, 120_000);

afterAll(async () => {
  if (server) await stopServerProcess(server, 'SIGKILL');
  await temporal?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Probes `path` every PROBE_EVERY_MS until stopped. */
const probing = (path: string) => {
  const probes: Probe[] = [];
  const pending: Promise<void>[] = [];
  const probe = async () => {
    const at = Date.now();
    try {
      const res = await fetch(`${server.url}${path}`, { signal: AbortSignal.timeout(PROBE_ABANDON_MS) });
      const body = (await res.json()) as { dispatch?: { temporal?: string } };
      probes.push({
        path,
        at,
        ms: Date.now() - at,
        status: res.status,
        ...(body.dispatch?.temporal ? { temporal: body.dispatch.temporal } : {}),
      });
    } catch (e) {
      probes.push({ path, at, ms: Date.now() - at, error: String(e) });
    }
  };
  const timer = setInterval(() => {
    pending.push(probe());
  }, PROBE_EVERY_MS);
  return {
    probes,
    stop: async () => {
      clearInterval(timer);
      await Promise.all(pending);
      return probes;
    },
  };
};

/** Whether a probe from now on is `seen` within `withinMs`. */
const seenWithin = async (probes: Probe[], seen: (p: Probe) => boolean, withinMs: number) => {
  const from = probes.length;
  const deadline = Date.now() + withinMs;
  while (!probes.slice(from).some(seen)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
};

test('through a Temporal SIGTERM stop and restart, every /readyz and /healthz probe answers 200 within 1 s; /readyz says where Temporal is', async () => {
  const stalls = ownStalls();
  const ready = probing('/readyz');
  const alive = probing('/healthz');
  const seen: Record<string, boolean> = {};
  seen.reachable = await seenWithin(ready.probes, (p) => p.temporal === 'reachable', 10_000);
  await temporal.stop();
  seen.unreachable = await seenWithin(ready.probes, (p) => p.temporal === 'unreachable', 30_000);
  await new Promise((r) => setTimeout(r, 3000));
  await startTemporal();
  seen.reachableAgain = await seenWithin(ready.probes, (p) => p.temporal === 'reachable', 60_000);
  const probes = [...(await ready.stop()), ...(await alive.stop())];
  stalls.stop();
  for (const p of probes) p.ownStallMs = stalls.within(p.at, p.at + p.ms);
  const late = probes.filter((p) => p.status !== 200 || p.ms - p.ownStallMs! >= PROBE_TIMEOUT_MS);
  if (late.length > 0) console.log(`${late.length} late or failed probes of ${probes.length}, the first:`, late.slice(0, 10));
  expect(seen).toEqual({ reachable: true, unreachable: true, reachableAgain: true });
  expect(probes.length).toBeGreaterThan(50);
  expect(late).toEqual([]);
}, 240_000);
