package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The audit trail, a board's recent changes, a completed job's page, a player's score timeline, the dead list with its errors and a
// search's marked excerpt, at a laptop and a phone size in light and dark: nothing scrolls
// sideways, axe-core finds no WCAG 2.2 AA violation, and a screenshot of each is saved.
func TestCompletedJobAndTimelineLooks(t *testing.T) {
	t.Parallel()
	_, addr := ownRedis(t)
	z := startZpulse(t, addr, "--demo=false", "--keep-completed-payloads")
	must := func(status int, body string) {
		t.Helper()
		if status/100 != 2 {
			t.Fatalf("%d %s", status, body)
		}
	}
	must(postJSON(t, z.URL+"/api/v1/queues/mail/jobs", map[string]any{"id": "welcome-ann", "priority": 1, "payload": map[string]any{"to": "ann@example.com", "template": "welcome"}}))
	status, body := postJSON(t, z.URL+"/api/v1/queues/mail/poll", map[string]any{"lease_ms": 30000, "consumer": "mailer-eu-1"})
	var d struct{ ID, Token string }
	if err := json.Unmarshal([]byte(body), &d); status != http.StatusOK || err != nil {
		t.Fatalf("poll: %d %s", status, body)
	}
	must(postJSON(t, z.URL+"/api/v1/queues/mail/jobs/"+d.ID+"/ack", map[string]any{"token": d.Token}))
	for _, p := range []int{5, 7, -2} {
		must(postJSON(t, z.URL+"/api/v1/boards/game:2048/scores", map[string]any{"player": "p1", "points": p}))
	}
	axe, err := os.ReadFile(filepath.Join("..", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatalf("axe-core is an npm devDependency (make assets installs it): %v", err)
	}
	if err := os.MkdirAll(screenshotDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct{ name, path, data string }{
		{"completed-job", "/queues/mail/jobs/welcome-ann", `[data-testid="job-completed-at"]`},
		{"completed-tab", "/queues/mail/jobs?state=completed&q=ann@", `[data-testid="job-excerpt"]`},
		{"player-timeline", "/boards/game:2048?player=p1", `[data-testid="score-event"]`},
		{"audit-trail", "/audit", `[data-testid="audit-row"]`},
		{"recent-changes", "/boards/game:2048", `[data-testid="recent-changes"]`},
	} {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			ctx := newBrowserWithin(t, 3*time.Minute)
			tourPage(t, ctx, z.URL+p.path, p.name, p.path, nil, p.data, axe)
		})
	}
}
