#!/usr/bin/env bash
# make run: start (or reuse) a Postgres container with a named volume, migrate,
# and serve, seeding a demo team on first start. With DATABASE_URL set, that
# database is used instead of a container.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-bin/teamtext}
mkdir -p .run

if [ -z "${DATABASE_URL:-}" ]; then
  NAME=teamtext-dev-postgres
  PORT=${PG_PORT:-55432}
  if ! docker container inspect "$NAME" >/dev/null 2>&1; then
    echo "run: starting Postgres container $NAME on port $PORT (volume teamtext-dev-pgdata)" >&2
    docker run -d --name "$NAME" -p "127.0.0.1:$PORT:5432" \
      -e POSTGRES_USER=teamtext -e POSTGRES_PASSWORD=teamtext -e POSTGRES_DB=teamtext \
      -v teamtext-dev-pgdata:/var/lib/postgresql/data "${PG_IMAGE:-teamtext-postgres:15}" >/dev/null
  elif [ "$(docker container inspect -f '{{.State.Running}}' "$NAME")" != "true" ]; then
    echo "run: restarting Postgres container $NAME" >&2
    docker start "$NAME" >/dev/null
  fi
  for i in $(seq 1 60); do
    if docker exec "$NAME" pg_isready -U teamtext -d teamtext -h 127.0.0.1 >/dev/null 2>&1; then break; fi
    [ "$i" = 60 ] && { echo "run: Postgres did not become ready" >&2; docker logs --tail 20 "$NAME" >&2; exit 1; }
    sleep 1
  done
  export DATABASE_URL="postgres://teamtext:teamtext@127.0.0.1:$PORT/teamtext?sslmode=disable"
fi

if [ -z "${ADMIN_TOKEN:-}" ]; then
  if [ ! -s .run/admin-token ]; then
    head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' > .run/admin-token
  fi
  ADMIN_TOKEN=$(cat .run/admin-token)
  export ADMIN_TOKEN
fi

"$BIN" migrate
exec "$BIN" serve --seed-demo
