/**
 * A strict reader of the Prometheus text format (0.0.4), as promtool checks it: every sample
 * belongs to a family declared by `# TYPE` before it, names and labels are well formed, values
 * are numbers, no series repeats, and each histogram's buckets are cumulative up to `+Inf`,
 * which equals its `_count`. Throws naming the line; returns the samples.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: -?\d+)?$/;
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(?:,|$)/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const SUFFIXES: Record<string, string[]> = { histogram: ['_bucket', '_sum', '_count'], summary: ['_sum', '_count', ''] };

const parseLabels = (text: string, line: string) => {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest.length > 0) {
    const m = LABEL.exec(rest);
    if (!m) throw new Error(`bad labels in: ${line}`);
    if (m[1]! in labels) throw new Error(`label ${m[1]} twice in: ${line}`);
    labels[m[1]!] = m[2]!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    rest = rest.slice(m[0].length);
  }
  return labels;
};

/** Values as Prometheus reads them (Go's ParseFloat: Inf and NaN in any case; prom-client writes `Nan`). */
const numberOf = (s: string, line: string) => {
  if (/^\+?inf$/i.test(s)) return Infinity;
  if (/^-inf$/i.test(s)) return -Infinity;
  if (/^nan$/i.test(s)) return NaN;
  const n = Number(s);
  if (s.trim() === '' || Number.isNaN(n)) throw new Error(`bad value in: ${line}`);
  return n;
};

export const parsePrometheusText = (page: string): Sample[] => {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  const seen = new Set<string>();
  for (const line of page.split('\n')) {
    if (line === '') continue;
    const comment = /^# (HELP|TYPE) (\S+)(?: (.*))?$/.exec(line);
    if (comment) {
      if (!NAME.test(comment[2]!)) throw new Error(`bad metric name in: ${line}`);
      if (comment[1] === 'TYPE') {
        if (!TYPES.has(comment[3] ?? '')) throw new Error(`bad type in: ${line}`);
        if (types.has(comment[2]!)) throw new Error(`TYPE twice: ${line}`);
        types.set(comment[2]!, comment[3]!);
      }
      continue;
    }
    if (line.startsWith('#')) continue;
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`not a sample: ${line}`);
    const name = m[1]!;
    const family = [...types.entries()].find(([f, type]) => f === name || (SUFFIXES[type] ?? []).some((s) => `${f}${s}` === name));
    if (!family) throw new Error(`sample before its # TYPE: ${line}`);
    const labels = parseLabels(m[2] ?? '', line);
    const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (seen.has(key)) throw new Error(`series twice: ${line}`);
    seen.add(key);
    samples.push({ name, labels, value: numberOf(m[3]!, line) });
  }
  checkHistograms(samples, types);
  return samples;
};

const checkHistograms = (samples: Sample[], types: Map<string, string>) => {
  for (const [family, type] of types) {
    if (type !== 'histogram') continue;
    const series = new Map<string, Sample[]>();
    for (const s of samples.filter((x) => x.name === `${family}_bucket`)) {
      const { le, ...rest } = s.labels;
      if (le === undefined) throw new Error(`${family}_bucket without le`);
      const key = JSON.stringify(Object.entries(rest).sort());
      series.set(key, [...(series.get(key) ?? []), s]);
    }
    for (const [key, buckets] of series) {
      const sorted = [...buckets].sort((a, b) => numberOf(a.labels.le!, '') - numberOf(b.labels.le!, ''));
      if (sorted.at(-1)!.labels.le !== '+Inf') throw new Error(`${family} ${key}: no +Inf bucket`);
      sorted.reduce((prev, b) => {
        if (b.value < prev) throw new Error(`${family} ${key}: buckets not cumulative`);
        return b.value;
      }, 0);
      const count = samples.find((s) => s.name === `${family}_count` && JSON.stringify(Object.entries(s.labels).sort()) === key);
      if (count?.value !== sorted.at(-1)!.value) throw new Error(`${family} ${key}: _count is not the +Inf bucket`);
    }
  }
};

/** The value of one series (labels matched exactly), or undefined. */
export const valueOf = (samples: readonly Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.find(
    (s) =>
      s.name === name &&
      Object.keys(s.labels).length === Object.keys(labels).length &&
      Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  )?.value;
