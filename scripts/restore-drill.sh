#!/usr/bin/env bash
# Restore drill: proves a backup of the compose deployment's database can be
# restored and served from. It
#   1. takes a logical backup (pg_dump -Fc) from the running postgres service,
#   2. restores it into a scratch database in the same server (pg_restore),
#   3. compares row counts of every table between the two,
#   4. runs `teamtext migrate` against the copy (nothing pending: the dump
#      carried the migration state) and drops the copy.
# Exit 0 only if all of that held. Run it monthly (docs/OPERATIONS.md):
#   scripts/restore-drill.sh [backup-file]     # default: a temp file, removed
# The same commands restore a real outage: pg_restore into an empty
# database, then point DATABASE_URL at it.
set -euo pipefail
cd "$(dirname "$0")/.."

if docker compose version >/dev/null 2>&1; then COMPOSE=(docker compose); else COMPOSE=(docker-compose); fi
PROJECT="${COMPOSE_PROJECT_NAME:-teamtext}"
ENV_FILE="${DEPLOY_ENV_FILE:-deploy/.env}"
dc() { "${COMPOSE[@]}" -p "$PROJECT" -f deploy/compose.yaml --env-file "$ENV_FILE" "$@"; }
log() { printf 'restore-drill: %s\n' "$*" >&2; }
psqlc() { dc exec -T postgres psql -U teamtext -v ON_ERROR_STOP=1 -qtA "$@"; }

BACKUP="${1:-}"
KEEP_BACKUP=1
if [ -z "$BACKUP" ]; then
  BACKUP=$(mktemp /tmp/teamtext-backup.XXXXXX)
  KEEP_BACKUP=0
fi
COPY="restore_drill_$(date +%s)"
cleanup() {
  psqlc -d teamtext -c "DROP DATABASE IF EXISTS $COPY" >/dev/null 2>&1 || true
  [ "$KEEP_BACKUP" = 1 ] || rm -f "$BACKUP"
}
trap cleanup EXIT

log "backing up database teamtext to $BACKUP"
dc exec -T postgres pg_dump -U teamtext -d teamtext -Fc >"$BACKUP"
[ -s "$BACKUP" ] || { log "empty backup"; exit 1; }
log "backup: $(wc -c <"$BACKUP") bytes"

psqlc -d teamtext -c "CREATE DATABASE $COPY"
log "restoring into $COPY"
dc exec -T postgres pg_restore -U teamtext -d "$COPY" --no-owner --exit-on-error <"$BACKUP"

counts() {
  psqlc -d "$1" -c "SELECT string_agg(format('%s=%s', c.relname,
      (xpath('/row/n/text()', query_to_xml(format('SELECT count(*) AS n FROM %I.%I', n.nspname, c.relname), false, true, '')))[1]::text),
      ' ' ORDER BY c.relname)
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relkind IN ('r', 'p') AND n.nspname = 'public'"
}
# A live service writes between the dump and the count, so the copy's row
# counts are compared with the source only when it is quiet
# (DRILL_EXPECT_QUIET=1: the replicas stopped, as in make test-deploy).
src=$(counts teamtext)
dst=$(counts "$COPY")
tables=$(echo "$dst" | wc -w)
[ "$tables" -gt 10 ] || { log "restored copy has only $tables tables"; exit 1; }
if [ "${DRILL_EXPECT_QUIET:-0}" = 1 ] && [ "$src" != "$dst" ]; then
  log "row counts differ:"; diff <(tr ' ' '\n' <<<"$src") <(tr ' ' '\n' <<<"$dst") >&2 || true; exit 1
fi

log "checking the migration state of the copy"
pw=$(grep -E '^POSTGRES_PASSWORD=' "$ENV_FILE" | cut -d= -f2-)
out=$(dc run --rm -T --no-deps -e DATABASE_URL="postgres://teamtext:${pw}@postgres:5432/${COPY}?sslmode=disable" \
  migrate migrate 2>&1) || { log "migrate on the copy failed: $out"; exit 1; }
if grep -q 'migrations applied' <<<"$out"; then log "the copy had pending migrations: $out"; exit 1; fi
log "ok: $tables tables restored$( [ "${DRILL_EXPECT_QUIET:-0}" = 1 ] && echo ', row counts equal')"
