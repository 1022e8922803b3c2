package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// What `go install ./cmd/web` gives a fresh clone, with no npm and no node_modules, serves
// the styled product: the tracked files are copied to an empty directory, built there with
// `go build`, run, and the stylesheet the page links is fetched.
func TestBuiltBinaryServesStyledPages(t *testing.T) {
	t.Parallel()
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("builds the binary") // never under CI: there it always runs
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	files, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil && os.Getenv("CI") == "true" {
		t.Fatalf("CI runs in a git checkout, but git ls-files failed: %v", err)
	} else if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	clone := t.TempDir()
	for _, name := range strings.Split(strings.TrimRight(string(files), "\x00"), "\x00") {
		b, err := os.ReadFile(filepath.Join(root, name))
		if os.IsNotExist(err) {
			continue // deleted in the working tree
		} else if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(clone, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(clone, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(clone, "node_modules")); !os.IsNotExist(err) {
		t.Fatal("node_modules is tracked")
	}
	bin := filepath.Join(t.TempDir(), "zpulse")
	// -trimpath (as make build): the packages' build cache entries do not depend on the clone's
	// directory, so a run after the first compiles nothing that did not change.
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "./cmd/web")
	build.Dir = clone
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	cmd := exec.Command(bin, "--addr", "127.0.0.1:0", "--demo=false", "--log-format", "json")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("zpulse did not exit cleanly: %v", err)
		}
	}()
	// The "serving" log line says where; read lines until it comes.
	lines := bufio.NewScanner(stdout)
	var url string
	for url == "" && lines.Scan() {
		var line struct{ Msg, URL string }
		if json.Unmarshal(lines.Bytes(), &line) == nil && line.Msg == "zpulse is serving" {
			url = strings.TrimSuffix(line.URL, "/")
		}
		if strings.Contains(lines.Text(), "assets are not built") {
			t.Errorf("the binary says its assets are not built: %s", lines.Text())
		}
	}
	if url == "" {
		t.Fatal("zpulse exited before serving")
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()

	page := fetch(t, url+"/", "text/html")
	m := regexp.MustCompile(`<link rel="stylesheet" href="([^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the page links no stylesheet")
	}
	if css := fetch(t, url+m[1], "text/css"); len(css) < 10_000 || !strings.Contains(css, ".btn-primary") {
		t.Errorf("%s is not the built stylesheet (%d bytes)", m[1], len(css))
	}
}

func fetch(t *testing.T, url, contentType string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), contentType) {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return string(b)
}
