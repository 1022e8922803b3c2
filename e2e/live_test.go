package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// A write made straight in Redis, by another client, shows on an open board page without a
// reload. How soon is logged; make bench measures it (bench/wsload): on a loaded machine a
// bound here would fail for the machine's sake, so the wait only guards against a hang.
func TestLiveUpdateFromRedis(t *testing.T) {
	t.Parallel()
	rdb, addr := ownRedis(t)
	z := startZpulse(t, addr)
	ctx := newBrowser(t)

	do(t, ctx, "open the board", chromedp.Navigate(z.URL+"/boards/game:2048"))
	waitLive(t, ctx)
	eval[int](t, ctx, `window.__zpulseMarker = 42`)

	start := time.Now()
	if err := rdb.ZIncrBy(context.Background(), boardKey, 50, "zed").Err(); err != nil {
		t.Fatalf("ZINCRBY: %v", err)
	}
	waitJS(t, ctx, "zed's row with 50", "("+rowJS("zed")+" || {}).score === '50'", eventWait)
	r := findRow(t, ctx, "zed")
	t.Logf("zed appeared %v after the ZINCRBY (poll interval %v)", time.Since(start).Round(time.Millisecond), pollInterval)
	if r.Rank != "1" || r.Player != "zed" {
		t.Errorf("row = %+v, want rank 1, player zed", r)
	}
	if got := eval[int](t, ctx, `window.__zpulseMarker`); got != 42 {
		t.Errorf("window.__zpulseMarker = %d after the update, want 42: the page was reloaded", got)
	}
}
