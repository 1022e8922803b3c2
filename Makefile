# zpulse. `make run` serves the dashboard; `make test` checks everything (real Redis, real Chromium).
GO       ?= go
TEMPL    := $(GO) tool templ
TAILWIND := BROWSERSLIST_IGNORE_OLD_DATA=1 node_modules/.bin/tailwindcss
DIST     := static/dist
ASSETS   := $(DIST)/app.css $(DIST)/htmx.min.js $(DIST)/ws.js $(DIST)/app.js $(DIST)/theme.js $(DIST)/favicon.svg
TEMPLS   := $(wildcard views/*.templ)
# FUZZ lists the fuzz targets as <package>:<target>, one word each: go test fuzzes one target
# of a package per run. `make fuzz` runs each for FUZZTIME; `make test` for a few seconds.
FUZZ     := ./internal/redisrepo:FuzzKeysInjective ./internal/web:FuzzDecodeJSON ./internal/web:FuzzEntriesCursor
FUZZTIME ?= 30s

.PHONY: run test fuzz build generate dev bench assets templ check-generated clean

## run: build what is needed, then serve (embedded in-memory Redis with demo data unless REDIS_URL is set)
run: assets
	$(GO) run ./cmd/web $(ARGS)

## test: generated code is fresh, vet, then every test with the race detector, then each fuzz target for 3 s
test: assets check-generated
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...
	@$(MAKE) --no-print-directory fuzz FUZZTIME=3s

## fuzz: each fuzz target for FUZZTIME (30s unless given: make fuzz FUZZTIME=5m)
fuzz:
	@set -e; for f in $(FUZZ); do \
		echo "fuzz $${f#*:} in $${f%%:*} for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$${f#*:}\$$" -fuzztime $(FUZZTIME) $${f%%:*}; \
	done

## build: bin/zpulse, one binary with the assets embedded
build: assets
	CGO_ENABLED=0 $(GO) build -trimpath -o bin/zpulse ./cmd/web

## generate: templ code, Tailwind CSS, htmx copied from npm
generate: templ assets

## bench: the benchmarks, with figures
bench: assets
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

assets: $(ASSETS)

node_modules: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch node_modules

$(DIST)/app.css: node_modules tailwind.config.js static/src/app.css $(TEMPLS)
	$(TAILWIND) -c tailwind.config.js -i static/src/app.css -o $@ --minify
	@touch $@

$(DIST)/htmx.min.js: node_modules
	cp node_modules/htmx.org/dist/htmx.min.js $@

$(DIST)/ws.js: node_modules
	cp node_modules/htmx-ext-ws/dist/ws.js $@

$(DIST)/app.js $(DIST)/theme.js $(DIST)/favicon.svg: $(DIST)/%: static/src/%
	cp $< $@

clean:
	rm -rf bin node_modules $(filter-out $(DIST)/.gitkeep,$(wildcard $(DIST)/*))
