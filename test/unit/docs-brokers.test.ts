import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BROKER_KEYS } from '../../src/destinations/brokers/registry';

/**
 * The broker table in docs/brokers.md is written by hand; each publisher's `keys` table is what
 * the publishers read. Every key a type reads must be named in its row, and every type must have one.
 */
const brokers = readFileSync(join(__dirname, '..', '..', 'docs', 'brokers.md'), 'utf8');
const rowOf = (type: string) => brokers.split('\n').find((line) => line.startsWith(`| \`${type}\` |`));

test.each(Object.keys(BROKER_KEYS))('docs/brokers.md names every key broker type %s reads', (type) => {
  const row = rowOf(type);
  expect(row).toBeDefined();
  const keys = BROKER_KEYS[type]!;
  const missing = [...Object.keys(keys.conn_details), ...Object.keys(keys.params)].filter((key) => !row!.includes(key));
  expect(missing).toEqual([]);
});
