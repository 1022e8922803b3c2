package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/redis/go-redis/v9"
)

// Served under --base-path /zpulse, as behind a proxy: a page loads styled, a form posts,
// live updates arrive over /zpulse/ws, and a second page load fetches no static file again
// (hashed names, Cache-Control immutable).
func TestBasePathEndToEnd(t *testing.T) {
	t.Parallel()
	rdb, addr := ownRedis(t)
	if err := rdb.ZAdd(context.Background(), boardKey, redis.Z{Score: 100, Member: "alice"}).Err(); err != nil {
		t.Fatal(err)
	}
	z := startZpulse(t, addr, "--base-path", "/zpulse", "--log-level", "debug", "--log-format", "json")
	if status := getStatus(t, z.URL+"/boards/game:2048"); status != 404 {
		t.Errorf("GET /boards/game:2048 outside the base path = %d, want 404", status)
	}
	ctx := newBrowser(t)
	do(t, ctx, "open the board under /zpulse", chromedp.Navigate(z.URL+"/zpulse/boards/game:2048"))
	waitLive(t, ctx) // the websocket opened, so its URL carries the base path
	if !eval[bool](t, ctx, `[...document.styleSheets].some(s => s.href && s.href.includes('/zpulse/static/app.') && s.cssRules.length > 100)`) {
		t.Errorf("the page is not styled: no stylesheet under /zpulse/static")
	}
	if got := eval[string](t, ctx, `document.querySelector('[ws-connect]').getAttribute('ws-connect')`); !strings.HasPrefix(got, "/zpulse/ws?") {
		t.Errorf("ws-connect = %q, want it under /zpulse", got)
	}
	if bad := eval[[]string](t, ctx, `[...document.querySelectorAll('[href],[src],[action],[hx-post]')]
		.map(e => e.getAttribute('href') ?? e.getAttribute('src') ?? e.getAttribute('action') ?? e.getAttribute('hx-post'))
		.filter(u => u.startsWith('/') && !u.startsWith('/zpulse/'))`); len(bad) > 0 {
		t.Errorf("URLs outside the base path: %v", bad)
	}

	submitForm(t, ctx, "dora", "40")
	waitJS(t, ctx, "the success message", `document.querySelector('[data-testid="add-points-ok"]') !== null`, eventWait)
	waitRow(t, ctx, "dora", "40", eventWait)
	if err := rdb.ZAdd(context.Background(), boardKey, redis.Z{Score: 500, Member: "erin"}).Err(); err != nil {
		t.Fatal(err)
	}
	waitRow(t, ctx, "erin", "500", eventWait) // pushed over /zpulse/ws

	// A second page: every asset comes from the browser's cache. The access log line of a
	// request is written before its answer is flushed, so what the page needed to go live
	// is in the log by the time it is live.
	fetched := strings.Count(z.out.String(), `"uri":"/zpulse/static/`)
	if fetched < 4 {
		t.Fatalf("%d static requests logged for the first load, want the stylesheet, scripts and icon", fetched)
	}
	do(t, ctx, "open another page", chromedp.Navigate(z.URL+"/zpulse/queues"))
	waitLive(t, ctx)
	if again := strings.Count(z.out.String(), `"uri":"/zpulse/static/`); again != fetched {
		t.Errorf("the second page load fetched %d static files again, want none", again-fetched)
	}
	if !strings.Contains(z.out.String(), `"level":"DEBUG","msg":"request","method":"GET","uri":"/zpulse/static/`) {
		t.Errorf("static requests are not logged at DEBUG")
	}
}
