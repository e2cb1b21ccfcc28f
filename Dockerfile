# syntax=docker/dockerfile:1
# teamtext's container image: a static binary on scratch, run as a non-root
# user, with CA certificates (Twilio, webhooks over https, SMTP STARTTLS)
# and the time-zone database (teams have time zones).
#
# `make image` builds this file where the builder image can be pulled; where
# it cannot (no registry), scripts/image.sh builds the binary on the host and
# assembles the same final stage from a scratch context (Dockerfile.scratch
# there: keep the two final stages alike).
ARG GO_VERSION=1.26

FROM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/teamtext ./app/teamtext \
 && mkdir -p /out/etc && echo 'teamtext:x:65532:65532:teamtext:/nonexistent:/sbin/nologin' >/out/etc/passwd \
 && echo 'teamtext:x:65532:' >/out/etc/group \
 && cp -rL /usr/share/zoneinfo /out/zoneinfo && rm -rf /out/zoneinfo/right /out/zoneinfo/posix

FROM scratch
ARG VERSION=dev
ARG REVISION=unknown
LABEL org.opencontainers.image.title="teamtext" \
      org.opencontainers.image.description="Self-hosted group texting for sports teams and clubs" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="https://github.com/teamtext/teamtext" \
      org.opencontainers.image.licenses="proprietary"
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/zoneinfo /usr/share/zoneinfo
COPY --from=build /out/etc/passwd /out/etc/group /etc/
COPY --from=build /out/teamtext /teamtext
USER 65532:65532
ENV ADDR=:8080 ADMIN_ADDR=:8081
EXPOSE 8080 8081
HEALTHCHECK --interval=10s --timeout=4s --start-period=10s --retries=3 CMD ["/teamtext", "healthcheck"]
ENTRYPOINT ["/teamtext"]
CMD ["serve"]
