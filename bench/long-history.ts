import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { benchDefinition } from './seed';
import { startBenchTemporal, startService } from './server';

const VERSIONS = Number(process.env.BENCH_VERSIONS ?? 5000);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
/** Bytes of payload per version: a trigger people edit often is rarely tiny. */
const PAD = 2000;

/**
 * `npm run bench -- long-history`: what a trigger's length costs. One trigger edited
 * BENCH_VERSIONS (5,000) times through the API and one created once, on the same service;
 * then, one request at a time for BENCH_DURATION_S each: PATCH of each, and GET ?as_of= (the
 * newest version) of each. With every write reading the whole stream the long one's PATCH
 * slowed in proportion to its length; with snapshots the ratio should stay near 1.
 */
export const benchLongHistory = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'at-bench-history-'));
  const temporal = await startBenchTemporal();
  const service = await startService({ DATA_DIR: dir, TEMPORAL_ADDRESS: temporal.address }, 'api');
  const pool = new Pool(service.url, { connections: 1 });
  const send = async (method: 'POST' | 'PATCH' | 'GET', path: string, body?: unknown) => {
    const res = await pool.request({
      method,
      path,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 200)}`);
    return text;
  };
  const create = async () => (JSON.parse(await send('POST', '/api/action-triggers', benchDefinition(1))) as { id: string }).id;
  const patch = (id: string, n: number) => send('PATCH', `/api/action-triggers/${id}`, { payload: { n, pad: 'x'.repeat(PAD) } });
  /** Requests per second of `one`, one at a time, for DURATION_S. */
  const rate = async (one: (n: number) => Promise<unknown>) => {
    let n = 0;
    const end = Date.now() + DURATION_S * 1000;
    const start = Date.now();
    while (Date.now() < end) await one(n++);
    return n / ((Date.now() - start) / 1000);
  };
  try {
    const long = await create();
    const short = await create();
    const seeding: string[] = [];
    let t0 = Date.now();
    for (let v = 2; v <= VERSIONS; v++) {
      await patch(long, v);
      if (v % 1000 === 0) {
        seeding.push(`${Math.max(2, v - 999)}–${v}: ${((Date.now() - t0) / 999).toFixed(2)} ms`);
        t0 = Date.now();
      }
    }
    const now = () => new Date().toISOString();
    const rows = [
      ['PATCH, 1 version', await rate((n) => patch(short, n))],
      [`PATCH, ${VERSIONS.toLocaleString('en')} versions`, await rate((n) => patch(long, VERSIONS + n))],
      ['GET ?as_of=now, 1 version', await rate(() => send('GET', `/api/action-triggers/${short}?as_of=${now()}`))],
      [
        `GET ?as_of=now, ${VERSIONS.toLocaleString('en')}+ versions`,
        await rate(() => send('GET', `/api/action-triggers/${long}?as_of=${now()}`)),
      ],
    ] as const;
    console.log(
      `\nLong trigger history (API role, SQLite store, one request at a time, ${DURATION_S} s each; payload ~${PAD} bytes per version)\n`,
    );
    console.log(`Seeding the long trigger, mean ms per PATCH: ${seeding.join('; ')}\n`);
    console.log('| request | req/s | × the 1-version trigger |');
    console.log('|---|---:|---:|');
    for (const [i, [name, rps]] of rows.entries())
      console.log(`| ${name} | ${rps.toFixed(0)} | ${(rps / rows[i - (i % 2)]![1]).toFixed(2)} |`);
  } finally {
    await pool.close();
    await service.stop();
    await temporal.stop();
    rmSync(dir, { recursive: true, force: true });
  }
};
