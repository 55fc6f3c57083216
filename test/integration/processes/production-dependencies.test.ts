import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';

/**
 * The build runs with production dependencies only (`npm ci --omit=dev`, as the image installs
 * them): every package the compiled code requires is in `dependencies`, none only in
 * `devDependencies`. The global set-up has just built dist/.
 */
const root = join(__dirname, '../../..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

const jsFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? jsFiles(join(dir, e.name))
      : e.name.endsWith('.js') && !e.name.startsWith('workflow-bundle')
        ? [join(dir, e.name)]
        : [],
  );

const packageOf = (specifier: string) =>
  specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;

test('every package the build requires is a production dependency', () => {
  const required = new Set<string>();
  for (const file of jsFiles(join(root, 'dist'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(
      /\brequire\(\s*["']([^"'./][^"']*)["']\s*\)|\bimport\(\s*["']([^"'./][^"']*)["']\s*\)/g,
    )) {
      const specifier = m[1] ?? m[2]!;
      if (specifier.startsWith('node:') || builtinModules.includes(specifier)) continue;
      required.add(packageOf(specifier));
    }
  }
  expect(required.size).toBeGreaterThan(10);
  expect([...required].filter((p) => !(p in pkg.dependencies)).sort()).toEqual([]);
  // What only development uses stays out of production.
  expect(Object.keys(pkg.dependencies)).not.toEqual(expect.arrayContaining(['ts-node']));
});
