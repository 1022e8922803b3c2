package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/redis/go-redis/v9"
)

// Open a job from the queue page: its page shows the payload and the error of its failed
// attempt, and follows it live when a consumer leases it again.
func TestOpenJobFromQueuePage(t *testing.T) {
	t.Parallel()
	_, addr := ownRedis(t)
	z := startZpulse(t, addr)
	base := z.URL + "/api/v1/queues/mail"
	if status, body := postJSON(t, base+"/jobs", map[string]any{"id": "invoice-7", "priority": 2, "payload": map[string]string{"to": "ana@example.com"}}); status != http.StatusCreated {
		t.Fatalf("enqueue: %d %s", status, body)
	}
	status, body := postJSON(t, base+"/poll", map[string]any{"lease_ms": 30000})
	token := between(body, `"token":"`, `"`)
	if status != http.StatusOK || token == "" {
		t.Fatalf("leased poll: %d %s", status, body)
	}
	if status, body := postJSON(t, base+"/jobs/invoice-7/nack", map[string]any{"token": token, "error": "smtp: 451 mailbox busy"}); status != http.StatusOK {
		t.Fatalf("nack: %d %s", status, body)
	}

	ctx := newBrowser(t)
	do(t, ctx, "open the queue", chromedp.Navigate(z.URL+"/queues/mail"))
	waitLive(t, ctx)
	waitJS(t, ctx, "the job's link", `document.querySelector('a[data-testid="job-link"]') !== null`, eventWait)
	clickAndLoad(t, ctx, "open the job", `a[data-testid="job-link"]`)
	waitJS(t, ctx, "the job's page", `document.querySelector('[data-testid="job-payload"]') !== null`, eventWait)
	if got := text(t, ctx, `[data-testid="job-payload"]`); !strings.Contains(got, `"to": "ana@example.com"`) {
		t.Errorf("payload = %q", got)
	}
	if got := text(t, ctx, `[data-testid="job-errors"] li:last-child [data-testid="job-error"]`); got != "smtp: 451 mailbox busy" {
		t.Errorf("last error = %q", got)
	}
	if got := text(t, ctx, `[data-testid="job-state"]`); got != "Waiting" {
		t.Errorf("state = %q", got)
	}
	waitLive(t, ctx)
	// A consumer leases it again: the page shows it in flight without a reload.
	if status, body := postJSON(t, base+"/poll", map[string]any{"lease_ms": 30000}); status != http.StatusOK {
		t.Fatalf("second poll: %d %s", status, body)
	}
	waitJS(t, ctx, "the job in flight", `(document.querySelector('[data-testid="job-state"]') || {}).textContent === "In flight"`, eventWait)
	if got := text(t, ctx, `[data-testid="job-attempts"]`); !strings.HasPrefix(got, "2 of") {
		t.Errorf("attempts = %q", got)
	}
}

// Requeue all dead jobs: the queue page's link asks first, saying how many; the confirmed
// post moves them all and the page says so.
func TestRequeueAllDeadAfterConfirmation(t *testing.T) {
	t.Parallel()
	rdb, addr := ownRedis(t)
	z := startZpulse(t, addr)
	bg := context.Background()
	for i := 0; i < 3; i++ {
		rdb.ZAdd(bg, "{queue:mail}:dead", redis.Z{Score: float64(1_700_000_000_000 + i), Member: fmt.Sprintf("dead-%d", i)})
	}
	rdb.SAdd(bg, "zpulse:index:queues", "mail")

	ctx := newBrowser(t)
	do(t, ctx, "open the queue", chromedp.Navigate(z.URL+"/queues/mail"))
	waitJS(t, ctx, "the requeue-all link", `document.querySelector('[data-testid="requeue-all"]') !== null`, eventWait)
	clickAndLoad(t, ctx, "ask to requeue all", `[data-testid="requeue-all"]`)
	waitJS(t, ctx, "the confirmation", `document.querySelector('[data-testid="confirm-requeue-dead"]') !== null`, eventWait)
	if got := text(t, ctx, `[data-testid="confirm-what"]`); !strings.Contains(got, "each of the 3 dead jobs of queue mail") {
		t.Errorf("the confirmation says %q", got)
	}
	if n := rdb.ZCard(bg, "queue:mail").Val(); n != 0 {
		t.Fatalf("something moved before the confirmation: %d", n)
	}
	clickAndLoad(t, ctx, "confirm", `[data-testid="confirm-requeue-dead"]`)
	waitJS(t, ctx, "the outcome on the queue page", `document.body.textContent.includes("Requeued 3 dead jobs.")`, eventWait)
	if n, d := rdb.ZCard(bg, "queue:mail").Val(), rdb.ZCard(bg, "{queue:mail}:dead").Val(); n != 3 || d != 0 {
		t.Fatalf("after the requeue: %d waiting, %d dead", n, d)
	}
}

// Pause a queue on its page: polls through zpulse answer 204 until it is resumed; the page
// says consumers reading Redis directly are not stopped.
func TestPauseQueueOnPage(t *testing.T) {
	t.Parallel()
	_, addr := ownRedis(t)
	z := startZpulse(t, addr)
	base := z.URL + "/api/v1/queues/mail"
	for _, id := range []string{"a", "b"} {
		postJSON(t, base+"/jobs", map[string]any{"id": id, "priority": 1})
	}
	ctx := newBrowser(t)
	do(t, ctx, "open the queue", chromedp.Navigate(z.URL+"/queues/mail"))
	waitLive(t, ctx)
	do(t, ctx, "pause", clickJS(`[data-testid="pause"]`))
	waitJS(t, ctx, "the paused note", `document.querySelector('[data-testid="paused-note"]') !== null`, eventWait)
	if got := text(t, ctx, `[data-testid="paused-note"]`); !strings.Contains(got, "not stopped") {
		t.Errorf("paused note = %q", got)
	}
	for _, poll := range []map[string]any{{}, {"lease_ms": 30000}} {
		if status, body := postJSON(t, base+"/poll", poll); status != http.StatusNoContent {
			t.Fatalf("poll %v while paused: %d %s", poll, status, body)
		}
	}
	do(t, ctx, "resume", clickJS(`[data-testid="resume"]`))
	waitJS(t, ctx, "the pause button again", `document.querySelector('[data-testid="pause"]') !== null`, eventWait)
	if status, body := postJSON(t, base+"/poll", map[string]any{}); status != http.StatusOK || !strings.Contains(body, `"id":"a"`) {
		t.Fatalf("poll after resume: %d %s", status, body)
	}
}

// between returns the text of s between the first from and the next to, or "".
func between(s, from, to string) string {
	_, rest, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, to)
	return v
}

// clickAndLoad clicks a link or a form's button that loads a page, and waits for that page.
// The click is one script, so a live fragment that replaces the element between finding it
// and clicking it (as the first push after subscribing does) cannot make it miss.
func clickAndLoad(t *testing.T, ctx context.Context, what, selector string) {
	t.Helper()
	resp, err := chromedp.RunResponse(ctx, clickJS(selector))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if resp.Status != http.StatusOK {
		t.Fatalf("%s: status %d at %s", what, resp.Status, resp.URL)
	}
}

// clickJS clicks the element a selector finds, in one script (see clickAndLoad).
func clickJS(selector string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](`document.querySelector(` + jsString(selector) + `).click()`)
}
