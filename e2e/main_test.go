package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/zpulse/zpulse/internal/redistest"
)

var (
	// zpulseBin is the server binary, built once for the package by TestMain.
	zpulseBin string
	// sharedRedis serves every test that does not need a Redis of its own.
	sharedRedis *redistest.Server
)

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

// runTests builds the binary and starts the shared Redis, runs the tests, and cleans up;
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
	build := exec.Command("go", "build", "-o", zpulseBin, "./cmd/web")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: go build ./cmd/web: %v\n%s", err, out)
		return 1
	}

	sharedRedis, err = redistest.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: redistest:", err)
		return 1
	}
	defer sharedRedis.Close()
	defer func() {
		if browser.stop != nil {
			browser.stop()
		}
	}()
	return m.Run()
}
