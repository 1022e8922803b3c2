// Package e2e holds zpulse's browser end-to-end tests: they build the real server binary,
// run it against a private redis-server, and drive it with headless Chromium (chromedp).
//
// Run them with `make test`, or `make assets && go test -race ./e2e/`. Without a browser they
// skip, except under CI (CI=true), where they fail: install one with apt-get install -y chromium.
package e2e
