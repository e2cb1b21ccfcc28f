#!/usr/bin/env bash
# Ensures the HAProxy image deploy/compose.yaml puts in front of the
# replicas exists locally (HAPROXY_IMAGE, default teamtext-haproxy:2.6).
#
# It is built the same way on every machine, registry or not: Debian's
# haproxy and openssl packages (debootstrap minbase), as
# scripts/postgres-image.sh does where it cannot pull (the official haproxy
# image has no openssl to make the first certificate with). Its
# entrypoint makes a self-signed certificate on first start (kept in the
# /certs volume) unless one is mounted there, then runs haproxy in the
# foreground in master-worker mode (reloads on SIGUSR2, stops on SIGTERM).
set -euo pipefail

IMAGE="${HAPROXY_IMAGE:-teamtext-haproxy:2.6}"
SUITE="${HAPROXY_DEBIAN_SUITE:-bookworm}"

log() { printf 'haproxy-image: %s\n' "$*" >&2; }
# shellcheck source=lib/debian.sh
. "$(dirname "$0")/lib/debian.sh"

if docker image inspect "$IMAGE" >/dev/null 2>&1; then
  exit 0
fi
log "building $IMAGE from Debian $SUITE packages (about a minute, once per machine)"
ensure_debootstrap || exit 1
MIRROR=$(debian_mirror "${HAPROXY_DEBIAN_MIRROR:-}")

ROOT=$(mktemp -d /tmp/teamtext-haproxyroot.XXXXXX)
trap 'rm -rf "$ROOT"' EXIT
debootstrap_minbase "$ROOT" "$SUITE" "$MIRROR" --include=haproxy,openssl || exit 1
rm -f "$ROOT.log"

cat >"$ROOT/usr/local/bin/docker-entrypoint.sh" <<'ENTRY'
#!/bin/sh
# A self-signed certificate for TLS_NAME on first start unless /certs holds one.
set -e
pem=/certs/teamtext.pem
if [ ! -s "$pem" ]; then
  name="${TLS_NAME:-localhost}"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 825 \
    -subj "/CN=$name" -addext "subjectAltName=DNS:$name,DNS:localhost,IP:127.0.0.1" \
    -keyout /certs/teamtext.key -out /certs/teamtext.crt 2>/dev/null
  cat /certs/teamtext.crt /certs/teamtext.key >"$pem"
  chmod 600 /certs/teamtext.key "$pem"
  echo "generated a self-signed certificate for $name in /certs/teamtext.crt"
fi
exec "$@"
ENTRY
chmod 755 "$ROOT/usr/local/bin/docker-entrypoint.sh"
rm -rf "$ROOT/var/cache/apt/archives/"*.deb "$ROOT/var/lib/apt/lists/"* "$ROOT/usr/share/doc" "$ROOT/usr/share/man"
mkdir -p "$ROOT/certs" "$ROOT/run/haproxy"
chroot "$ROOT" chown haproxy:haproxy /certs /run/haproxy

import_root "$ROOT" "$IMAGE" \
  --change 'USER haproxy' \
  --change 'EXPOSE 8443' \
  --change 'VOLUME /certs' \
  --change 'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]' \
  --change 'CMD ["haproxy", "-W", "-db", "-f", "/etc/haproxy/haproxy.cfg"]'
log "built $IMAGE"
