/**
 * The layers of the code base, lowest first, and the rules a reader would assume from the folder
 * names. Three checks keep them (`npm run lint` runs all three):
 * - eslint's `rooms/one-way` (scripts/room-imports.js): a file imports only from its own layer and
 *   the layers listed before it;
 * - eslint's `rooms/never` (the same file): the NEVER rules below;
 * - `node scripts/room-graph.js`: no folder imports a folder that imports it back, within a layer
 *   or across, for leaf folders and for the top-level folders under `src/`.
 * A folder belongs to the layer that lists it or its nearest listed parent; `dir/*` is the files
 * directly in `dir`.
 */
const LAYERS = [
  [
    'kernel',
    'pure helpers every layer may use (limits, logger, codec helpers, field errors, templates, host classification)',
    ['src/kernel'],
  ],
  [
    'adapters',
    'no domain knowledge: the event store, metrics and tracing, the pure types a dispatch shares with its workflow',
    ['src/event-store', 'src/observability', 'src/dispatch'],
  ],
  ['destinations', 'every destination type: its keys, its checks against the config, its OpenAPI fragment, its send', ['src/destinations']],
  [
    'models',
    'what a trigger, a signal and a circuit breaker are (codecs, events, decisions, matching); the dispatch workflow',
    ['src/model', 'src/workflows'],
  ],
  [
    'infrastructure',
    'built on the models: the config, the read model, the Temporal client, the HTTP kit',
    ['src/config', 'src/projections', 'src/temporal', 'src/http'],
  ],
  [
    'features',
    'one folder per thing the service does: trigger and signal routes, delivery, instance order, pace per destination, audit, alerts, ops',
    ['src/triggers', 'src/signals', 'src/delivery', 'src/activities', 'src/ordering', 'src/pacing', 'src/audit', 'src/alerts', 'src/ops'],
  ],
  ['composition', 'the HTTP app and its OpenAPI document, the entry points (main, worker, API cluster)', ['src/api', 'src/*']],
];

/**
 * What a folder never imports, whatever the layers allow: `only` lists the folders it may import
 * (its own always), `not` the folders it must not. Package imports are restricted in
 * eslint.config.js (workflows and dispatch: only Temporal's workflow and common packages).
 */
const NEVER = [
  { from: 'src/http', only: ['src/kernel', 'src/config'], why: 'the HTTP kit knows no domain' },
  { from: 'src/dispatch', only: ['src/kernel'], why: 'dispatch types are pure: the workflow bundle imports them' },
  { from: 'src/workflows', only: ['src/dispatch'], why: 'workflow code is deterministic' },
  { from: 'clients/node', only: [], why: 'the TypeScript client package ships without the server' },
  { from: 'src/destinations', only: ['src/kernel', 'src/dispatch', 'src/observability'], why: 'a destination knows no feature' },
  { from: 'src/model', not: ['src/delivery', 'src/activities', 'src/workflows'], why: 'a model knows no activity' },
];

/**
 * Folders the rest of `src/` enters only through their door: `door` lists the files and folders
 * of the folder that code outside it may import (tests may reach further in).
 */
const DOORS = [
  {
    folder: 'src/destinations',
    door: ['src/destinations/registry.ts', 'src/destinations/port'],
    why: "a destination kind's folder is entered through the registry",
  },
];

const path = require('node:path');

const ROOMS = LAYERS.flatMap(([layer, , folders]) => folders.map((folder) => ({ layer, folder })));

/** The layer's folder a file (a path relative to the repository root, `/`-separated) sits in, or undefined. */
const roomOf = (file) => {
  let best;
  for (const { folder } of ROOMS) {
    if (folder.endsWith('/*')) {
      if (path.posix.dirname(file) === folder.slice(0, -2)) return folder;
    } else if (file.startsWith(`${folder}/`) && (!best || folder.length > best.length)) {
      best = folder;
    }
  }
  return best;
};

const layerOf = (room) => ROOMS.find((r) => r.folder === room)?.layer;
const rankOf = (room) => LAYERS.findIndex(([layer]) => layer === layerOf(room));

/** The NEVER or DOORS rule a file breaks by importing another, or undefined. */
const neverBroken = (from, to) => {
  const inside = (file, folder) => file.startsWith(`${folder}/`);
  for (const d of DOORS) {
    if (!from.startsWith('src/') || inside(from, d.folder) || !inside(to, d.folder)) continue;
    if (!d.door.some((f) => to === f || inside(to, f))) return { from: `src/ outside ${d.folder}`, why: d.why };
  }
  for (const rule of NEVER) {
    if (!inside(from, rule.from) || inside(to, rule.from)) continue;
    if (rule.only && !rule.only.some((f) => inside(to, f))) return rule;
    if (rule.not && rule.not.some((f) => inside(to, f))) return rule;
  }
  return undefined;
};

module.exports = { LAYERS, NEVER, DOORS, ROOMS, roomOf, layerOf, rankOf, neverBroken };
