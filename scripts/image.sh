#!/usr/bin/env bash
# Builds teamtext's container image (IMAGE, default teamtext:latest).
#
# With a registry it builds ./Dockerfile (golang builder, scratch final
# stage). Where the builder image cannot be pulled it builds the static
# binary on the host (CGO_ENABLED=0) and assembles the same scratch image
# from a context holding the binary, the host's CA bundle and zoneinfo, and
# a passwd entry for the non-root user, as `make pg-image` does for Postgres.
set -euo pipefail

IMAGE="${IMAGE:-teamtext:latest}"
VERSION="${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}"
REVISION="$(git rev-parse HEAD 2>/dev/null || echo unknown)"
GO_VERSION="$(go env GOVERSION | sed -E 's/^go([0-9]+\.[0-9]+).*/\1/')"

log() { printf 'image: %s\n' "$*" >&2; }

if timeout 120 docker pull -q "golang:${GO_VERSION}-bookworm" >/dev/null 2>&1; then
  log "building ./Dockerfile"
  docker build -q --build-arg GO_VERSION="$GO_VERSION" --build-arg VERSION="$VERSION" \
    --build-arg REVISION="$REVISION" -t "$IMAGE" . >/dev/null
  log "built $IMAGE ($(docker image inspect -f '{{.Size}}' "$IMAGE") bytes)"
  exit 0
fi

log "golang:${GO_VERSION}-bookworm cannot be pulled; building the binary on the host"
CTX=$(mktemp -d /tmp/teamtext-image.XXXXXX)
trap 'rm -rf "$CTX"' EXIT
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o "$CTX/teamtext" ./app/teamtext
CA=""
for f in /etc/ssl/certs/ca-certificates.crt /etc/pki/tls/certs/ca-bundle.crt /etc/ssl/cert.pem; do
  if [ -s "$f" ]; then CA=$f; break; fi
done
[ -n "$CA" ] || { log "no CA bundle found on the host (install ca-certificates)"; exit 1; }
[ -d /usr/share/zoneinfo/America ] || { log "no /usr/share/zoneinfo on the host (install tzdata)"; exit 1; }
mkdir -p "$CTX/etc/ssl/certs" "$CTX/usr/share"
cp "$CA" "$CTX/etc/ssl/certs/ca-certificates.crt"
# -L: Debian's zoneinfo has symlinks (posix/, localtime); scratch needs files.
cp -rL /usr/share/zoneinfo "$CTX/usr/share/zoneinfo"
# right/ (leap-second variants) and posix/ (copies of the top level) are
# never read by Go.
rm -rf "$CTX/usr/share/zoneinfo/right" "$CTX/usr/share/zoneinfo/posix"
echo 'teamtext:x:65532:65532:teamtext:/nonexistent:/sbin/nologin' >"$CTX/etc/passwd"
echo 'teamtext:x:65532:' >"$CTX/etc/group"
# The final stage of ./Dockerfile, reading the context instead of the builder.
sed -n '/^FROM scratch/,$p' Dockerfile | sed -E \
  -e 's#^COPY --from=build /out/etc/passwd /out/etc/group /etc/#COPY etc/passwd etc/group /etc/#' \
  -e 's#^COPY --from=build /out/zoneinfo #COPY usr/share/zoneinfo #' \
  -e 's#^COPY --from=build /out/teamtext #COPY teamtext #' \
  -e 's#^COPY --from=build /etc/ssl/#COPY etc/ssl/#' >"$CTX/Dockerfile.scratch"
grep -q -- "--from=" "$CTX/Dockerfile.scratch" && { log "Dockerfile.scratch still reads the builder: update scripts/image.sh"; exit 1; }
docker build -q -f "$CTX/Dockerfile.scratch" --build-arg VERSION="$VERSION" --build-arg REVISION="$REVISION" \
  -t "$IMAGE" "$CTX" >/dev/null
log "built $IMAGE ($(docker image inspect -f '{{.Size}}' "$IMAGE") bytes)"
