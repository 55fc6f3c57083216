import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { createMetrics } from '../../../src/observability/metrics';

/**
 * The alerting rules (deploy/prometheus/alerts.yml) through promtool: `check rules`, and
 * `test rules` on their unit tests (deploy/prometheus/alerts.test.yml); then what promtool cannot
 * know: every metric an expression reads is one the service registers, every alert is tested both
 * firing and not, and its runbook names a section of docs/alerts.md. promtool is taken from
 * Debian's prometheus package into .tools/promtool (scripts/install-tools.sh); without it these
 * tests fail, saying so.
 */
const ROOT = resolve(__dirname, '..', '..', '..');
const RULES = 'deploy/prometheus/alerts.yml';
const TESTS = 'deploy/prometheus/alerts.test.yml';
const DOC = 'docs/alerts.md';
/** Series Prometheus writes itself for every scrape, whatever the target exports. */
const PROMETHEUS_SERIES = ['up'];

const run = promisify(execFile);
const PROMTOOL = join(ROOT, '.tools', 'promtool', 'bin', 'promtool');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

const promtool = async (...args: string[]): Promise<{ code: number | string; output: string }> => {
  try {
    const { stdout, stderr } = await run(PROMTOOL, args, { cwd: ROOT });
    return { code: 0, output: stdout + stderr };
  } catch (e) {
    const err = e as { code?: number | string; stdout?: string; stderr?: string };
    if (err.code === 'ENOENT')
      throw new Error(
        `${PROMTOOL} is missing: run 'bash scripts/install-tools.sh' as root (it takes promtool out of Debian's prometheus package)`,
      );
    return { code: err.code ?? 'unknown', output: `${err.stdout ?? ''}${err.stderr ?? ''}` };
  }
};

interface Rule {
  group: string;
  alert: string;
  /** Every `key: value` under the rule (labels and annotations too), block values joined. */
  fields: Record<string, string>;
}

const unquote = (value: string) => value.trim().replace(/^'(.*)'$/, (_m, s: string) => s.replace(/''/g, "'"));
const indentOf = (line: string) => line.length - line.trimStart().length;

/**
 * The alerts of a rules file in the layout alerts.yml keeps (`- name:` groups, `- alert:` rules,
 * keys with plain, single-quoted or block values). promtool's count of rules checks that this
 * reader missed none.
 */
const readRules = (text: string): Rule[] => {
  const lines = text.split('\n');
  const rules: Rule[] = [];
  let group = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const named = /^\s*- name:\s*(.+)$/.exec(line);
    const alert = /^\s*- alert:\s*(.+)$/.exec(line);
    const field = /^(\s*)([a-z_]+):\s*(.*)$/.exec(line);
    const rule = rules.at(-1);
    if (named) group = unquote(named[1]!);
    else if (alert) rules.push({ group, alert: unquote(alert[1]!), fields: {} });
    else if (field && rule && rule.group === group) {
      const [, indent, key, value] = field as unknown as [string, string, string, string];
      if (/^[|>][-+]?$/.test(value)) {
        const block: string[] = [];
        while (i + 1 < lines.length && (lines[i + 1]!.trim() === '' || indentOf(lines[i + 1]!) > indent.length))
          block.push(lines[++i]!.trim());
        rule.fields[key] = block.join(value.startsWith('|') ? '\n' : ' ').trim();
      } else rule.fields[key] = unquote(value);
    }
  }
  return rules;
};

/** Each `alertname` a test file evaluates, and whether that case expects alerts (`exp_alerts: []`: none). */
const readCases = (text: string) => {
  const lines = text.split('\n');
  return lines.flatMap((line, i) => {
    const m = /^\s*alertname:\s*(\S+)\s*$/.exec(line);
    if (!m) return [];
    const exp = lines.slice(i + 1).find((l) => /^\s*exp_alerts:/.test(l)) ?? '';
    return [{ alert: m[1]!, fires: !/exp_alerts:\s*\[\]\s*$/.test(exp) }];
  });
};

const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);

/**
 * The metric names a PromQL expression reads: its identifiers that are not functions, keywords,
 * label names (in `{…}` or a `by`/`without`/`on`/`ignoring`/`group_left`/`group_right` list),
 * durations or numbers; and any `__name__="…"` matcher.
 */
const metricNamesOf = (expr: string): string[] => {
  const names = new Set([...expr.matchAll(/__name__\s*=\s*"([^"]+)"/g)].map((m) => m[1]!));
  const rest = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/gi, ' ');
  for (const m of rest.matchAll(/(?<![\w:.])([a-zA-Z_:][\w:]*)(?![\w:])(?!\s*\()/g)) {
    if (!KEYWORDS.has(m[1]!.toLowerCase())) names.add(m[1]!);
  }
  return [...names].sort();
};

/** The series names the service's registry exposes (as src/main.ts builds it), from its page's `# TYPE` lines. */
const registeredNames = async () => {
  const metrics = createMetrics();
  const page = await metrics.render();
  metrics.registry.clear();
  const suffixes: Record<string, string[]> = { histogram: ['_bucket', '_sum', '_count'], summary: ['', '_sum', '_count'] };
  return new Set(
    [...page.body.matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap(([, name, type]) => (suffixes[type!] ?? ['']).map((s) => `${name}${s}`)),
  );
};

const rules = readRules(read(RULES));
const groups = [...new Set(rules.map((r) => r.group))];

test('the rules file reader and the metric name reader read what they must', () => {
  expect(rules.length).toBeGreaterThan(0);
  expect(groups.length).toBeGreaterThan(1);
  expect(
    metricNamesOf(
      'sum by (kind, le) (rate(a_total{outcome="x", route="/readyz"}[5m] offset 1h)) / on (kind) group_left (z) b:rec > 1e3 and bool absent(up{job=~"q.*"}) or {__name__="c"}',
    ),
  ).toEqual(['a_total', 'b:rec', 'c', 'up']);
});

test('promtool check rules: the rules are valid, lint-clean, and every rule of every group is counted', async () => {
  const { code, output } = await promtool('check', 'rules', '--lint=all', '--lint-fatal', RULES);
  expect({ code, output }).toEqual({ code: 0, output: expect.stringContaining(`SUCCESS: ${rules.length} rules found`) });
  expect(groups).toEqual([
    'action-triggers-availability',
    'action-triggers-deliveries',
    'action-triggers-destinations',
    'action-triggers-read-model',
  ]);
});

test('promtool test rules: every alert fires where it must and stays silent where it must not', async () => {
  const { code, output } = await promtool('test', 'rules', TESTS);
  expect({ code, output }).toEqual({
    code: 0,
    output: expect.stringMatching(/Unit Testing:\s+deploy\/prometheus\/alerts\.test\.yml\s+SUCCESS/),
  });
  const tests = read(TESTS);
  // promtool names a failing test by its name, which starts with the group it exercises.
  const testedGroups = new Set([...tests.matchAll(/^\s*- name:\s*'?([\w-]+):/gm)].map((m) => m[1]!));
  expect(groups.filter((g) => !testedGroups.has(g))).toEqual([]);
  const cases = readCases(tests);
  const untested = rules.flatMap((r) =>
    [true, false]
      .filter((fires) => !cases.some((c) => c.alert === r.alert && c.fires === fires))
      .map((fires) => `${r.alert} ${fires ? 'firing' : 'silent'}`),
  );
  expect(untested).toEqual([]);
  expect(cases.map((c) => c.alert).filter((a) => !rules.some((r) => r.alert === a))).toEqual([]);
});

test('every alert has a for, a severity, a summary, a description, and a runbook section in docs/alerts.md', () => {
  const anchors = new Set(
    [...read(DOC).matchAll(/^#{2,3} (.+)$/gm)].map((m) =>
      m[1]!
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .trim()
        .replace(/\s/g, '-'),
    ),
  );
  for (const r of rules) {
    const f = r.fields;
    expect([r.alert, f.for, f.severity, f.summary?.length, f.description?.length]).toEqual([
      r.alert,
      expect.stringMatching(/^\d+[smh]$/),
      expect.stringMatching(/^(critical|warning)$/),
      expect.any(Number),
      expect.any(Number),
    ]);
    expect([r.alert, f.runbook]).toEqual([r.alert, `${DOC}#${r.alert.toLowerCase()}`]);
    expect(anchors).toContain(r.alert.toLowerCase());
  }
});

test("every metric the rules read is one the service's registry exports (or `up`, which Prometheus writes)", async () => {
  const known = await registeredNames();
  expect(known).toContain('action_triggers_deliveries_total');
  const used = rules.map((r) => ({ alert: r.alert, names: metricNamesOf(r.fields.expr ?? '') }));
  expect(used.filter((r) => r.names.length === 0)).toEqual([]);
  const unknown = used.flatMap((r) =>
    r.names.filter((n) => !known.has(n) && !PROMETHEUS_SERIES.includes(n)).map((n) => `${r.alert}: ${n}`),
  );
  expect(unknown).toEqual([]);
});
