import { join } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { problemsOf } = require(join(__dirname, '../../scripts/lint-comments.js')) as {
  problemsOf: (
    file: string,
    text: string,
    exists: (path: string) => boolean,
    isPackage?: (name: string) => boolean,
  ) => Array<{ line: number; message: string }>;
};

/** A small tree: the paths (files and folders, from the root) that exist. */
const tree = new Set(['src', 'src/kernel', 'src/kernel/limits.ts', 'src/http/request.ts', 'docs/spec.md', 'web/admin/lib/paging.js']);
const exists = (p: string) => tree.has(p);

/** The problems of a text placed at `file`, as `line: message`. */
const problems = (text: string, file = 'src/kernel/here.ts', isPackage?: (name: string) => boolean) =>
  problemsOf(file, text, exists, isPackage).map((p) => `${p.line}: ${p.message}`);

const STACKED = 'a doc comment stacked on another documents nothing: merge the two, or move it to what it documents';

describe('stacked doc comments', () => {
  test('two doc comments with nothing between fail, naming the first one', () => {
    expect(problems('const a = 1;\n/** The first. */\n/** The second. */\nexport const b = 2;\n')).toEqual([`2: ${STACKED}`]);
    expect(problems('/**\n * The first.\n */\n  /** The second. */\nexport const b = 2;\n')).toEqual([`1: ${STACKED}`]);
    expect(problems('/** One. */ /** Two. */\nexport const b = 2;\n')).toEqual([`1: ${STACKED}`]);
  });

  test('a doc comment per declaration, a file header with a line after it, and plain comments pass', () => {
    expect(problems('/** A. */\nexport const a = 1;\n/** B. */\nexport const b = 2;\n')).toEqual([]);
    expect(problems('/**\n * What this file is for.\n */\n\n/** B. */\nexport const b = 2;\n')).toEqual([]);
    expect(problems('/* Not a doc comment. */\n/** B. */\nexport const b = 2;\n// one\n/** C. */\nexport const c = 3;\n')).toEqual([]);
  });

  test('what strings, template literals and regular expressions hold is not a comment', () => {
    expect(problems("const s = '/** a */ /** b */';\n")).toEqual([]);
    expect(problems('const t = `${`/** a */`}\n/** b */ ${s} /** c */\n/** d */`;\n')).toEqual([]);
    expect(problems('const r = /[// src/gone.ts]/;\nconst d = 1 / 2; // src/kernel/limits.ts\n')).toEqual([]);
    expect(problems('const f = () => {\n  return /[// src/gone.ts]/;\n};\n')).toEqual([]);
    expect(problems('const t = `${`/** a */`}`;\n// src/gone.ts\n')).toEqual(['2: names src/gone.ts, which does not exist']);
  });
});

describe('paths named in comments', () => {
  test('a path that does not exist fails, with its line', () => {
    expect(problems('/** See src/kernel/gone.ts. */\nexport const a = 1;\n')).toEqual([
      '1: names src/kernel/gone.ts, which does not exist',
    ]);
    expect(problems('// one\n// (docs/old.md#limits)\n')).toEqual(['2: names docs/old.md, which does not exist']);
    expect(problems('/**\n * Parsed by `scan.ts`.\n */\n')).toEqual(['2: names scan.ts, which does not exist']);
    // A file beside a parent folder is named from the root or from the comment's own folder.
    expect(problems('// http/request.ts\n')).toEqual(['1: names http/request.ts, which does not exist']);
  });

  test('paths from the root or from the file, with a line, an anchor or no extension, pass', () => {
    const text = [
      '// src/kernel/limits.ts:12, docs/spec.md#limits (src/http/request)',
      '// limits.ts, ./limits.ts, ../http/request.ts and the src/kernel/ folder.',
      '/** `web/admin/lib/paging.js` */',
    ].join('\n');
    expect(problems(text)).toEqual([]);
    expect(problems('// ../lib/paging.js', 'web/admin/pages/x.js')).toEqual([]);
  });

  test('URLs, absolute paths, package paths, globs, placeholders, product names and build output are no paths', () => {
    const text = [
      '// https://example.com/src/gone.ts and http://localhost/docs/gone.md',
      '// @temporalio/common/lib/time.js, node_modules/x/gone.js, io-ts/lib/gone.js',
      '// src/**/*.ts, test/<suite>/gone.test.ts, src/…/gone.ts, /api/signals/gone.js, /tmp/gone.ts',
      '// Node.js and Next.js; dist/src/main.js once built',
    ].join('\n');
    expect(problems(text, 'src/kernel/here.ts', (name) => name === 'io-ts')).toEqual([]);
  });
});
