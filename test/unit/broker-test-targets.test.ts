import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { SUPPORTED_BROKER_TYPES } from '../../src/destinations/brokers/registry';

/**
 * The tests' lists of broker types are derived from one file per type in
 * test/support/brokers/targets/, named as its broker_type: the source's registry and those files
 * must name the same types, or a type goes untested, or a file tests nothing.
 */
const DIR = join(__dirname, '..', 'support', 'brokers', 'targets');
const files = readdirSync(DIR)
  .filter((f) => f.endsWith('.ts') && f !== 'index.ts')
  .map((f) => f.replace(/\.ts$/, ''));

test('every broker type the source registers has a target file', () => {
  expect(SUPPORTED_BROKER_TYPES.filter((type) => !files.includes(type))).toEqual([]);
});

test('every target file names a broker type the source registers', () => {
  expect(files.filter((file) => !SUPPORTED_BROKER_TYPES.includes(file))).toEqual([]);
});
