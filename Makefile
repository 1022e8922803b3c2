# zpulse. `make run` serves the dashboard; `make test` checks everything (real Redis, real Chromium).
GO       ?= go
TEMPL    := $(GO) tool templ
TAILWIND := BROWSERSLIST_IGNORE_OLD_DATA=1 node_modules/.bin/tailwindcss
DIST     := static/dist
ASSETS   := $(DIST)/app.css $(DIST)/htmx.min.js $(DIST)/ws.js $(DIST)/app.js $(DIST)/theme.js $(DIST)/favicon.svg
# FUZZ lists the fuzz targets as <package>:<target>, one word each: go test fuzzes one target
# of a package per run. `make fuzz` runs each for FUZZTIME; `make test` for a few seconds.
FUZZ     := ./internal/redisrepo/store:FuzzKeysInjective ./internal/redisrepo/store:FuzzSourceLayout ./internal/web/api:FuzzDecodeJSON ./internal/web:FuzzEntriesCursor
FUZZTIME ?= 30s
# FUZZPKGS are FUZZ's packages: `make fuzz` fuzzes them side by side, a package's targets one
# after another. FUZZFLAGS go to each run (-parallel=N: N workers; GOMAXPROCS unless given).
FUZZPKGS  = $(sort $(foreach f,$(FUZZ),$(firstword $(subst :, ,$(f)))))
FUZZFLAGS ?=

# DATES are the calendars test-dates runs the date-dependent packages on: a 28 February before
# no leap day, a leap day, New Year's Eve; each half a minute before midnight, UTC.
DATES    := 2027-02-28 2028-02-29 2030-12-31
DATED    := ./internal/redisrepo/... ./internal/compat ./internal/web ./internal/demo

.PHONY: run test test-dates fuzz build generate dev bench bench-all assets templ check-generated check-assets clean node_modules vet fuzz-package

## run: serve (embedded in-memory Redis with demo data unless REDIS_URL is set); the built
## assets are committed, so this needs no npm. Each step says what it does first: the first
## build downloads and compiles every module, over a minute with nothing else to show.
run:
	@echo "make run: fetching Go modules (the first time only)…"
	@$(GO) mod download
	@echo "make run: compiling zpulse into bin/zpulse (a minute or two the first time, seconds after)…"
	@$(GO) build -o bin/zpulse ./cmd/web
	@echo "make run: starting bin/zpulse $(ARGS)"
	@./bin/zpulse $(ARGS)

## test: generated code and built assets are fresh and vet is clean (side by side), then every
## test: the browser tests (./e2e) in a lane of their own, and the rest with the race detector
## beside them, while each fuzz target runs for 3 s on one worker (the lanes' output printed
## after the tests). e2e's test binary only drives Chromium and zpulse processes built without
## the race detector (the in-process servers are raced in cmd/web and internal/web); raced,
## its protocol decoding took twice the CPU and 17 s more.
## The lanes share the cores by priority: the browser lane at the normal one (its tests wait
## on pages within deadlines), the race and fuzz lanes niced, and the race lane running four
## packages at once, so that the time its packages spend waiting on Redis and on ticks goes to
## the others rather than to idle cores (docs/performance.md: 121-145 s with two at once, not
## niced; 89-126 s like this, as fast as the machine's CPU that hour; beside another process
## at normal priority the niced lanes yield to it). A raced binary sleeps
## 1 s on exit for late race reports (GORACE atexit_sleep_ms): a test binary has waited for
## its tests by then, so 0. Test binaries are linked without symbol table and DWARF
## (-ldflags='-s -w'): panics and race reports read the Go symbol tables, which stay.
test:
	@$(MAKE) --no-print-directory -j3 check-generated check-assets vet
	@fuzzlog=$$(mktemp) && e2elog=$$(mktemp) && trap 'rm -f "$$fuzzlog" "$$e2elog"' EXIT && \
	{ nice -n 10 $(MAKE) --no-print-directory fuzz FUZZTIME=3s FUZZFLAGS=-parallel=1 >"$$fuzzlog" 2>&1 & fuzz=$$!; } && \
	{ $(GO) test -count=1 -ldflags='-s -w' ./e2e >"$$e2elog" 2>&1 & e2e=$$!; } && \
	GORACE=atexit_sleep_ms=0 nice -n 10 $(GO) test -race -p 4 -count=1 -ldflags='-s -w' $$($(GO) list ./... | grep -v '/e2e$$'); tests=$$?; \
	wait $$e2e; browser=$$?; cat "$$e2elog"; wait $$fuzz; fuzzed=$$?; cat "$$fuzzlog"; \
	[ $$tests -eq 0 ] && [ $$browser -eq 0 ] && [ $$fuzzed -eq 0 ]

vet:
	$(GO) vet ./...

## test-dates: the packages whose tests date keys, with every redis-server started at each of
## DATES (libfaketime) and the tests' clocks following Redis's (redistest.Main)
test-dates:
	@set -e; for d in $(DATES); do \
		echo "test-dates: Redis at $$d 23:59:30 UTC"; \
		ZPULSE_TEST_REDIS_TIME="$$d 23:59:30" $(GO) test -count=1 $(DATED); \
	done

## fuzz: each fuzz target for FUZZTIME (30s unless given: make fuzz FUZZTIME=5m), the packages
## side by side
fuzz:
	@pids=; for p in $(FUZZPKGS); do \
		$(MAKE) --no-print-directory fuzz-package PKG=$$p & pids="$$pids $$!"; \
	done; rc=0; for pid in $$pids; do wait $$pid || rc=1; done; exit $$rc

# fuzz-package fuzzes FUZZ's targets in PKG one after another; a run's output is printed when
# it ends, so lanes do not interleave. go test passes a -fuzz that matches nothing with a
# warning: that warning fails the run (a renamed target would otherwise never be fuzzed).
fuzz-package:
	@set -e; out=$$(mktemp); trap 'rm -f "$$out"' EXIT; for f in $(filter $(PKG):%,$(FUZZ)); do \
		t=$${f#*:}; \
		{ echo "fuzz $$t in $(PKG) for $(FUZZTIME)"; \
		  $(GO) test -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) $(FUZZFLAGS) $(PKG); } >"$$out" 2>&1 || { cat "$$out"; exit 1; }; \
		cat "$$out"; \
		if grep -q 'no fuzz tests to fuzz' "$$out"; then echo "no fuzz target $$t in $(PKG)"; exit 1; fi; \
	done

## build: bin/zpulse, one binary with the assets embedded
build:
	CGO_ENABLED=0 $(GO) build -trimpath -o bin/zpulse ./cmd/web

## generate: templ code and the built assets (Tailwind CSS, htmx copied from npm); commit both
generate: templ assets

## bench: every speed figure beside its reference, side by side on one private Redis, in
## one table (bench/report; docs/performance.md); BENCHFLAGS=-viewers10k adds 10,000 viewers
bench:
	$(GO) run ./bench/report $(BENCHFLAGS)

## bench-all: every Go benchmark of the packages, with its own figures
bench-all:
	$(GO) test -run '^$$' -bench . -benchmem ./cmd/... ./internal/...

## dev: templ and Tailwind watchers plus the server (restarted by templ on change)
dev: node_modules
	$(TAILWIND) -c tailwind.config.js -i static/src/app.css -o $(DIST)/app.css --watch & \
	$(TEMPL) generate -watch -proxy=http://localhost:8080 -cmd="$(GO) run ./cmd/web"

templ:
	$(TEMPL) generate

# The committed *_templ.go files must be what the .templ files generate.
check-generated:
	@$(TEMPL) generate -check >/dev/null 2>&1 || { echo "*_templ.go are stale: run 'make generate' and commit them"; exit 1; }

# The committed static/dist must be what the sources build: rebuilt into a temporary
# directory and compared file by file (the stylesheet depends on the classes in the views).
check-assets: node_modules
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	$(MAKE) --no-print-directory dist-into OUT="$$tmp" >/dev/null 2>&1 && \
	for f in $(notdir $(ASSETS)); do \
		cmp -s "$$tmp/$$f" $(DIST)/$$f || { echo "static/dist/$$f is stale: run 'make generate' and commit it"; exit 1; }; \
	done

## assets: rebuild static/dist, which is committed (needs node and npm)
assets: node_modules
	@$(MAKE) --no-print-directory dist-into OUT=$(DIST)

# dist-into builds every asset into $(OUT): the minified stylesheet, the minified htmx files
# from npm, the hand-written script and icon.
dist-into:
	$(TAILWIND) -c tailwind.config.js -i static/src/app.css -o $(OUT)/app.css --minify
	cp node_modules/htmx.org/dist/htmx.min.js $(OUT)/htmx.min.js
	cp node_modules/htmx-ext-ws/dist/ws.min.js $(OUT)/ws.js
	cp static/src/app.js static/src/theme.js static/src/favicon.svg $(OUT)/

# node_modules is installed (npm ci) when package-lock.json differs from the copy written after
# the last install, by content rather than by date: a fresh checkout does not reinstall. A
# node_modules that is a symbolic link (a git worktree sharing another checkout's) is never
# installed through, since npm ci would empty the directory it points to.
node_modules:
	@if [ -L node_modules ]; then \
		[ ! -f node_modules/.zpulse-lock ] || cmp -s package-lock.json node_modules/.zpulse-lock || \
			echo "node_modules links to a checkout installed from another package-lock.json: run npm ci there"; \
	elif ! cmp -s package-lock.json node_modules/.zpulse-lock 2>/dev/null; then \
		npm ci --no-audit --no-fund && cp package-lock.json node_modules/.zpulse-lock; \
	fi

clean:
	rm -rf bin node_modules
