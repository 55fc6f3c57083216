import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as t from 'io-ts';
import { createDynamicValues } from '../../src/delivery/dynamic-values';
import { renderString } from '../../src/delivery/render';
import { mergePatch } from '../../src/model/triggers/merge-patch';
import { closed } from '../../src/kernel/closed';

/**
 * Behind the HTTP body check (test/integration/delivery/hostile-bodies.test.ts), every layer that reads
 * or builds objects from data uses own properties only, so stored or configured data cannot
 * reach a prototype either.
 */

test('mergePatch never sets a prototype: "__proto__" stays an own key, which the codecs then refuse', () => {
  const merged = mergePatch({ active: true }, JSON.parse('{"__proto__":{"payload":{"x":1}}}')) as Record<string, unknown>;
  expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
  expect(merged.payload).toBeUndefined();
  expect(Object.keys(merged)).toEqual(['active', '__proto__']);
  const nested = mergePatch({ payload: { a: 1 } }, JSON.parse('{"payload":{"__proto__":{"b":2}}}')) as { payload: Record<string, unknown> };
  expect(Object.getPrototypeOf(nested.payload)).toBe(Object.prototype);
  expect(nested.payload.b).toBeUndefined();
  expect(JSON.stringify(nested)).toBe('{"payload":{"a":1,"__proto__":{"b":2}}}');
});

test('mergePatch keeps RFC 7396: objects merge, null removes, anything else replaces', () => {
  expect(mergePatch({ a: 1, b: { c: 2, d: 3 }, e: [1] }, { a: null, b: { c: null, f: 4 }, e: { x: 1 } })).toEqual({
    b: { d: 3, f: 4 },
    e: { x: 1 },
  });
  expect(mergePatch({ a: 1 }, [1])).toEqual([1]);
});

test('closed reads own properties only: a field on the prototype is absent', () => {
  const Codec = closed('X', { name: t.string }, { payload: t.unknown, active: t.boolean });
  const input = Object.assign(Object.create({ payload: { injected: true }, active: true }) as object, { name: 'n' });
  const result = Codec.decode(input);
  expect(result).toEqual({ _tag: 'Right', right: { name: 'n' } });
  const missing = Codec.decode(Object.create({ name: 'from the prototype' }));
  expect(missing._tag).toBe('Left');
});

test('a template path reads own properties of the instance only', () => {
  const warnings: string[] = [];
  expect(
    renderString(
      '{{ instance.constructor }}|{{ instance.toString }}|{{ instance.a.__proto__ }}',
      { instance: { a: {} } },
      new Map(),
      warnings,
    ),
  ).toBe('||');
  expect(warnings).toEqual(['instance.constructor is missing', 'instance.toString is missing', 'instance.a.__proto__ is missing']);
});

describe('dynamic values resolve own properties only, even when allow-listed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'at-dyn-'));
  const modulePath = join(dir, 'values.js');
  writeFileSync(modulePath, 'module.exports = { secrets: { token: () => "tok" } };\n');
  const paths = [
    'secrets.token',
    'secrets.constructor',
    'secrets.toString',
    'secrets.token.call',
    'secrets.__proto__',
    'env.constructor',
    'env.toString',
    'env.HOME',
  ];
  const source = createDynamicValues({ modulePath, allowedPaths: paths, env: { HOME: '/home/x' }, cwd: dir });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('an own value and an own env variable resolve', async () => {
    expect(await source.resolve(['secrets.token', 'env.HOME'])).toEqual(
      new Map([
        ['secrets.token', 'tok'],
        ['env.HOME', '/home/x'],
      ]),
    );
  });

  test.each(paths.filter((p) => p !== 'secrets.token' && p !== 'env.HOME'))('%s does not resolve', async (path) => {
    await expect(source.resolve([path])).rejects.toThrow(/is not (defined by the dynamic-value module|set in the environment)/);
  });
});
