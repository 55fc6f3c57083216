import { parsePrometheusText } from '../support/prom-text';

// The checker the metrics tests rely on must itself refuse broken pages.
test.each([
  ['a sample before its TYPE', 'x_total 1\n'],
  ['a bad value', '# TYPE x_total counter\nx_total one\n'],
  ['a bad label', '# TYPE x_total counter\nx_total{a=b} 1\n'],
  ['a repeated series', '# TYPE x_total counter\nx_total{a="1"} 1\nx_total{a="1"} 2\n'],
  ['buckets that are not cumulative', '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_count 1\nh_sum 0\n'],
  ['_count unlike +Inf', '# TYPE h histogram\nh_bucket{le="1"} 1\nh_bucket{le="+Inf"} 1\nh_count 2\nh_sum 0\n'],
])('refuses %s', (_name, page) => {
  expect(() => parsePrometheusText(page)).toThrow();
});

test('reads a well-formed page', () => {
  const samples = parsePrometheusText(
    '# HELP x_total X\n# TYPE x_total counter\nx_total{a="q\\"x"} 3\n# TYPE h histogram\nh_bucket{le="1"} 1\nh_bucket{le="+Inf"} 2\nh_sum 3\nh_count 2\n',
  );
  expect(samples).toEqual([
    { name: 'x_total', labels: { a: 'q"x' }, value: 3 },
    { name: 'h_bucket', labels: { le: '1' }, value: 1 },
    { name: 'h_bucket', labels: { le: '+Inf' }, value: 2 },
    { name: 'h_sum', labels: {}, value: 3 },
    { name: 'h_count', labels: {}, value: 2 },
  ]);
});

test('reads NaN and Inf in any case, as Prometheus does (prom-client writes an empty mean as `Nan`)', () => {
  const samples = parsePrometheusText('# TYPE g gauge\ng{a="1"} Nan\ng{a="2"} NaN\ng{a="3"} +inf\ng{a="4"} -Inf\n');
  expect(samples.map((s) => s.value)).toEqual([NaN, NaN, Infinity, -Infinity]);
});
