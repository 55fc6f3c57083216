import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * The README and docs/*.md are a newcomer's path through the repository: every relative link
 * must reach a file or folder of this repository (a clone holds nothing beside it), and every
 * `#anchor` must name a heading of the document it points into.
 */
const ROOT = resolve(__dirname, '..', '..');
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
/** Folders that exist on a developer's machine but are not part of the repository. */
const NOT_IN_REPO = ['node_modules', '.tools', 'data', 'test-output'];

/** Links outside fenced code blocks and inline code: `[text](target)` and `![alt](target)`. */
const linksOf = (markdown: string): string[] => {
  const prose = markdown.replace(/^```[^\n]*\n[\s\S]*?^```[^\n]*$/gm, '').replace(/`[^`\n]*`/g, 'code');
  return [...prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
};

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to `-`, repeats numbered. */
const anchorsOf = (markdown: string): Set<string> => {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const prose = markdown.replace(/^```[^\n]*\n[\s\S]*?^```[^\n]*$/gm, '');
  for (const [, text] of prose.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = text!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .trim()
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
};

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

const cases = DOCS.flatMap((doc) => linksOf(readFileSync(join(ROOT, doc), 'utf8')).map((target) => [doc, target] as const));

test('the README and docs link to each other', () => {
  expect(DOCS).toEqual(
    expect.arrayContaining([
      'README.md',
      'docs/spec.md',
      'docs/design.md',
      'docs/decisions.md',
      'docs/architecture.md',
      'docs/configuration.md',
      'docs/operations.md',
    ]),
  );
  expect(cases.length).toBeGreaterThan(20);
});

test('the README links every docs page, and the architecture on its first screen', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const linked = new Set(linksOf(readme).map((target) => target.split('#')[0]));
  expect(DOCS.filter((doc) => doc !== 'README.md' && !linked.has(doc))).toEqual([]);
  expect(linksOf(readme.split('\n').slice(0, 40).join('\n'))).toContain('docs/architecture.md');
});

test.each(cases)('%s: link %s stays in the repository and resolves', (doc, target) => {
  if (isExternal(target)) {
    // Only the README is held to "nothing outside the repository"; docs may cite sources.
    expect(doc).not.toBe('README.md');
    return;
  }
  const [path, anchor] = target.split('#', 2) as [string, string | undefined];
  const file = path === '' ? join(ROOT, doc) : resolve(ROOT, dirname(doc), decodeURIComponent(path));
  const inRepo = relative(ROOT, file);
  expect(inRepo.startsWith('..') || resolve(inRepo) === inRepo).toBe(false);
  expect(NOT_IN_REPO).not.toContain(inRepo.split(sep)[0]);
  if (doc === 'README.md') expect(path.startsWith('../')).toBe(false);
  expect(existsSync(file)).toBe(true);
  if (anchor !== undefined && file.endsWith('.md')) {
    expect([...anchorsOf(readFileSync(file, 'utf8'))]).toContain(anchor);
  }
});

test('nothing refers to files beside the repository', () => {
  for (const doc of DOCS) expect(readFileSync(join(ROOT, doc), 'utf8')).not.toMatch(/\.\.\/shared\b/);
});

test('the anchor rule reads headings as GitHub does', () => {
  expect([
    ...anchorsOf('## What a trigger may set on a broker\n### `src/` layout\n## Limits\n## Limits\n```\n## not a heading\n```'),
  ]).toEqual(['what-a-trigger-may-set-on-a-broker', 'src-layout', 'limits', 'limits-1']);
  expect(linksOf('[a](b.md) `[c](d.md)` ![e](f.png)\n```\n[g](h.md)\n```\n[`i`](j/#k)')).toEqual(['b.md', 'f.png', 'j/#k']);
});
