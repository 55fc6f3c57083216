/**
 * The rooms of the code base, lowest first: a file may import from its own room and from rooms
 * listed above its own, never from one below (eslint's `rooms/one-way` rule, eslint.config.js;
 * `node scripts/room-graph.js` prints the folder graph). A room is a folder with its sub-folders,
 * unless a sub-folder is a room of its own; `dir/*` is the files directly in `dir`.
 */
const ROOMS = [
  // Shared kernel: pure helpers every room may use.
  ['src/kernel', 'limits, logger, codec helpers, field errors, template parsing, domain errors'],
  // Adapters with no domain knowledge.
  ['src/event-store', 'the event store port, SQLite (commits durable off the main thread, subscriptions) and KurrentDB'],
  ['activities/webhook', 'the webhook HTTP transport with its SSRF guard, signatures, Retry-After'],
  ['activities/publishers', 'one publisher per broker type, the broker keys table, shared connections'],
  ['src/observability', 'metrics registry, tracing, timings'],
  // Domain models.
  ['src/triggers/model', 'trigger codecs, events, decide/evolve, write-time policy, the command loop'],
  ['src/dispatch', 'what a dispatch is: plans, delivery ids, attempts, retry schedule (pure: workflows import it)'],
  ['src/signals/model', 'signal codecs, acceptance rules, stored signal records, the relay lease'],
  ['src/breaker', 'the circuit breaker: per-action state, its stream, recording outcomes'],
  // Read side and infrastructure built on the models.
  ['projections', 'the read model (triggers, signals index) and the runner that keeps it current'],
  ['src/temporal', 'the Temporal client for dispatches, dev server, search attributes'],
  ['src/config', 'the config file and environment, decoded'],
  ['src/http', 'HTTP building blocks: problem+json, request parsing, auth, servers, metrics routes'],
  // Delivery (the worker side).
  ['activities/delivery', 'one attempt of one action: prepare, render, send over a channel (webhook, broker), dry run'],
  ['activities/*', 'the activities Temporal runs'],
  ['workflows', 'the dispatch workflow (deterministic)'],
  // Features (the API side).
  ['src/triggers/api', 'trigger routes: CRUD, history, as-of, dry run'],
  ['src/signals/status', 'what became of a signal: its dispatch state'],
  ['src/signals/intake', 'accepting and storing signals, the relay to Temporal, retention'],
  ['src/signals/list', 'listing stored signals'],
  ['src/signals/redelivery', 'redelivering stored signals'],
  ['src/signals/dispatches', 'listing a trigger\'s dispatches'],
  ['src/signals/api', 'signal routes'],
  ['src/audit', 'the audit feed and its SSE stream'],
  ['src/client', 'the TypeScript client'],
  // Composition.
  ['src/api', 'the HTTP app and its OpenAPI document, assembled from the feature routes'],
  ['src/*', 'entry points: main (roles api, worker, relay), the worker, the API cluster'],
];

const path = require('node:path');

/** The room of a file (a path relative to the repository root, `/`-separated), or undefined. */
const roomOf = (file) => {
  let best;
  for (const [room] of ROOMS) {
    if (room.endsWith('/*')) {
      if (path.posix.dirname(file) === room.slice(0, -2)) return room;
    } else if (file.startsWith(`${room}/`) && (!best || room.length > best.length)) {
      best = room;
    }
  }
  return best;
};

const rankOf = (room) => ROOMS.findIndex(([r]) => r === room);

module.exports = { ROOMS, roomOf, rankOf };
