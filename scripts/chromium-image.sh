#!/usr/bin/env bash
# Ensures the headless Chromium image the browser tests (e2e/browser) drive
# exists locally (BROWSER_IMAGE, default teamtext-chromium:bookworm).
#
# No registry is assumed: it is built from Debian packages (debootstrap
# minbase), as scripts/postgres-image.sh does where it cannot pull. The
# chroot's sources get bookworm-updates and bookworm-security too and it is
# upgraded, so chromium-headless-shell comes from the security suite (156 at
# the time of writing) rather than bookworm's main (150); Debian ships
# Chromium's security releases only there. Set CHROMIUM_SECURITY=0 to stay on
# main's version. Fonts (Liberation, DejaVu) are included so text renders.
#
# The entrypoint runs chromium-headless-shell as the unprivileged user
# "chromium" with remote debugging on 127.0.0.1:$CHROMIUM_PORT (default
# 9222). Tests run it with host networking, so the browser reaches services
# on the host's loopback and the DevTools endpoint stays on loopback too.
#
# A build took 4 min 47 s here the first time and 1 min 39 s the second (2
# cores; most of it downloading and unpacking about 200 packages). The image
# is about 620 MB: Chromium is 280 MB of it and Mesa's LLVM, which comes in
# through libgbm1, 110 MB.
set -euo pipefail

IMAGE="${BROWSER_IMAGE:-teamtext-chromium:bookworm}"
SUITE="${CHROMIUM_DEBIAN_SUITE:-bookworm}"

log() { printf 'chromium-image: %s\n' "$*" >&2; }
# shellcheck source=lib/debian.sh
. "$(dirname "$0")/lib/debian.sh"

if docker image inspect "$IMAGE" >/dev/null 2>&1; then
  exit 0
fi
log "building $IMAGE from Debian $SUITE packages (a few minutes, once per machine)"
ensure_debootstrap || exit 1
MIRROR=$(debian_mirror "${CHROMIUM_DEBIAN_MIRROR:-}")
# Debian's security archive sits beside the main one on the official hosts
# (…/debian → …/debian-security); a mirror laid out otherwise can name it.
SECURITY_MIRROR="${CHROMIUM_SECURITY_MIRROR:-${MIRROR%/}-security}"

ROOT=$(mktemp -d /tmp/teamtext-chromiumroot.XXXXXX)
trap 'rm -rf "$ROOT" "$ROOT.log"' EXIT
start=$SECONDS

log "debootstrap $SUITE from $MIRROR"
debootstrap_minbase "$ROOT" "$SUITE" "$MIRROR" || exit 1

{
  echo "deb $MIRROR $SUITE main"
  echo "deb $MIRROR $SUITE-updates main"
  if [ "${CHROMIUM_SECURITY:-1}" = 1 ]; then
    echo "deb $SECURITY_MIRROR $SUITE-security main"
  fi
} >"$ROOT/etc/apt/sources.list"

# apt inside the chroot: no /proc or /dev is mounted (nothing here needs
# them), so there is nothing to unmount before the root is removed.
in_root() { chroot "$ROOT" env DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 "$@"; }
log "installing chromium-headless-shell and fonts"
{
  in_root apt-get update -q &&
  in_root apt-get upgrade -y -q &&
  in_root apt-get install -y -q --no-install-recommends \
    chromium-headless-shell fonts-liberation fonts-dejavu-core
} >"$ROOT.log" 2>&1 || { tail -n 30 "$ROOT.log" >&2; exit 1; }
version=$(in_root dpkg-query -W -f='${Version}' chromium-headless-shell)
log "chromium-headless-shell $version"

in_root useradd --create-home --shell /usr/sbin/nologin chromium
cat >"$ROOT/usr/local/bin/chromium-entrypoint.sh" <<'ENTRY'
#!/bin/sh
# Headless Chromium with the DevTools protocol on 127.0.0.1:$CHROMIUM_PORT.
# Extra arguments (the image's CMD, or the container's command) are passed on.
# The binary itself, not /usr/bin's wrapper (a shell that does not exec it):
# then SIGTERM reaches Chromium and `docker stop` is immediate.
set -e
exec /usr/lib/chromium/chromium-headless-shell \
  --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
  --no-first-run --no-default-browser-check --disable-extensions \
  --disable-background-networking --disable-sync --metrics-recording-only \
  --user-data-dir="$(mktemp -d /tmp/chromium.XXXXXX)" \
  --remote-debugging-address=127.0.0.1 \
  --remote-debugging-port="${CHROMIUM_PORT:-9222}" \
  "$@"
ENTRY
chmod 755 "$ROOT/usr/local/bin/chromium-entrypoint.sh"
rm -rf "$ROOT/var/cache/apt/archives/"*.deb "$ROOT/var/cache/apt/"*.bin "$ROOT/var/lib/apt/lists/"* \
  "$ROOT/usr/share/doc" "$ROOT/usr/share/man" "$ROOT/usr/share/info" "$ROOT/usr/share/locale"

log "importing"
import_root "$ROOT" "$IMAGE" \
  --change 'ENV LANG=C.UTF-8' \
  --change 'ENV CHROMIUM_PORT=9222' \
  --change 'USER chromium' \
  --change 'WORKDIR /home/chromium' \
  --change 'ENTRYPOINT ["/usr/local/bin/chromium-entrypoint.sh"]' \
  --change 'CMD ["about:blank"]'
log "built $IMAGE with chromium-headless-shell $version in $((SECONDS - start))s"
