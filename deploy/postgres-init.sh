#!/bin/sh
# Run once by the postgres image, on the first start of an empty data volume: the event store's
# own user and database (the service creates its schema and tables at start).
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
  -v password="$EVENT_STORE_DB_PASSWORD" <<'SQL'
CREATE ROLE action_triggers LOGIN PASSWORD :'password';
CREATE DATABASE action_triggers OWNER action_triggers;
SQL
