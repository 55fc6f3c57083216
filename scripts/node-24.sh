#!/bin/sh
# Prints the path of the Node the service runs on: `node` on PATH where it is 24 or newer, else
# the project's own in .tools/node (ACTION_TRIGGERS_NODE_DIR), fetched from the npm registry on
# the first start (scripts/install-node.sh). Says which in one line on stderr. Where none can be
# had it exits 1 naming the version found, the one needed and the command that fixes it: an older
# Node would crash in the SQLite module (a bare "Segmentation fault" on Node 20).
NEEDED=24
here=$(cd "$(dirname "$0")" && pwd)
dir="${ACTION_TRIGGERS_NODE_DIR:-$(dirname "$here")/.tools/node}"
found=$(node --version 2>/dev/null)
major=$(printf '%s' "$found" | sed -n 's/^v\([0-9][0-9]*\)\..*/\1/p')
if [ -n "$major" ] && [ "$major" -ge "$NEEDED" ]; then
  command -v node
  exit 0
fi
if ! sh "$here/install-node.sh" "$dir"; then
  echo "action-triggers needs Node $NEEDED or newer; the node on PATH is ${found:-missing}, and Node $NEEDED could not be fetched from the npm registry into $dir." >&2
  echo "Fix: install Node $NEEDED (e.g. 'nvm install $NEEDED'), or run 'sh scripts/install-node.sh' where the npm registry can be reached." >&2
  exit 1
fi
echo "action-triggers: the node on PATH is ${found:-missing}; running on Node $("$dir/bin/node" --version) from $dir" >&2
echo "$dir/bin/node"
