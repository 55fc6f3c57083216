import { performance } from 'node:perf_hooks';
import { renderBody, RenderTooLarge, renderStringMap } from '../../src/delivery/render';
import type { SignalEnvelope } from '../../src/dispatch/types';
import { MAX_RENDERED_CHARS } from '../../src/kernel/limits';

/** A template's size is bounded at write time, but each expression can repeat a large value. */
const signalWith = (instance: Record<string, unknown>): SignalEnvelope => ({
  id: 's1',
  signal: 'post_save',
  app_label: 'shop',
  model_name: 'order',
  instance,
  occurred_at: '2026-01-01T00:00:00Z',
});
const blob = 'x'.repeat(200_000);

test.each([
  ['interpolated 2,000 times', '{{ instance.blob }}'.repeat(2_000)],
  ['a lone expression 2,000 times (an array)', Array(2_000).fill('{{ instance }}')],
  [
    'a lone expression 2,000 times (an object)',
    Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`k${i}`, ' {{ instance.blob }} '])),
  ],
])('%s over a 200 KB value: refused before it is built', (_name, payload) => {
  const started = performance.now();
  expect(() => renderBody(payload, signalWith({ blob }), 't1', new Map())).toThrow(RenderTooLarge);
  expect(performance.now() - started).toBeLessThan(1_000);
});

test('header maps share one budget; a dynamic value counts too', () => {
  const headers = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`h${i}`, 'v {{ secrets.big }}']));
  expect(() => renderStringMap(headers, { instance: {} }, new Map([['secrets.big', blob]]), [])).toThrow(RenderTooLarge);
  expect(renderStringMap({ a: '{{ secrets.big }}' }, { instance: {} }, new Map([['secrets.big', blob]]), [])).toEqual({ a: blob });
});

test('substituted values up to MAX_RENDERED_CHARS render; one character more is refused', () => {
  const value = 'y'.repeat(MAX_RENDERED_CHARS / 4);
  const rendered = renderBody(
    { a: '{{ instance.v }}', b: ['{{ instance.v }}', 'x {{ instance.v }}'], c: '{{ instance.v }}' },
    signalWith({ v: value }),
    't1',
    new Map(),
  );
  expect(rendered.body.length).toBeGreaterThan(MAX_RENDERED_CHARS);
  expect(() =>
    renderBody(
      ['{{ instance.v }}', '{{ instance.v }}', '{{ instance.v }}', '{{ instance.v }}', '{{ instance.n }}'],
      signalWith({ v: value, n: 12 }),
      't1',
      new Map(),
    ),
  ).toThrow(RenderTooLarge);
});
