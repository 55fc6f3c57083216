import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { suites } from '../../../bench/suites';

/**
 * Every benchmark suite runs at a small size and must print its table: a suite that stops
 * silently (node exits 0 when its event loop drains before the suite ends) or throws is broken,
 * and nothing else would notice, since `npm run bench` is never part of `npm test`.
 */
const SMOKE: Record<string, Record<string, string>> = {
  // The comparison of builds runs against this checkout itself: its code path, not a finding.
  api: {
    BENCH_TRIGGERS: '200',
    BENCH_DURATION_S: '0.5',
    BENCH_WARM_S: '0',
    BENCH_COMPARE_DIRS: join(__dirname, '../../..'),
    BENCH_COMPARE_ROUNDS: '1',
    BENCH_COMPARE_STORED: '50',
    BENCH_STORES: 'sqlite',
  },
  restart: { BENCH_TRIGGERS: '300' },
  'long-history': { BENCH_VERSIONS: '60', BENCH_DURATION_S: '1' },
  dispatch: { BENCH_DURATION_S: '2', BENCH_SUSTAIN_S: '3', BENCH_RATES: '20' },
  'fan-out': { BENCH_SIGNALS: '10', BENCH_WEBHOOKS: '12', BENCH_IDLE_S: '1', BENCH_HISTORIES: '2' },
  ordering: { BENCH_SIGNALS: '40', BENCH_INSTANCES: '4', BENCH_PACED_SIGNALS: '20', BENCH_PACED_RATE: '20' },
  intake: { BENCH_OUTAGE_S: '3', BENCH_RATE: '20', BENCH_INTAKE_RATE_S: '1' },
  paced: { BENCH_PACED_S: '3', BENCH_WARM_S: '1', BENCH_RATE: '20' },
  observability: { BENCH_DURATION_S: '1', BENCH_SUSTAIN_S: '2', BENCH_VARIANTS: 'off,metrics + tracing' },
  django: { ROUNDS: '1', SAVES: '20' },
  brokers: { BENCH_BROKERS: 'redis', BENCH_RAW_S: '2', BENCH_SUSTAIN_S: '3', BENCH_PACED_S: '3', BENCH_RATE: '20' },
  conditions: { BENCH_ROUNDS: '1', BENCH_REQUESTS: '20' },
  outbox: { BENCH_TX: '20', BENCH_ROUNDS: '1', BENCH_RELAY_ROWS: '200', BENCH_BATCHES: '100' },
  pacing: {
    BENCH_RATE: '20',
    BENCH_PACED_S: '2',
    BENCH_WARM_S: '1',
    BENCH_ROUNDS: '1',
    BENCH_WAITING: '300',
    BENCH_WAITING_FULL: '30',
    BENCH_IDLE_S: '1',
    BENCH_HISTORIES: '2',
  },
};

test('every bench suite has its small size here, so none goes unrun', () => {
  expect(Object.keys(SMOKE).sort()).toEqual(Object.keys(suites).sort());
});

const runSuite = (suite: string, env: Record<string, string>) =>
  new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', join(__dirname, '../../../bench/run.ts'), suite], {
      // The global setup has built the service already.
      env: { ...process.env, BENCH_SKIP_BUILD: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
    });
    child.stderr.on('data', (b: Buffer) => {
      out += b.toString();
    });
    child.on('exit', (code) => resolve({ code, out }));
  });

/** A markdown table: a header, its separator, and a first row that holds a figure. */
const TABLE = /^\|.*\|[ \t]*\n\|[-:| ]+\|[ \t]*\n\|.*\d.*\|/m;

test.each(Object.entries(SMOKE))(
  'bench suite %s runs to the end and prints its table',
  async (suite, env) => {
    const { code, out } = await runSuite(suite, env);
    expect({ suite, code, ended: !out.includes('bench ended before finishing') }).toEqual({ suite, code: 0, ended: true });
    expect(out).toMatch(TABLE);
  },
  300_000,
);
