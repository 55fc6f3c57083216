#!/usr/bin/env bash
# The Python client's tests (npm run test:python), two passes at once, each with its own service,
# Temporal dev server and receiver on free ports: Django 4.2 LTS on a SQLite file (with the
# origin's app, for the import command's tests) and Django 5.2 LTS on PostgreSQL (tests/pg_cluster.py;
# also the two-relay test, which needs PostgreSQL). Their longest tests mostly wait (a service
# stopped for 30 s, a relay killed and restarted), so the two overlap well on 2 cores.
set -uo pipefail
cd "$(dirname "$0")/../clients/python"
logs="$(mktemp -d)"
# Interrupted, the two passes go too: SIGINT, on which pytest tears down (its service, its cluster).
trap 'kill -INT $(jobs -p) 2>/dev/null' INT TERM

../../.tools/python-client/bin/python -m pytest -q --ignore=tests/test_relay_postgres.py "$@" >"$logs/sqlite" 2>&1 &
sqlite=$!
ATC_TEST_DATABASE=postgresql ../../.tools/python-client-django52/bin/python -m pytest -q "$@" >"$logs/postgresql" 2>&1 &
postgresql=$!

wait "$sqlite"; sqlite_status=$?
wait "$postgresql"; postgresql_status=$?
echo "== Python client, Django 4.2 on SQLite (exit $sqlite_status)"; cat "$logs/sqlite"
echo "== Python client, Django 5.2 on PostgreSQL (exit $postgresql_status)"; cat "$logs/postgresql"
rm -rf "$logs"
[ "$sqlite_status" -eq 0 ] && [ "$postgresql_status" -eq 0 ]
