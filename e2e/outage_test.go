package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/zpulse/zpulse/internal/redistest"
)

// When Redis goes away the open page says so by itself and /readyz fails; when Redis comes
// back the banner goes and live updates resume, without restarting zpulse or reloading.
// The page notes when the banner arrives, and the test logs how soon; the waits only guard
// against a hang (a loaded machine's ticks run late). It runs alone, before the parallel
// ones, since it stops and restarts its Redis.
func TestRedisOutage(t *testing.T) {
	srv, err := redistest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	rdb := redisClient(t, srv.Addr)
	if err := rdb.ZIncrBy(context.Background(), boardKey, 10, "before").Err(); err != nil {
		t.Fatal(err)
	}
	z := startZpulse(t, srv.Addr)
	ctx := newBrowser(t)
	do(t, ctx, "open the board", chromedp.Navigate(z.URL+"/boards/game:2048"))
	waitLive(t, ctx)
	findRow(t, ctx, "before")
	if exists(t, ctx, "#redis-status [role=alert]") {
		t.Fatalf("the page shows the Redis banner while Redis runs: %q", text(t, ctx, "#redis-status"))
	}
	eval[int](t, ctx, `window.__zpulseMarker = 42`)
	const banner = `(document.querySelector('#redis-status [role=alert]') || {}).textContent?.includes('Redis unavailable')`
	eval[int](t, ctx, `window.__bannerAt = 0; new MutationObserver(() => {
		if (!window.__bannerAt && `+banner+`) window.__bannerAt = Date.now();
	}).observe(document.body, {subtree: true, childList: true, characterData: true}); 0`)

	srv.Stop()
	start := time.Now()
	waitJS(t, ctx, "the Redis banner", `window.__bannerAt > 0`, eventWait)
	elapsed := time.UnixMilli(eval[int64](t, ctx, `window.__bannerAt`)).Sub(start)
	t.Logf("the banner appeared %v after Redis stopped (poll interval %v)", elapsed.Round(time.Millisecond), pollInterval)
	if got := getStatus(t, z.URL+"/readyz"); got != http.StatusServiceUnavailable {
		t.Errorf("GET /readyz during the outage = %d, want 503", got)
	}
	if r := findRow(t, ctx, "before"); r.Score != "10" {
		t.Errorf("during the outage the page should keep the last data; before's row = %+v", r)
	}
	// The header's badge says it too: connected to zpulse, but Redis does not answer.
	waitJS(t, ctx, "the badge to say Redis is unreachable", `document.querySelector('.conn-label').textContent === 'Live · Redis unreachable'`, eventWait)
	// A page loaded during the outage says it could not load where data would be, never
	// that there is nothing.
	fresh := newBrowser(t)
	do(t, fresh, "open the overview during the outage", chromedp.Navigate(z.URL+"/"))
	if n := eval[int](t, fresh, `document.querySelectorAll('[data-testid="unloaded"]').length`); n != 3 {
		t.Errorf("the overview during the outage shows %d \"could not load\" panels, want 3 (boards, queues, limiters)", n)
	}
	if body := text(t, fresh, "main"); strings.Contains(body, "No boards yet") || !strings.Contains(body, "Could not load — Redis unavailable") {
		t.Errorf("the overview during the outage says: %q", body)
	}

	// The form says that nothing was changed (with htmx: the 503 answer is swapped in).
	submitForm(t, ctx, "during", "1")
	waitJS(t, ctx, "the form's error", `document.querySelector('#add-points [role=alert]') !== null`, eventWait)
	if msg := text(t, ctx, "#add-points [role=alert]"); !strings.Contains(msg, "nothing was changed") {
		t.Errorf("the form's error during the outage = %q, want it to say nothing was changed", msg)
	}

	if err := srv.Restart(); err != nil {
		t.Fatalf("restart redis: %v", err)
	}
	start = time.Now()
	waitJS(t, ctx, "the Redis banner to go", `document.querySelector('#redis-status [role=alert]') === null`, eventWait)
	t.Logf("the banner went %v after Redis restarted", time.Since(start).Round(time.Millisecond))
	waitJS(t, ctx, "the badge to say Live again", `document.querySelector('.conn-label').textContent === 'Live'`, eventWait)
	// /readyz pings Redis on its own connection, within a second: on a busy machine the first
	// ping after the restart can miss that second though the watcher's read got through. It
	// must come back by itself (no restart of zpulse); the wait only guards against a hang.
	if err := redistest.Poll(20*time.Second, func() error {
		if got := getStatus(t, z.URL+"/readyz"); got != http.StatusOK {
			return fmt.Errorf("GET /readyz after the outage = %d, want 200", got)
		}
		return nil
	}); err != nil {
		t.Error(err)
	}
	// The restarted Redis is empty (no persistence); a new write shows live.
	if err := rdb.ZIncrBy(context.Background(), boardKey, 7, "after").Err(); err != nil {
		t.Fatalf("ZINCRBY after the restart: %v", err)
	}
	if r := waitRow(t, ctx, "after", "7", eventWait); r.Rank != "1" {
		t.Errorf("after's row = %+v, want rank 1 on the emptied board", r)
	}
	// Writes through zpulse work again too.
	submitForm(t, ctx, "back", "2")
	waitJS(t, ctx, "the success message", `document.querySelector('[data-testid="add-points-ok"]') !== null`, eventWait)
	waitRow(t, ctx, "back", "2", eventWait)
	if exists(t, ctx, "#redis-status [role=alert]") {
		t.Errorf("the Redis banner came back although Redis runs")
	}
	if got := eval[int](t, ctx, `window.__zpulseMarker`); got != 42 {
		t.Errorf("the page was reloaded during the outage")
	}
	if !z.running() {
		t.Errorf("zpulse exited during the outage")
	}
}
