package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// laneJS reads the depth a priority's bar shows, or -1 when there is no such bar.
func laneJS(p string) string {
	return `(() => { const l = document.querySelector('[data-priority="` + p + `"]'); return l ? +l.dataset.depth : -1; })()`
}

// The queue page: enqueue through the form (htmx), see priority 2's bar grow live, take the
// job with the API as a consumer would, see it shrink; bad input gets an inline error.
func TestQueueFormAndLiveDepth(t *testing.T) {
	t.Parallel()
	rdb, addr := ownRedis(t)
	z := startZpulse(t, addr)
	ctx := newBrowser(t)
	do(t, ctx, "open the queue", chromedp.Navigate(z.URL+"/queues/email-jobs"))
	waitLive(t, ctx)
	eval[int](t, ctx, `window.__zpulseMarker = 42`)
	if got := eval[int](t, ctx, laneJS("2")); got != 0 {
		t.Fatalf("priority 2's depth before any enqueue = %d, want 0", got)
	}

	enqueueForm := func(id, priority string) {
		t.Helper()
		do(t, ctx, "fill and submit the enqueue form",
			chromedp.Clear(chromedp.ID("f-enqueue-id")),
			chromedp.SendKeys(chromedp.ID("f-enqueue-id"), id),
			chromedp.Clear(chromedp.ID("f-enqueue-priority")),
			chromedp.SendKeys(chromedp.ID("f-enqueue-priority"), priority),
			chromedp.Click(chromedp.CSS(`#queue-enqueue button[type=submit]`)))
	}
	enqueueForm("password-reset", "2")
	waitJS(t, ctx, "the success message", `document.querySelector('[data-testid="queue-enqueue-ok"]') !== null`, eventWait)
	waitJS(t, ctx, "priority 2's bar to grow to 1", laneJS("2")+` === 1`, eventWait)
	// The fragment carries the enqueue time; the browser says it relative to its own clock.
	waitJS(t, ctx, "the job's enqueue time shown relative", `(() => { const e = document.querySelector('tr[data-job="password-reset"] [data-at-ms]'); return e !== null && /^(now|[0-9.]+ s ago)$/.test(e.textContent); })()`, eventWait)
	waitJS(t, ctx, "the oldest job's age", `/^[0-9.]+ (ms|s)$/.test(document.querySelector('[data-testid="stat-oldest"]').textContent)`, eventWait)
	if w := eval[string](t, ctx, `document.querySelector('[data-priority="2"] .lane-bar').getAttribute('width')`); w != "100" {
		t.Errorf("the only lane's bar is %q wide, want 100%%", w)
	}
	if got := text(t, ctx, `[data-testid="stat-waiting"]`); got != "1" {
		t.Errorf("waiting = %q, want 1", got)
	}

	// A priority outside 0..9: an inline error, nothing written.
	enqueueForm("newsletter", "12")
	waitJS(t, ctx, "the error under priority", `document.querySelector('#f-enqueue-priority-error') !== null`, eventWait)
	if msg := text(t, ctx, "#f-enqueue-priority-error"); !strings.Contains(msg, "0 (first) to 9") {
		t.Errorf("priority error = %q", msg)
	}
	if n := rdb.ZCard(context.Background(), "queue:email-jobs").Val(); n != 1 {
		t.Errorf("ZCARD queue:email-jobs = %d after a refused enqueue, want 1", n)
	}

	// A consumer takes it: the bar shrinks without a reload.
	if status, body := postJSON(t, z.URL+"/api/v1/queues/email-jobs/poll", map[string]any{}); status != 200 || !strings.Contains(body, `"password-reset"`) {
		t.Fatalf("poll: %d %s", status, body)
	}
	waitJS(t, ctx, "priority 2's bar to shrink to 0", laneJS("2")+` === 0`, eventWait)
	if got := eval[int](t, ctx, `window.__zpulseMarker`); got != 42 {
		t.Errorf("the page was reloaded")
	}
}
