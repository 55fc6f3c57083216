/** The ESLint rule `rooms/one-way`: an import may not point to a room below the importer's (scripts/rooms.js). */
const fs = require('node:fs');
const path = require('node:path');
const { roomOf, rankOf } = require('./rooms');

const ROOT = path.resolve(__dirname, '..');
const relative = (abs) => path.relative(ROOT, abs).split(path.sep).join('/');

const oneWay = {
  meta: { type: 'problem', docs: { description: 'imports point one way between rooms (scripts/rooms.js)' }, schema: [] },
  create(context) {
    const from = relative(context.filename);
    const fromRoom = roomOf(from);
    if (fromRoom === undefined) return {};
    const check = (node, source) => {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const abs = path.resolve(path.dirname(context.filename), source);
      const file = [abs, `${abs}.ts`, `${abs}.js`, path.join(abs, 'index.ts')].find((f) => fs.existsSync(f) && fs.statSync(f).isFile()) ?? abs;
      const toRoom = roomOf(relative(file));
      if (toRoom === undefined || toRoom === fromRoom || rankOf(toRoom) < rankOf(fromRoom)) return;
      context.report({ node, message: `${fromRoom} may not import ${toRoom} (${source}): rooms import only the rooms listed before theirs in scripts/rooms.js` });
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
};

module.exports = { rules: { 'one-way': oneWay } };
