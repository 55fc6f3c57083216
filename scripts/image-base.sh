#!/usr/bin/env bash
# Builds the image the Dockerfile starts from, where no registry is reachable (the development
# machines and CI): Debian bookworm from Debian's own mirror (debootstrap --variant=minbase) with
# the official Node 24 build, laid out as node:24-bookworm-slim is (node, npm and npx in
# /usr/local/bin, the user node with uid and gid 1000). `npm run test:image` builds the service's
# image on it with `--build-arg NODE_IMAGE=<this image>`.
#
#   bash scripts/image-base.sh [image name]     (default localhost/action-triggers-node:24-bookworm)
#
# Nothing to do when the image exists. Needs root (debootstrap), podman and debootstrap
# (scripts/install-tools.sh installs them). CONTAINERS_CONF is passed through to podman.
set -euo pipefail
cd "$(dirname "$0")/.."
image="${1:-localhost/action-triggers-node:24-bookworm}"
podman image exists "$image" && exit 0

# The Node that runs the service here: .tools/node (the official build, installed where the
# machine's Node is older) or the machine's own Node 24; and the npm on PATH (its package folder).
node_bin="$(node -p process.execPath)"
case "$("$node_bin" --version)" in v24.*) ;; *) echo "image-base: Node 24 is needed, found $("$node_bin" --version)" >&2; exit 1 ;; esac
npm_dir="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")"
[ -f "$npm_dir/bin/npm-cli.js" ] || { echo "image-base: no npm package folder at $npm_dir" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "image-base: debootstrap bookworm (minbase)"
debootstrap --variant=minbase bookworm "$work/rootfs" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" >"$work/debootstrap.log" 2>&1 \
  || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb "$work/rootfs/var/lib/apt/lists/"*

mkdir -p "$work/rootfs/usr/local/bin" "$work/rootfs/usr/local/lib/node_modules"
cp "$node_bin" "$work/rootfs/usr/local/bin/node"
cp -r "$npm_dir" "$work/rootfs/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$work/rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$work/rootfs/usr/local/bin/npx"
# The machine's extra CA bundle (a TLS-inspecting egress proxy's, as on the development machines),
# so that npm in the build stage reaches the registry as it does here. Only this stand-in base
# carries it; the Dockerfile assumes nothing of the kind.
extra_ca=()
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
  cp "$NODE_EXTRA_CA_CERTS" "$work/rootfs/usr/local/share/extra-ca-certificates.crt"
  extra_ca=(--change 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/extra-ca-certificates.crt')
fi
chroot "$work/rootfs" /bin/sh -c 'groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node'

tar -C "$work/rootfs" -c . | podman import --quiet \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["node"]' "${extra_ca[@]}" - "$image" >/dev/null
echo "image-base: $image ($(podman run --rm --network=none "$image" node --version))"
