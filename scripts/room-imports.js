/**
 * ESLint rules over relative imports (scripts/rooms.js): `rooms/one-way`, an import may not point
 * to a layer after the importer's; `rooms/never`, an import may not break a NEVER rule.
 */
const fs = require('node:fs');
const path = require('node:path');
const { roomOf, layerOf, rankOf, neverBroken } = require('./rooms');

const ROOT = path.resolve(__dirname, '..');
const relative = (abs) => path.relative(ROOT, abs).split(path.sep).join('/');

/** The file an import names: a relative specifier resolved as TypeScript does, or undefined for a package. */
const targetOf = (filename, source) => {
  if (typeof source !== 'string' || !source.startsWith('.')) return undefined;
  const abs = path.resolve(path.dirname(filename), source);
  const file = [abs, `${abs}.ts`, `${abs}.js`, path.join(abs, 'index.ts')].find((f) => fs.existsSync(f) && fs.statSync(f).isFile()) ?? abs;
  return relative(file);
};

/** A rule whose `report(node, from, to, source)` is asked about every import of a file. */
const importRule = (description, report) => ({
  meta: { type: 'problem', docs: { description }, schema: [] },
  create(context) {
    const from = relative(context.filename);
    const check = (node, source) => {
      const to = targetOf(context.filename, source);
      if (to !== undefined) report(context, node, from, to, source);
    };
    const literal = (n) => (n && n.type === 'Literal' ? n.value : undefined);
    return {
      ImportDeclaration: (n) => check(n, n.source.value),
      ExportNamedDeclaration: (n) => n.source && check(n, n.source.value),
      ExportAllDeclaration: (n) => check(n, n.source.value),
      ImportExpression: (n) => check(n, literal(n.source)),
      CallExpression: (n) => {
        if (n.callee.type === 'Identifier' && n.callee.name === 'require') check(n, literal(n.arguments[0]));
      },
    };
  },
});

const oneWay = importRule('imports point one way between layers (scripts/rooms.js)', (context, node, from, to, source) => {
  const fromRoom = roomOf(from);
  const toRoom = roomOf(to);
  if (fromRoom === undefined || toRoom === undefined || rankOf(toRoom) <= rankOf(fromRoom)) return;
  context.report({
    node,
    message: `${fromRoom} (layer ${layerOf(fromRoom)}) may not import ${toRoom} (layer ${layerOf(toRoom)}) (${source}): a layer imports only the layers listed before it in scripts/rooms.js`,
  });
});

const never = importRule('folders keep the NEVER rules of scripts/rooms.js', (context, node, from, to, source) => {
  const rule = neverBroken(from, to);
  if (rule)
    context.report({ node, message: `${rule.from} never imports ${path.posix.dirname(to)} (${source}): ${rule.why} (scripts/rooms.js)` });
});

module.exports = { rules: { 'one-way': oneWay, never } };
