package e2e

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// zpulseBin is the server binary, built once for the package by TestMain.
var zpulseBin string

// parallel is how many tests run side by side unless -parallel says otherwise: each waits on
// its browser tab, its servers and their ticks far more than on the CPU, so more than go
// test's default (GOMAXPROCS) run at once. Every test has its own Redis and zpulse.
const parallel = 4

func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", strconv.Itoa(parallel))
	}
	os.Exit(runTests(m))
}

// runTests builds the binary, runs the tests, and cleans up;
// it returns the exit code so that deferred cleanups run before os.Exit.
func runTests(m *testing.M) int {
	// The binary embeds static/dist, which `make assets` writes; without it pages have no
	// htmx and nothing here could work.
	if _, err := os.Stat(filepath.Join("..", "static", "dist", "app.css")); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: static/dist/app.css is missing: run `make assets` first (make test does)")
		return 1
	}
	dir, err := os.MkdirTemp("", "zpulse-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	zpulseBin = filepath.Join(dir, "zpulse")
	// -trimpath as make build and cmd/web's install test build it: one set of cached packages.
	build := exec.Command("go", "build", "-trimpath", "-o", zpulseBin, "./cmd/web")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: go build ./cmd/web: %v\n%s", err, out)
		return 1
	}
	defer func() {
		if browser.stop != nil {
			browser.stop()
		}
	}()
	return m.Run()
}
