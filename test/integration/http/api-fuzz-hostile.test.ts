import fc from 'fast-check';
import request from 'supertest';
import { FORBIDDEN_KEYS, MAX_JSON_DEPTH } from '../../../src/kernel/limits';
import { startDispatchHarness } from '../../support/dispatch-harness';
import { startReceiver, Receiver } from '../../support/receiver';
import { waitForDispatch } from '../../support/signals';
import { triggerBody } from '../../support/trigger-body';

/**
 * The classes of hostile input a security review found, generated: prototype keys anywhere, nesting
 * around the depth limit, and template strings built to make a parser backtrack. Sibling of
 * api-fuzz.test.ts (which generates malformed requests in general).
 */
let h: Awaited<ReturnType<typeof startDispatchHarness>>;
let rx: Receiver;
let existingId: string;
beforeAll(async () => {
  rx = await startReceiver();
  h = await startDispatchHarness({});
  existingId = (await request(h.app).post('/api/action-triggers').send(trigger('fuzz-existing')).expect(201)).body.id;
});
afterAll(async () => {
  await h?.close();
  await rx?.close();
});

const trigger = (model: string, over: Record<string, unknown> = {}) =>
  triggerBody({
    model,
    webhooks: [{ url: rx.url(`/${model}`), http_method: 'POST', headers: { 'x-a': 'b' } }],
    payload: { k: [1, { v: 'x' }] },
    ...over,
  });
const signal = (model: string, instance: unknown) => ({ signal: 'post_save', app_label: 'shop', model_name: model, instance });
const isContainer = (v: unknown): v is object => typeof v === 'object' && v !== null;
const isObject = (v: unknown): v is Record<string, unknown> => isContainer(v) && !Array.isArray(v);

/** Every object in a value, with its field path (as the API names it). */
const objectsIn = (v: unknown, path = ''): Array<{ node: Record<string, unknown>; path: string }> => {
  if (!isContainer(v)) return [];
  const here = isObject(v) ? [{ node: v, path }] : [];
  return [...here, ...Object.entries(v).flatMap(([k, x]) => objectsIn(x, Array.isArray(v) ? `${path}[${k}]` : path ? `${path}.${k}` : k))];
};

const jsonLeaf = fc.jsonValue({ maxDepth: 1 });
const hostileTarget = fc.oneof(
  fc.record({
    verb: fc.constant('post' as const),
    url: fc.constant('/api/action-triggers'),
    body: jsonLeaf.map((p) => trigger('fuzz-proto', { payload: { p } })),
  }),
  fc.record({
    verb: fc.constant('put' as const),
    url: fc.constant('EXISTING'),
    body: jsonLeaf.map((p) => trigger('fuzz-existing', { payload: [p, { q: p }] })),
  }),
  fc.record({
    verb: fc.constant('patch' as const),
    url: fc.constant('EXISTING'),
    body: jsonLeaf.map((p) => ({ payload: { a: { b: p } }, webhooks: [{ url: rx.url('/x'), http_method: 'GET', headers: { h: 'v' } }] })),
  }),
  fc.record({
    verb: fc.constant('post' as const),
    url: fc.constant('/api/signals'),
    body: jsonLeaf.map((p) => [signal('fuzz-none', { a: p, b: { c: [p] } }), signal('fuzz-none', {})]),
  }),
);

test('a prototype key anywhere in a body: 400 naming it, and nothing stored', async () => {
  const snapshot = async () => [
    (await request(h.app).get('/api/action-triggers?limit=1000')).text,
    (await request(h.app).get(`/api/action-triggers/${existingId}/history`)).text,
  ];
  const before = await snapshot();
  await fc.assert(
    fc.asyncProperty(hostileTarget, fc.nat(), fc.constantFrom(...FORBIDDEN_KEYS), jsonLeaf, async (target, pick, key, value) => {
      const body = structuredClone(target.body) as unknown;
      const objects = objectsIn(body);
      const chosen = objects[pick % objects.length]!;
      // defineProperty: an own "__proto__" key, as JSON.parse makes it, not a prototype.
      Object.defineProperty(chosen.node, key, { value, enumerable: true, writable: true, configurable: true });
      const forbiddenPaths = objectsIn(body).flatMap((o) =>
        Object.keys(o.node)
          .filter((k) => FORBIDDEN_KEYS.has(k))
          .map((k) => (o.path ? `${o.path}.${k}` : k)),
      );
      const url = target.url === 'EXISTING' ? `/api/action-triggers/${existingId}` : target.url;
      const res = await request(h.app)[target.verb](url).set('content-type', 'application/json').send(JSON.stringify(body));
      expect(res.status).toBe(400);
      expect(forbiddenPaths).toContain(res.body.errors[0].path);
    }),
    { numRuns: 200 },
  );
  expect(await snapshot()).toEqual(before);
}, 60000);

/**
 * JSON text of a chain of containers exactly `depth` deep, objects or arrays by a repeating
 * pattern, each with a scalar sibling; the top one an object. Built as text: JSON.stringify
 * itself overflows the stack near 5,000 levels.
 */
const chainText = (depth: number, pattern: boolean[]): string => {
  let open = '';
  let close = '';
  for (let i = 0; i < depth; i++) {
    const asObject = i === 0 || pattern[i % pattern.length]!;
    open += asObject ? `{"n":${i},"k${i % 7}":` : `[${i},`;
    close = (asObject ? '}' : ']') + close;
  }
  return `${open}"leaf"${close}`;
};
const aroundTheLimit = fc.oneof(
  { arbitrary: fc.integer({ min: MAX_JSON_DEPTH - 3, max: MAX_JSON_DEPTH + 3 }), weight: 8 },
  { arbitrary: fc.integer({ min: 100, max: 20_000 }), weight: 1 },
);
/** Where the chain goes, and how many levels the body adds above it. */
const places = [
  {
    url: '/api/action-triggers',
    above: 1,
    ok: 201,
    text: (chain: string) => JSON.stringify(trigger('fuzz-deep', { payload: '@' })).replace('"@"', chain),
  },
  { url: '/api/signals', above: 1, ok: 202, text: (chain: string) => JSON.stringify(signal('fuzz-none', '@')).replace('"@"', chain) },
  { url: '/api/signals', above: 2, ok: 202, text: (chain: string) => JSON.stringify([signal('fuzz-none', '@')]).replace('"@"', chain) },
];

test('nesting around MAX_JSON_DEPTH: accepted up to it, a 400 "deeper than" beyond, never a 5xx', async () => {
  const deepBody = fc.tuple(aroundTheLimit, fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }), fc.constantFrom(...places));
  await fc.assert(
    fc.asyncProperty(deepBody, async ([depth, pattern, place]) => {
      const res = await request(h.app)
        .post(place.url)
        .set('content-type', 'application/json')
        .send(place.text(chainText(depth, pattern)));
      if (place.above + depth <= MAX_JSON_DEPTH) expect(res.status).toBe(place.ok);
      else {
        expect(res.status).toBe(400);
        expect(res.body.errors[0].message).toMatch(`deeper than ${MAX_JSON_DEPTH} levels`);
      }
    }),
    { numRuns: 80 },
  );
}, 60000);

/** Strings built from what template parsers choke on: braces, blanks, names, dots, line breaks. */
const token = fc.constantFrom('{{', '}}', '{', '}', ' ', '  ', 'a', '.', 'instance', 'instance.x', '\t', '\n', 'é');
const templateString = (maxLength: number) =>
  fc.tuple(fc.array(token, { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: maxLength })).map(([unit, length]) =>
    unit
      .join('')
      .repeat(Math.ceil(length / unit.join('').length))
      .slice(0, length),
  );

test('adversarial template strings in payload and headers: every answer within a time bound, never a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(templateString(100_000), templateString(4_000), async (payload, header) => {
      const started = Date.now();
      const res = await request(h.app)
        .post('/api/action-triggers')
        .send(
          trigger('fuzz-template', {
            payload: { text: payload, list: [payload] },
            webhooks: [{ url: rx.url('/t'), http_method: 'POST', headers: { 'x-t': header } }],
          }),
        );
      expect(Date.now() - started).toBeLessThan(2000);
      expect([201, 400]).toContain(res.status);
    }),
    { numRuns: 60 },
  );
}, 60000);

/** The shapes that made the old regexes backtrack, at a random length: all valid, so they reach rendering. */
const family = fc
  .tuple(
    fc.constantFrom(
      (n: number) => `{{${' '.repeat(n)}`,
      (n: number) => '{{'.repeat(n / 2),
      (n: number) => '{{ a'.repeat(n / 4),
      (n: number) => '}}'.repeat(n / 2),
      (n: number) => `{${'{ '.repeat(n / 2)}`,
      (n: number) => `${'{{\n'.repeat(n / 3)}`,
      (n: number) => '{{ instance.x }} '.repeat(n / 17),
      (n: number) => `${' '.repeat(n / 2)}{{ instance.x }}${' '.repeat(n / 2)}`,
    ),
    fc.integer({ min: 1_000, max: 50_000 }),
  )
  .map(([f, n]) => f(n));

test('adversarial template strings render at once when a signal is dispatched', async () => {
  const headerOf = (s: string) => `<${s.replace(/\s+/g, ' ').slice(0, 3_000)}>`;
  await fc.assert(
    fc.asyncProperty(family, async (payload) => {
      const model = `fuzz-render-${Math.random().toString(36).slice(2)}`;
      await request(h.app)
        .post('/api/action-triggers')
        .send(
          trigger(model, { payload, webhooks: [{ url: rx.url(`/${model}`), http_method: 'POST', headers: { 'x-t': headerOf(payload) } }] }),
        )
        .expect(201);
      const started = Date.now();
      const s = await request(h.app)
        .post('/api/signals')
        .send(signal(model, { x: 1 }))
        .expect(202);
      const done = await waitForDispatch(h.app, s.body.id);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(done.actions[0]).toMatchObject({ state: 'delivered' });
      // A lone expression (blanks around allowed) keeps its JSON type: the body is the number 1.
      expect(rx.on(`/${model}`)[0]!.body).toBe(payload.trim() === '{{ instance.x }}' ? '1' : payload.replaceAll('{{ instance.x }}', '1'));
    }),
    { numRuns: 8 },
  );
}, 90000);
