import { jsonBodyProblem } from '../../src/http/json-body';
import { MAX_JSON_DEPTH } from '../../src/kernel/limits';

const arrays = (levels: number) => JSON.parse(`${'['.repeat(levels)}${']'.repeat(levels)}`) as unknown;

test('depth: a scalar is 0, `{}` and `[]` are 1; MAX_JSON_DEPTH levels pass, one more names where it went too deep', () => {
  expect(jsonBodyProblem('text')).toBeUndefined();
  expect(jsonBodyProblem(arrays(MAX_JSON_DEPTH))).toBeUndefined();
  expect(jsonBodyProblem(arrays(MAX_JSON_DEPTH + 1))).toEqual({
    path: '[0]'.repeat(MAX_JSON_DEPTH),
    message: expect.stringContaining(`deeper than ${MAX_JSON_DEPTH}`),
  });
  expect(jsonBodyProblem({ a: [1, { b: arrays(MAX_JSON_DEPTH - 3) }] })).toBeUndefined();
  expect(jsonBodyProblem({ a: [1, { b: arrays(MAX_JSON_DEPTH - 2) }] })?.path).toBe(`a[1].b${'[0]'.repeat(MAX_JSON_DEPTH - 3)}`);
});

test('iterative: a million levels are walked without a stack overflow', () => {
  expect(jsonBodyProblem(arrays(1_000_000))?.path).toBe('[0]'.repeat(MAX_JSON_DEPTH));
});

test.each([
  ['{"__proto__":{"payload":1}}', '__proto__'],
  ['[{"a":1},{"instance":{"constructor":1}}]', '[1].instance.constructor'],
  ['{"payload":{"list":[0,{"prototype":[]}]}}', 'payload.list[1].prototype'],
])('a forbidden key anywhere: %s → %s', (json, path) => {
  expect(jsonBodyProblem(JSON.parse(json))).toEqual({ path, message: expect.stringContaining('is not allowed as a key') });
});

test('keys that merely contain a forbidden word are data', () => {
  expect(jsonBodyProblem(JSON.parse('{"proto":1,"__proto":2,"constructors":[{"Prototype":3}]}'))).toBeUndefined();
});
