#!/bin/sh
# Installs the Node the service runs on (package.json's engines: 24) into a folder of the project,
# default .tools/node: the npm registry's node-linux-<arch> package, the official Linux build
# (bin/node plus include/node, the headers native modules compile against). Pinned; the installed
# version is its stamp, written last, so a half-done install is done again. Safe to run again.
#   bash scripts/install-node.sh [DIR]        NODE_VERSION=... to pin another 24.x
#   NODE_VERSION=20.19.5 bash scripts/install-node.sh .tools/node20   (an older Node, for the test of npm start on it)
set -eu
NODE_VERSION="${NODE_VERSION:-24.21.0}"
dir="${1:-$(dirname "$0")/../.tools/node}"
[ "$(cat "$dir/stamp" 2>/dev/null)" = "$NODE_VERSION" ] && [ "$("$dir/bin/node" --version 2>/dev/null)" = "v$NODE_VERSION" ] && exit 0
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) echo "no node-linux package for $(uname -m): install Node ${NODE_VERSION%%.*} yourself" >&2; exit 1 ;;
esac
command -v npm >/dev/null 2>&1 || { echo "npm is not installed: it fetches Node from the npm registry" >&2; exit 1; }
echo "installing Node $NODE_VERSION into $dir (the npm registry's node-linux-$arch)" >&2
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# One try, no retries: where the registry cannot be reached, say so at once.
(cd "$tmp" && npm pack --silent --fetch-retries=0 --fetch-timeout=60000 "node-linux-$arch@$NODE_VERSION" >/dev/null)
rm -rf "$dir" && mkdir -p "$dir"
tar -xzf "$tmp"/node-linux-"$arch"-*.tgz -C "$dir" --strip-components=1
"$dir/bin/node" --version >/dev/null
printf '%s' "$NODE_VERSION" > "$dir/stamp"
