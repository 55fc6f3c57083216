/**
 * Prints the layers (scripts/rooms.js) with their folders and what each imports, and exits 1 when
 * folders import each other: at three heights, the leaf folders (where the files are), the
 * top-level folders under `src/`, and the repository's top-level folders that hold runtime code.
 * `node scripts/room-graph.js` (`--quiet`: only the problems, as `npm run lint` runs it).
 */
const fs = require('node:fs');
const path = require('node:path');
const { LAYERS, ROOMS, roomOf } = require('./rooms');

const ROOT = path.resolve(__dirname, '..');
const SOURCE = /(?:import|export)[^'"]*?from\s+['"](\.[^'"]+)['"]|require\(['"](\.[^'"]+)['"]\)|import\(['"](\.[^'"]+)['"]\)/g;
const RUNTIME = ['src', 'web', 'scripts'];

const filesUnder = (dir) =>
  fs
    .readdirSync(path.join(ROOT, dir), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(`${dir}/${e.name}`) : /\.(ts|js)$/.test(e.name) ? [`${dir}/${e.name}`] : []));

const resolve = (from, spec) => {
  const abs = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  return (
    [abs, `${abs}.ts`, `${abs}.js`, `${abs}/index.ts`].find(
      (f) => fs.existsSync(path.join(ROOT, f)) && fs.statSync(path.join(ROOT, f)).isFile(),
    ) ?? abs
  );
};

/** Every relative import between two files of the runtime folders. */
const importsOfTree = () =>
  RUNTIME.filter((d) => fs.existsSync(path.join(ROOT, d)))
    .flatMap(filesUnder)
    .flatMap((file) =>
      [...fs.readFileSync(path.join(ROOT, file), 'utf8').matchAll(SOURCE)].map((m) => ({
        from: file,
        to: resolve(file, m[1] ?? m[2] ?? m[3]),
      })),
    );

/** The groups of folders that import each other (any cycle, not only pairs), a folder being what `folderOf` names. */
const cyclesIn = (imports, folderOf) => {
  const edges = new Map();
  for (const { from, to } of imports) {
    const a = folderOf(from);
    const b = folderOf(to);
    if (a === undefined || b === undefined || a === b) continue;
    if (!edges.has(a)) edges.set(a, new Set());
    edges.get(a).add(b);
  }
  // Tarjan's strongly connected components: a component of two or more folders is a cycle.
  let index = 0;
  const stack = [];
  const meta = new Map();
  const found = [];
  const visit = (v) => {
    meta.set(v, { index, low: index, on: true });
    index += 1;
    stack.push(v);
    for (const w of edges.get(v) ?? []) {
      if (!meta.has(w)) {
        visit(w);
        meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).low);
      } else if (meta.get(w).on) meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).index);
    }
    if (meta.get(v).low === meta.get(v).index) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        meta.get(w).on = false;
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of edges.keys()) if (!meta.has(v)) visit(v);
  return found.map((component) => ({
    component,
    via: imports.filter(
      ({ from, to }) => component.includes(folderOf(from)) && component.includes(folderOf(to)) && folderOf(from) !== folderOf(to),
    ),
  }));
};

const leaf = (file) => path.posix.dirname(file);
/** The three heights at which no folders may import each other. */
const topUnderSrc = (file) =>
  file.startsWith('src/')
    ? file
        .split('/')
        .slice(0, file.split('/').length > 2 ? 2 : 1)
        .join('/')
    : undefined;
const top = (file) => file.split('/')[0];

const HEIGHTS = [
  ['leaf folders', leaf],
  ['folders under src/', topUnderSrc],
  ['top-level folders', top],
];

const main = () => {
  const imports = importsOfTree();
  const roomImports = new Map();
  for (const { from, to } of imports) {
    const a = roomOf(from);
    const b = roomOf(to);
    if (!a || !b || a === b) continue;
    if (!roomImports.has(a)) roomImports.set(a, new Set());
    roomImports.get(a).add(b);
  }
  const quiet = process.argv.includes('--quiet');
  for (const [layer, description, folders] of quiet ? [] : LAYERS) {
    console.log(`${layer}: ${description}`);
    for (const folder of folders)
      console.log(`  ${folder.padEnd(24)} imports ${[...(roomImports.get(folder) ?? [])].sort().join(', ') || 'nothing'}`);
  }

  let problems = 0;
  for (const [height, folderOf] of HEIGHTS) {
    for (const { component, via } of cyclesIn(imports, folderOf)) {
      problems += 1;
      console.log(`CYCLE among ${height}: ${component.join(' ⇄ ')}`);
      for (const { from, to } of via.slice(0, 8)) console.log(`   ${from} -> ${to}`);
    }
  }
  const unplaced = [...new Set(imports.map(({ from }) => from).filter((f) => f.startsWith('src/') && roomOf(f) === undefined))];
  for (const file of unplaced) {
    problems += 1;
    console.log(`NOT IN A LAYER: ${file}`);
  }
  console.log(problems === 0 ? `${LAYERS.length} layers, ${ROOMS.length} folders; no folders import each other` : `${problems} problems`);
  process.exitCode = problems === 0 ? 0 : 1;
};

if (require.main === module) main();

module.exports = { cyclesIn, HEIGHTS };
