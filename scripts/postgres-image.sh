#!/usr/bin/env bash
# Ensures the Postgres image the tests and `make run` use exists locally.
#
# On a machine with a registry it pulls the official image and tags it. Where
# images cannot be pulled it builds an equivalent one from Debian packages
# (debootstrap minbase + postgresql), whose entrypoint honours the official
# image's contract: POSTGRES_USER / POSTGRES_PASSWORD / POSTGRES_DB, data in
# /var/lib/postgresql/data, "postgres" as the command, and the "ready to accept
# connections" line logged twice (init server, then the real one), which is
# what testcontainers' postgres module waits for.
set -euo pipefail

IMAGE="${PG_IMAGE:-teamtext-postgres:15}"
UPSTREAM="${PG_UPSTREAM_IMAGE:-postgres:15}"
SUITE="${PG_DEBIAN_SUITE:-bookworm}"

log() { printf 'postgres-image: %s\n' "$*" >&2; }
# shellcheck source=lib/debian.sh
. "$(dirname "$0")/lib/debian.sh"

if docker image inspect "$IMAGE" >/dev/null 2>&1; then
  exit 0
fi

log "pulling $UPSTREAM"
if timeout 120 docker pull -q "$UPSTREAM" >/dev/null 2>&1; then
  docker tag "$UPSTREAM" "$IMAGE"
  log "tagged $UPSTREAM as $IMAGE"
  exit 0
fi

log "pull failed; building $IMAGE from Debian $SUITE packages (about a minute, once per machine)"
ensure_debootstrap || exit 1
MIRROR=$(debian_mirror "${PG_DEBIAN_MIRROR:-}")

ROOT=$(mktemp -d /tmp/teamtext-pgroot.XXXXXX)
trap 'rm -rf "$ROOT"' EXIT
debootstrap_minbase "$ROOT" "$SUITE" "$MIRROR" --include=postgresql-15,tzdata || exit 1
rm -f "$ROOT.log"

cat >"$ROOT/usr/local/bin/docker-entrypoint.sh" <<'ENTRY'
#!/bin/sh
# Minimal equivalent of the official postgres image's entrypoint.
set -e
export PGDATA="${PGDATA:-/var/lib/postgresql/data}"
user="${POSTGRES_USER:-postgres}"
db="${POSTGRES_DB:-$user}"
if [ "${1#-}" != "$1" ]; then set -- postgres "$@"; fi
if [ "$1" = "postgres" ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  pw=$(mktemp)
  printf '%s' "${POSTGRES_PASSWORD:-postgres}" >"$pw"
  initdb -D "$PGDATA" -U "$user" --pwfile="$pw" -E UTF8 --locale=C.UTF-8 \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pw"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start
  if [ "$db" != "postgres" ]; then
    psql -v ON_ERROR_STOP=1 -U "$user" -d postgres -qc "CREATE DATABASE \"$db\"" 
  fi
  pg_ctl -D "$PGDATA" -m fast -w stop
fi
exec "$@"
ENTRY
chmod 755 "$ROOT/usr/local/bin/docker-entrypoint.sh"
rm -rf "$ROOT/var/lib/postgresql/15" "$ROOT/var/cache/apt/archives/"*.deb "$ROOT/var/lib/apt/lists/"*
mkdir -p "$ROOT/var/lib/postgresql/data"
chroot "$ROOT" chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql
chmod 700 "$ROOT/var/lib/postgresql/data"

tar -C "$ROOT" -c . | docker import \
  --change 'ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV PGDATA=/var/lib/postgresql/data' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'USER postgres' \
  --change 'EXPOSE 5432' \
  --change 'VOLUME /var/lib/postgresql/data' \
  --change 'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]' \
  --change 'CMD ["postgres"]' \
  - "$IMAGE" >/dev/null
log "built $IMAGE"
