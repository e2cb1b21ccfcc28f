#!/usr/bin/env bash
# `make up` / `make down`: deploy/compose.yaml on this host.
#   scripts/deploy.sh up     secrets in deploy/.env (once), start, wait until
#                            the proxy answers https://localhost:$HTTPS_PORT/readyz
#   scripts/deploy.sh down   stop and remove the containers (volumes stay)
set -euo pipefail
cd "$(dirname "$0")/.."

if docker compose version >/dev/null 2>&1; then COMPOSE=(docker compose); else COMPOSE=(docker-compose); fi
PROJECT="${COMPOSE_PROJECT_NAME:-teamtext}"
ENV_FILE="${DEPLOY_ENV_FILE:-deploy/.env}"
dc() { "${COMPOSE[@]}" -p "$PROJECT" -f deploy/compose.yaml --env-file "$ENV_FILE" "$@"; }
log() { printf 'deploy: %s\n' "$*" >&2; }

case "${1:-}" in
up)
  if [ ! -s "$ENV_FILE" ]; then
    umask 077
    {
      echo "# written once by make up; secrets: keep out of version control"
      echo "ADMIN_TOKEN=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
      echo "POSTGRES_PASSWORD=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
    } >"$ENV_FILE"
    log "wrote $ENV_FILE (ADMIN_TOKEN, POSTGRES_PASSWORD)"
  fi
  dc up -d --remove-orphans
  port="${HTTPS_PORT:-8443}"
  for _ in $(seq 1 120); do
    if curl -ksf "https://localhost:$port/readyz" >/dev/null 2>&1; then
      log "up: https://localhost:$port (self-signed certificate: ${COMPOSE[*]} -p $PROJECT -f deploy/compose.yaml exec proxy cat /certs/teamtext.crt)"
      log "admin CLI: ${COMPOSE[*]} -p $PROJECT -f deploy/compose.yaml exec app1 /teamtext admin teams list"
      exit 0
    fi
    sleep 1
  done
  dc ps >&2
  dc logs --tail 30 >&2
  log "the proxy did not answer /readyz within 120s"
  exit 1
  ;;
down)
  [ -s "$ENV_FILE" ] || { log "nothing to stop ($ENV_FILE missing)"; exit 0; }
  dc down --remove-orphans
  ;;
logs)
  dc logs --no-color --tail "${TAIL:-200}"
  ;;
destroy)
  # down, and the database and certificate volumes with it (tests).
  [ -s "$ENV_FILE" ] || exit 0
  dc down --remove-orphans --volumes
  ;;
*)
  echo "usage: $0 up|down|logs|destroy" >&2
  exit 2
  ;;
esac
