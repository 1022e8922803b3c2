package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The limiter page's "All clients" and a board's page on its weekly tab, at both sizes and
// in both themes: axe 0, nothing sideways (issues 34.3, 35.4).
func TestLimiterClientsAndBoardPeriodLooks(t *testing.T) {
	t.Parallel()
	_, addr := ownRedis(t)
	z := startZpulse(t, addr)
	for i := range 60 {
		if status, body := postJSON(t, z.URL+"/api/v1/limiters/default/check", map[string]any{"client": fmt.Sprintf("client-%02d", i)}); status != http.StatusOK {
			t.Fatalf("check: %d %s", status, body)
		}
	}
	req, _ := http.NewRequest(http.MethodPut, z.URL+"/api/v1/boards/sprint", strings.NewReader(`{"periods":["weekly"],"sort_order":"asc","operator":"best"}`))
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("board settings: %v %v", resp, err)
	}
	for i, p := range []string{"ann", "bob", "cy"} {
		if status, body := postJSON(t, z.URL+"/api/v1/boards/sprint/scores", map[string]any{"player": p, "points": 9000 + i*700}); status != http.StatusOK {
			t.Fatalf("submit %s: %d %s", p, status, body)
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, b := getBody(t, z.URL+"/limiters/default"); strings.Count(b, "?client=client-") == 50 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the limiter's clients never listed")
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err := os.MkdirAll(screenshotDir, 0o755); err != nil {
		t.Fatal(err)
	}
	axe, err := os.ReadFile(filepath.Join("..", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatalf("axe-core is an npm devDependency (npm ci installs it): %v", err)
	}
	ctx := newBrowser(t)
	tourPage(t, ctx, z.URL+"/limiters/default?client=client-05", "limiter-all-clients", "/limiters/default", nil, `[data-testid="all-clients"] li`, axe)
	tourPage(t, ctx, z.URL+"/boards/sprint?period=weekly", "sprint-weekly", "/boards/sprint?period=weekly", nil, `[data-player="ann"]`, axe)
}
