import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Pool, PoolClient } from 'pg';
import type { Knex } from 'knex';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import { MIGRATIONS } from '../../src/outbox/migrations.ts';
import type { PoolLike, Queryable } from '../../src/outbox/db.ts';
import type { KnexLike } from '../../src/outbox/knex.ts';
import type { DrizzleLike } from '../../src/outbox/drizzle.ts';

const root = join(__dirname, '..', '..');

test('each migration is the SQL file shipped beside the code, byte for byte', () => {
  for (const m of MIGRATIONS) expect(m.sql).toBe(readFileSync(join(root, 'sql', `${m.id}.sql`), 'utf8'));
});

/** Compiles (`npm run typecheck`) only when the libraries' own objects fit what emit and the relay take. */
test("node-postgres', Knex's and Drizzle's objects fit the outbox's structural types", () => {
  const fits = <T>(_value: T | undefined) => true;
  expect(fits<PoolLike>(undefined as Pool | undefined)).toBe(true);
  expect(fits<Queryable>(undefined as PoolClient | undefined)).toBe(true);
  expect(fits<KnexLike>(undefined as Knex.Transaction | undefined)).toBe(true);
  type DrizzleTx = Parameters<Parameters<NodePgDatabase['transaction']>[0]>[0];
  expect(fits<DrizzleLike>(undefined as DrizzleTx | undefined)).toBe(true);
});

test('the package depends on nothing at run time; pg, knex and drizzle-orm are optional peers', () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  expect(pkg.dependencies).toBeUndefined();
  for (const peer of ['pg', 'knex', 'drizzle-orm']) expect(pkg.peerDependenciesMeta[peer]).toEqual({ optional: true });
});
