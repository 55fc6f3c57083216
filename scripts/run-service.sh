#!/bin/sh
# How `npm start`, `npm run api` and `npm run worker` run the built service; the arguments go to
# dist/src/main.js (`--role=api`, `--role=worker`). Each default below gives way to a value set in
# the environment, even an empty one (docs/configuration.md):
# - jemalloc preloaded where the machine has it, with its background thread giving freed pages
#   back while idle (glibc's malloc kept ~150 MB after a fan-out; docs/decisions.md, fan-out);
# - two malloc arenas, should glibc's malloc be the one in use;
# - a 1 GB V8 heap (NODE_HEAP_MB): Node's own ~4 GB lets a worker fill with garbage first.
# On Node 24: the node on PATH where it is that new, else the project's own (scripts/node-24.sh).
here=$(dirname "$0")
node_bin=$(sh "$here/node-24.sh") || exit 1
export LD_PRELOAD="${LD_PRELOAD-$(sh "$here/jemalloc-path.sh")}"
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX-2}"
export MALLOC_CONF="${MALLOC_CONF-background_thread:true}"
exec "$node_bin" --max-old-space-size="${NODE_HEAP_MB:-1024}" "$here/../dist/src/main.js" "$@"
