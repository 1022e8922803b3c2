package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// Find dead jobs by what they hold from the queue page's search box, tick them, requeue them:
// the confirmation says what will happen and nothing moves before it; the confirmed post
// requeues exactly the ticked jobs and the queue page says how many. The search page passes
// axe-core.
func TestSearchSelectAndBulkRequeue(t *testing.T) {
	t.Parallel()
	rdb, addr := ownRedis(t)
	z := startZpulse(t, addr)
	base := z.URL + "/api/v1/queues/mail"
	for i := range 5 {
		to := "bob@example.org"
		if i%2 == 0 {
			to = "Ana@Example.org"
		}
		if status, body := postJSON(t, base+"/jobs", map[string]any{"id": fmt.Sprintf("mail-%d", i), "priority": 2, "payload": map[string]string{"to": to}}); status != http.StatusCreated {
			t.Fatalf("enqueue: %d %s", status, body)
		}
	}
	if status, body := postJSON(t, base+"/bulk", map[string]any{"action": "dead", "match": map[string]string{"state": "waiting"}}); status != http.StatusOK || !strings.Contains(body, `"done":5`) {
		t.Fatalf("kill them all: %d %s", status, body)
	}
	axe, err := os.ReadFile(filepath.Join("..", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatalf("axe-core is an npm devDependency (make assets installs it): %v", err)
	}

	ctx := newBrowser(t)
	do(t, ctx, "open the queue", chromedp.Navigate(z.URL+"/queues/mail"),
		chromedp.SendKeys(`#job-search-q`, "ana@"), chromedp.SetValue(`#job-search-state`, "dead"))
	clickAndLoad(t, ctx, "search", `[data-testid="job-search-go"]`)
	waitJS(t, ctx, "the matches", `document.querySelectorAll('[data-testid="job-match"]').length === 3`, eventWait)
	if got := text(t, ctx, `[data-testid="search-summary"]`); !strings.Contains(got, "3 matches in 5 jobs scanned") {
		t.Errorf("summary = %q", got)
	}
	injectAxe(t, ctx, axe)
	for _, v := range axeViolations(t, ctx) {
		t.Errorf("search page: %s", v)
	}
	do(t, ctx, "tick two", clickJS(`tr[data-job="mail-0"] [data-testid="select-job"]`), clickJS(`tr[data-job="mail-4"] [data-testid="select-job"]`))
	clickAndLoad(t, ctx, "ask to requeue", `[data-testid="bulk-requeue"]`)
	waitJS(t, ctx, "the confirmation", `document.querySelector('[data-testid="confirm-bulk"]') !== null`, eventWait)
	if got := text(t, ctx, `[data-testid="confirm-what"]`); !strings.Contains(got, "Each of the 2 selected jobs of queue mail goes back to the queue") {
		t.Errorf("the confirmation says %q", got)
	}
	bg := context.Background()
	if n := rdb.ZCard(bg, "queue:mail").Val(); n != 0 {
		t.Fatalf("something moved before the confirmation: %d", n)
	}
	clickAndLoad(t, ctx, "confirm", `[data-testid="confirm-bulk"]`)
	waitJS(t, ctx, "the outcome on the queue page", `document.body.textContent.includes("Requeued 2 jobs.")`, eventWait)
	if got := rdb.ZRange(bg, "queue:mail", 0, -1).Val(); strings.Join(got, ",") != "mail-0,mail-4" {
		t.Fatalf("waiting after the requeue: %v", got)
	}
	if n := rdb.ZCard(bg, "{queue:mail}:dead").Val(); n != 3 {
		t.Fatalf("%d dead after the requeue, want 3", n)
	}
}

// Edit a dead job before its retry from its page: a new payload and priority, one post; the
// job is waiting again at the new priority with the new payload, and its history says what
// changed (sizes, never the payload). The page passes axe-core.
func TestEditDeadJobAndRetry(t *testing.T) {
	t.Parallel()
	rdb, addr := ownRedis(t)
	z := startZpulse(t, addr)
	base := z.URL + "/api/v1/queues/fixes"
	if status, body := postJSON(t, base+"/jobs", map[string]any{"id": "fix-1", "priority": 3, "payload": map[string]string{"to": "typo@exmaple.org"}}); status != http.StatusCreated {
		t.Fatalf("enqueue: %d %s", status, body)
	}
	if status, body := postJSON(t, base+"/bulk", map[string]any{"action": "dead", "ids": []string{"fix-1"}}); status != http.StatusOK || !strings.Contains(body, `"done":1`) {
		t.Fatalf("kill it: %d %s", status, body)
	}
	axe, err := os.ReadFile(filepath.Join("..", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatalf("axe-core is an npm devDependency (make assets installs it): %v", err)
	}
	ctx := newBrowser(t)
	do(t, ctx, "open the dead job", chromedp.Navigate(z.URL+"/queues/fixes/jobs/fix-1"))
	waitJS(t, ctx, "the retry form", `document.querySelector('[data-testid="retry-form"]') !== null`, eventWait)
	injectAxe(t, ctx, axe)
	for _, v := range axeViolations(t, ctx) {
		t.Errorf("dead job page: %s", v)
	}
	do(t, ctx, "edit", chromedp.SetValue(`[data-testid="retry-payload"]`, `{"to":"typo@example.org"}`),
		chromedp.SetValue(`#f-retry-priority`, "1"))
	clickAndLoad(t, ctx, "retry", `[data-testid="retry-submit"]`)
	waitJS(t, ctx, "the edit in the history", `document.querySelector('[data-testid="job-edit"]') !== null`, eventWait)
	if got := text(t, ctx, `[data-testid="job-edit"]`); !strings.Contains(got, "priority 1 (was 3)") || strings.Contains(got, "example.org") {
		t.Errorf("the history says %q, want the priority change and no payload", got)
	}
	bg := context.Background()
	score, err := rdb.ZScore(bg, "queue:fixes", "fix-1").Result()
	if err != nil || int64(score)/1e13 != 1 {
		t.Fatalf("fix-1 waits with score %v (%v), want priority 1", score, err)
	}
	if n := rdb.ZCard(bg, "{queue:fixes}:dead").Val(); n != 0 {
		t.Errorf("%d dead after the retry, want 0", n)
	}
	status, body := getBody(t, base+"/jobs/fix-1")
	if status != http.StatusOK || !strings.Contains(body, `"typo@example.org"`) {
		t.Errorf("the job after the retry: %d %s", status, body)
	}
}
