#!/bin/sh
# `npm test` (and `npm run test:unit`, `test:image`) on a machine as it comes, whatever its Node: the servers
# the tests run are installed first where missing (scripts/install-tools.sh: a second of checks
# once they are there; not for the unit tests), then scripts/test-run.js runs on Node 24 (the
# node on PATH where it is that new, else the project's own, fetched once: scripts/node-24.sh),
# first on PATH for everything the run starts.
set -e
here=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-}" != unit ] && ! bash "$here/install-tools.sh"; then
  echo "npm test: the servers the tests run could not be installed; run 'bash scripts/install-tools.sh' as root (it uses apt-get) and see its error" >&2
  exit 1
fi
node_bin=$(sh "$here/node-24.sh")
PATH="$(dirname "$node_bin"):$(dirname "$here")/.tools/temporal/bin:$PATH"
export PATH
exec node "$here/test-run.js" "$@"
