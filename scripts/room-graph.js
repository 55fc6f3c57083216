/**
 * Prints the rooms (scripts/rooms.js) and which rooms each imports, from the same resolution
 * the lint rule uses; exits 1 if two rooms import each other or an import points down the list.
 * `node scripts/room-graph.js`
 */
const fs = require('node:fs');
const path = require('node:path');
const { ROOMS, roomOf, rankOf } = require('./rooms');

const ROOT = path.resolve(__dirname, '..');
const SOURCE = /(?:import|export)[^'"]*?from\s+['"](\.[^'"]+)['"]|require\(['"](\.[^'"]+)['"]\)|import\(['"](\.[^'"]+)['"]\)/g;

const filesUnder = (dir) => fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
  (e.isDirectory() ? filesUnder(`${dir}/${e.name}`) : /\.(ts|js)$/.test(e.name) ? [`${dir}/${e.name}`] : []));

const resolve = (from, spec) => {
  const abs = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  return [abs, `${abs}.ts`, `${abs}.js`, `${abs}/index.ts`].find((f) => fs.existsSync(path.join(ROOT, f)) && fs.statSync(path.join(ROOT, f)).isFile()) ?? abs;
};

const edges = new Map(ROOMS.map(([r]) => [r, new Map()]));
for (const file of ['src', 'activities', 'projections', 'workflows'].flatMap(filesUnder)) {
  const from = roomOf(file);
  for (const m of fs.readFileSync(path.join(ROOT, file), 'utf8').matchAll(SOURCE)) {
    const to = roomOf(resolve(file, m[1] ?? m[2] ?? m[3]));
    if (from && to && to !== from) edges.get(from).set(to, (edges.get(from).get(to) ?? 0) + 1);
  }
}

let problems = 0;
for (const [room, description] of ROOMS) {
  const out = [...edges.get(room)].sort((a, b) => rankOf(a[0]) - rankOf(b[0]));
  console.log(`${String(rankOf(room)).padStart(2)} ${room.padEnd(24)} ${description}`);
  console.log(`   imports: ${out.map(([to, n]) => `${to} (${n})`).join(', ') || 'nothing'}`);
  for (const [to] of out) {
    if (rankOf(to) > rankOf(room)) { problems += 1; console.log(`   BACK-EDGE: ${room} -> ${to}`); }
    if (edges.get(to).has(room)) { problems += 1; console.log(`   MUTUAL: ${room} <-> ${to}`); }
  }
}
console.log(problems === 0 ? `${ROOMS.length} rooms; no pair imports each other, every import points up the list` : `${problems} problems`);
process.exitCode = problems === 0 ? 0 : 1;
