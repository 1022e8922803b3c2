package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// enqueuedSumJS reads the 1 h throughput chart's legend: how many enqueues it shows.
const enqueuedSumJS = `(() => { const s = document.querySelector('[data-testid="history"] span[data-series="enqueued"]'); return s ? +s.dataset.sum : -1; })()`

// The 1 h chart on a queue's page grows as traffic flows: the recorder (one instance, every
// 10 s) writes a bucket, the chart's topic pushes it, the page swaps it in, with no reload.
// Real time: each wait is bounded by a bucket (10 s) and the recorder's delay, never a sleep.
func TestHistoryChartGrowsLive(t *testing.T) {
	t.Parallel()
	_, addr := ownRedis(t)
	z := startZpulse(t, addr)
	enqueue := func(ids ...string) {
		t.Helper()
		for _, id := range ids {
			if status, body := postJSON(t, z.URL+"/api/v1/queues/history-e2e/jobs", map[string]any{"id": id, "priority": 1}); status != 201 {
				t.Fatalf("enqueue %s: %d %s", id, status, body)
			}
		}
	}
	enqueue("a", "b")
	ctx := newBrowser(t)
	do(t, ctx, "open the queue", chromedp.Navigate(z.URL+"/queues/history-e2e"))
	waitLive(t, ctx)
	eval[int](t, ctx, `window.__zpulseMarker = 7`)
	if r := eval[string](t, ctx, `document.querySelector('[data-testid="history"] [aria-current="true"]').dataset.range`); r != "1h" {
		t.Errorf("the chart's range = %q, want 1h by default", r)
	}
	waitJS(t, ctx, "the chart to show the first 2 enqueues", enqueuedSumJS+` >= 2`, eventWait)

	enqueue("c", "d", "e")
	waitJS(t, ctx, "the chart to grow to 5 enqueues", enqueuedSumJS+` >= 5`, eventWait)
	if eval[int](t, ctx, `window.__zpulseMarker || 0`) != 7 {
		t.Error("the page reloaded; the chart should have been pushed live")
	}
	// Values on hover or focus: each column is focusable and titled with its values.
	title := eval[string](t, ctx, `(() => { const gs = [...document.querySelectorAll('[data-testid="history"] svg g[tabindex="0"] title')]; const g = gs.find(t => t.textContent.includes('Enqueued') && !t.textContent.includes('Enqueued 0')); return g ? g.textContent : ''; })()`)
	if !strings.Contains(title, "UTC") || !strings.Contains(title, "Enqueued") {
		t.Errorf("no focusable column titled with its values; got %q", title)
	}
	// The 24 h range is a link away and shows the same enqueues per minute.
	do(t, ctx, "open the 24 h range", chromedp.Click(chromedp.CSS(`[data-testid="history"] a[data-range="24h"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="history"] a[data-range="24h"][aria-current="true"]`)))
	if n := eval[int](t, ctx, enqueuedSumJS); n < 5 {
		t.Errorf("24 h chart shows %d enqueues, want at least 5", n)
	}
}
