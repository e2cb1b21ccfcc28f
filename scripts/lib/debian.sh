# Shared by the image scripts that build a root file system from Debian
# packages with debootstrap (no registry to pull images from). Source it
# after defining log().

# ensure_debootstrap installs debootstrap when it is missing (as root).
ensure_debootstrap() {
  command -v debootstrap >/dev/null 2>&1 && return 0
  if [ "$(id -u)" -ne 0 ]; then
    log "debootstrap is missing and we are not root: install it (apt-get install debootstrap) and retry"
    return 1
  fi
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
}

# debian_mirror prints $1 when set, else the mirror apt already uses on
# this machine, else Debian's default.
debian_mirror() {
  local m="${1:-}"
  if [ -z "$m" ]; then
    m=$(grep -hoE '^URIs: *[^ ]+' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n1 | awk '{print $2}' || true)
    [ -n "$m" ] || m=$(grep -hoE '^deb +[^ ]+' /etc/apt/sources.list 2>/dev/null | head -n1 | awk '{print $2}' || true)
    [ -n "$m" ] || m=http://deb.debian.org/debian
  fi
  printf '%s\n' "$m"
}

# debootstrap_minbase ROOT SUITE MIRROR [OPTION...] bootstraps a minbase
# root file system of SUITE from MIRROR in ROOT (more debootstrap options
# after), logging to ROOT.log; when it fails it shows the log's end.
debootstrap_minbase() {
  local root=$1 suite=$2 mirror=$3
  shift 3
  debootstrap --variant=minbase "$@" "$suite" "$root" "$mirror" >"$root.log" 2>&1 || {
    tail -n 30 "$root.log" >&2; return 1; }
}

# import_root ROOT IMAGE [--change INSTRUCTION...] imports the root file
# system in ROOT as the docker image IMAGE, with the usual PATH and the
# given changes.
import_root() {
  local root=$1 image=$2
  shift 2
  tar -C "$root" -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    "$@" - "$image" >/dev/null
}
