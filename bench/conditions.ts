import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../src/kernel/logger';
import { findTemporalCli } from '../src/temporal/cli';
import { startDevServer } from '../src/temporal/dev-server';
import { freePort } from '../test/support/free-port';
import { startService } from './server';
import { median } from './stats';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 150);
const BATCH = 20;
const CONCURRENCY = 4;
const TRIGGERS = 5;

/** Conditions of the kinds users write, each false for the signals sent. */
const FALSE_CONDITIONS = [
  { 'instance.status': 'paid' },
  { 'instance.total': { $gte: 1000 } },
  { $and: [{ 'instance.status': { $in: ['paid', 'refunded'] } }, { 'instance.customer.country': 'NL' }] },
  { 'instance.status': { $changed: { from: 'pending', to: 'paid' } } },
  { $or: [{ 'instance.created_at': { $gt: '2030-01-01T00:00:00Z' } }, { 'signal.instance_key': { $exists: true } }] },
];

/**
 * `npm run bench -- conditions`: intake (POST /api/signals, batches of 20) of signals whose
 * content type has five triggers with false conditions, against signals whose content type has
 * five triggers watching another signal (unmatched, with the same five not_matched entries), in
 * alternating rounds of one run; the ratio of their rates is the figure. Signals of a content
 * type nobody watches are shown too, for scale.
 */
export const benchConditions = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'at-bench-conditions-'));
  const cliPath = findTemporalCli(process.env.TEMPORAL_CLI_PATH);
  if (!cliPath) throw new Error('no Temporal CLI (bash scripts/install-tools.sh)');
  const port = await freePort();
  const temporal = await startDevServer({ cliPath, dbFile: undefined, port, uiPort: undefined, namespace: 'default', log: silentLogger });
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify({ allow_private_targets: true }));
  const api = await startService(
    { DATA_DIR: join(dir, 'data'), ACTION_TRIGGERS_CONFIG: configFile, TEMPORAL_ADDRESS: temporal.address },
    'api',
  );
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${api.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    await res.arrayBuffer();
    return res.status;
  };
  const trigger = (model: string, signal: string, condition?: unknown) =>
    post('/api/action-triggers', {
      config_signals: [{ signal }],
      content_types: [{ app_label: 'bench', model_name: model }],
      active: true,
      ...(condition === undefined ? {} : { condition }),
      webhooks: [{ url: 'http://127.0.0.1:9/never', http_method: 'POST' }],
    });
  try {
    for (let i = 0; i < TRIGGERS; i++) {
      await trigger('conditioned', 'post_save', FALSE_CONDITIONS[i]);
      await trigger('other_signal', 'post_delete');
    }
    let serial = 0;
    /** Signals per second accepted for one content type: REQUESTS batches, CONCURRENCY at a time. */
    const rate = async (model: string) => {
      let next = 0;
      const t0 = performance.now();
      const lane = async () => {
        while (next < REQUESTS) {
          next++;
          const batch = Array.from({ length: BATCH }, () => ({
            id: `c${serial++}`,
            signal: 'post_save',
            app_label: 'bench',
            model_name: model,
            instance: { id: serial, status: 'pending', total: 120, customer: { country: 'DE' }, created_at: '2026-12-02T08:00:00Z' },
            previous: { id: serial, status: 'pending' },
          }));
          const status = await post('/api/signals', batch);
          if (status !== 202) throw new Error(`POST /api/signals answered ${status}`);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, lane));
      return (REQUESTS * BATCH) / ((performance.now() - t0) / 1000);
    };
    await rate('conditioned');
    await rate('other_signal'); // warm-up
    const rows: { conditioned: number; other: number; nobody: number }[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? (['conditioned', 'other_signal'] as const) : (['other_signal', 'conditioned'] as const);
      const got: Record<string, number> = {};
      for (const model of order) got[model] = await rate(model);
      got.nobody = await rate('nobody');
      rows.push({ conditioned: got.conditioned!, other: got.other_signal!, nobody: got.nobody });
    }
    console.log(`\nconditions: intake, ${REQUESTS} requests of ${BATCH} signals per round, ${CONCURRENCY} at a time, --role=api on SQLite`);
    console.log(
      '| round | 5 triggers, conditions false (signals/s) | 5 triggers on another signal (signals/s) | ratio | no trigger (signals/s) |',
    );
    console.log('|---:|---:|---:|---:|---:|');
    rows.forEach((row, i) =>
      console.log(
        `| ${i + 1} | ${row.conditioned.toFixed(0)} | ${row.other.toFixed(0)} | ${(row.conditioned / row.other).toFixed(2)} | ${row.nobody.toFixed(0)} |`,
      ),
    );
    const ratio = median(rows.map((row) => row.conditioned / row.other));
    console.log(`\nmedian ratio (false conditions ÷ unmatched): ${ratio.toFixed(2)}× (within 10 % is the aim)`);
  } finally {
    await api.stop();
    await temporal.stop();
  }
};
