#!/usr/bin/env node
/**
 * Builds the package twice from one source: CommonJS into dist/cjs, ES modules into dist/esm,
 * each with its declarations. A package.json in each folder tells Node (and TypeScript) which
 * kind its .js files are. Declarations name their neighbours `.js`, as the code does (tsc
 * rewrites the sources' `.ts` in code only), so any TypeScript version reads them; the relay's
 * command is made executable.
 */
const { execFileSync } = require('node:child_process');
const { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const tsc = require.resolve('typescript/bin/tsc', { paths: [root] });

const RELATIVE_TS = /((?:from|import)\s*\(?\s*['"]\.{1,2}\/[^'"]*)\.ts(['"])/g;
const declarationsUnder = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? declarationsUnder(join(dir, e.name)) : e.name.endsWith('.d.ts') ? [join(dir, e.name)] : [],
  );

rmSync(join(root, 'dist'), { recursive: true, force: true });
for (const [config, type] of [
  ['tsconfig.cjs.json', 'commonjs'],
  ['tsconfig.esm.json', 'module'],
]) {
  execFileSync(process.execPath, [tsc, '-p', join(root, config)], { cwd: root, stdio: 'inherit' });
  const out = join(root, 'dist', type === 'module' ? 'esm' : 'cjs');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'package.json'), `${JSON.stringify({ type })}\n`);
  for (const file of declarationsUnder(out)) writeFileSync(file, readFileSync(file, 'utf8').replace(RELATIVE_TS, '$1.js$2'));
}
for (const file of Object.values(require(join(root, 'package.json')).bin ?? {}))
  if (existsSync(join(root, file))) chmodSync(join(root, file), 0o755);
