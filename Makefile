# teamtext — see README.md. Needs only Go and Docker.
GO       ?= go
BIN      := bin/teamtext
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
PG_IMAGE ?= teamtext-postgres:15
BROWSER_IMAGE ?= teamtext-chromium:bookworm

# testcontainers on machines without a reachable reaper image / inside a
# container (both harmless elsewhere); override from the environment.
export TESTCONTAINERS_RYUK_DISABLED ?= true
export TESTCONTAINERS_HOST_OVERRIDE ?= localhost
export PG_IMAGE
export BROWSER_IMAGE

.PHONY: all build test test-unit test-e2e vet fmt fuzz bench bench-sql run pg-image browser-image clean client image haproxy-image up down test-deploy bench-deploy bench-dashboard bench-carriers

all: build

build: ## bin/teamtext
	$(GO) build -trimpath -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./app/teamtext

pg-image: ## the Postgres image tests and `make run` use (pull, else build from Debian packages)
	@scripts/postgres-image.sh

browser-image: ## the headless Chromium image e2e/browser drives, from Debian packages (once per machine, about 5 minutes)
	@scripts/chromium-image.sh

image: ## teamtext's container image (IMAGE, default teamtext:latest): ./Dockerfile, else a host-built binary on scratch
	@scripts/image.sh

test-deploy: pg-image ## deploy/compose.yaml end to end through HAProxy over TLS (builds the images, SIGKILLs a replica mid-send)
	$(GO) test -tags deploy -count=1 -timeout 15m -v -run TestComposeDeployment ./e2e/deploy/

bench-deploy: pg-image haproxy-image ## GET /api/v1/team through HAProxy + 2 replicas against one replica (figures in the log)
	$(GO) test -tags deploy -count=1 -timeout 15m -v -run TestProxyThroughput ./e2e/deploy/

haproxy-image: ## the proxy image deploy/compose.yaml uses, from Debian packages
	@scripts/haproxy-image.sh

up: image pg-image haproxy-image ## deploy/compose.yaml: Postgres, migrate, 2 replicas, HAProxy on https://localhost:8443
	@scripts/deploy.sh up

down: ## stop what `make up` started (the database volume stays)
	@scripts/deploy.sh down

client: ## regenerate the Go client (client/) from the 3.0 document the service serves, rendered offline
	PUBLIC_BASE_URL= $(GO) run ./app/teamtext openapi --openapi 3.0 > client/openapi-3.0.json
	$(GO) tool oapi-codegen -config client/oapi-codegen.yaml client/openapi-3.0.json

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...
	$(GO) vet -tags deploy ./e2e/deploy/

test: pg-image browser-image vet ## everything: unit, integration and e2e, with the race detector
	$(GO) test -race -count=1 -timeout 25m ./...

test-unit: ## packages that need no Docker
	$(GO) test -race -count=1 $$($(GO) list ./... | grep -v /e2e)

test-e2e: pg-image browser-image
	$(GO) test -count=1 -timeout 15m ./e2e/...

FUZZTIME     ?= 30s
FUZZTIME_API ?= 3m

# `make test` runs every target's seeds: for FuzzOperations, each operation of
# both documents with each hostile value in each place (about 1,700 requests).
# Mutation starts once those are replayed (about a minute), so the API target
# gets longer; its instrumented build alone takes minutes.
fuzz: pg-image ## mutate every fuzz target (FUZZTIME each, FUZZTIME_API for the API)
	$(GO) test ./e2e/ -run=^$$ -fuzz=^FuzzOperations$$ -fuzztime=$(FUZZTIME_API) -parallel=2
	$(GO) test ./platform/phone/ -run=^$$ -fuzz=FuzzParse -fuzztime=$(FUZZTIME)
	$(GO) test ./platform/auth/ -run=^$$ -fuzz=FuzzParseBearer -fuzztime=$(FUZZTIME)
	$(GO) test ./modules/messaging/internal/domain/ -run=^$$ -fuzz=FuzzSegments -fuzztime=$(FUZZTIME)
	$(GO) test ./modules/messaging/internal/domain/ -run=^$$ -fuzz=FuzzFindTags -fuzztime=$(FUZZTIME)
	$(GO) test ./modules/webhooks/internal/signature/ -run=^$$ -fuzz=FuzzParseVerify -fuzztime=$(FUZZTIME)

bench: pg-image ## load harness (writes docs/BENCHMARKS.md), then bench-sql
	$(GO) run ./e2e/bench -out docs/BENCHMARKS.md
	@$(MAKE) --no-print-directory bench-sql

# The statements behind the bench's scenarios, each two ways in one run:
# "repo", the repository method the service calls, and "pgx", the same
# text from the same builder sent raw. One package at a time (-p 1), so
# that no two share the machine's CPUs.
BENCH_SQL      ?= .
BENCHTIME_SQL  ?= 1s
BENCH_SQL_PKGS := ./modules/roster/internal/postgres/ ./modules/billing/internal/postgres/ \
	./modules/messaging/internal/postgres/ ./modules/webhooks/internal/postgres/

bench-sql: pg-image ## the bench's statements beside their repositories' paths (testing.B; BENCH_SQL, BENCHTIME_SQL)
	$(GO) test -p 1 -run '^$$' -bench '$(BENCH_SQL)' -benchtime $(BENCHTIME_SQL) -timeout 30m $(BENCH_SQL_PKGS)

bench-dashboard: pg-image ## the dashboard's page, preview and send figures on a 10,000-member team (testing.B; figures in the log)
	$(GO) test ./e2e/ -run '^$$' -bench '^BenchmarkDashboard(Pages|Roster)$$' -benchtime 1x -v -timeout 15m

bench-carriers: ## each carrier adapter's cost per text, Telnyx and Bandwidth beside Twilio (testing.B; figures in the log)
	$(GO) test ./modules/messaging/internal/carrier/ -run '^$$' -bench '^BenchmarkAdapterSend$$' -benchtime 2000x -count 3

run: build pg-image ## local service with a demo team (Postgres in Docker, data kept in a volume)
	@scripts/run.sh

clean:
	rm -rf bin
