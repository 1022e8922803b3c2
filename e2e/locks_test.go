package e2e

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// lockTTLJS reads the row of a lock (compared as a string, never put into a selector):
// its countdown in ms, or null when there is no row.
func lockTTLJS(lock string) string {
	return `(() => {
		const r = [...document.querySelectorAll('tr[data-lock]')].find(r => r.dataset.lock === ` + jsString(lock) + `);
		return r ? Number(r.querySelector('[data-testid="ttl"]').dataset.ms) : null;
	})()`
}

// Acquire a lock on the page, watch its TTL count down live, release it, and see it go.
// A lock another client took straight in Redis, as the article's code does, is listed too
// (its live discovery by SCAN is tested in redisrepo, without waiting for the slow cadence).
func TestLocksPageLive(t *testing.T) {
	t.Parallel()
	rdb, addr := ownRedis(t)
	rdb.SetNX(context.Background(), "lock:article", "article-uuid", time.Minute)
	z := startZpulse(t, addr)
	ctx := newBrowser(t)
	do(t, ctx, "open the locks page", chromedp.Navigate(z.URL+"/locks"))
	waitLive(t, ctx)
	eval[int](t, ctx, `window.__zpulseMarker = 42`)

	do(t, ctx, "fill in and submit the acquire form",
		chromedp.SendKeys(chromedp.ID("f-lock"), "order:1001"),
		chromedp.Clear(chromedp.ID("f-ttl")),
		chromedp.SendKeys(chromedp.ID("f-ttl"), "20"),
		chromedp.Click(chromedp.CSS(`#lock-forms form[action="/locks/acquire"] button[type="submit"]`)),
	)
	waitJS(t, ctx, "the acquired message", `document.querySelector('[data-testid="acquired"]') !== null`, eventWait)
	token := text(t, ctx, `[data-testid="acquired-token"]`)
	if got := rdb.Get(context.Background(), "lock:order:1001").Val(); got != token || token == "" {
		t.Fatalf("lock:order:1001 = %q, the page says token %q", got, token)
	}

	waitJS(t, ctx, "the lock's row", lockTTLJS("order:1001")+` !== null`, eventWait)
	first := eval[int](t, ctx, lockTTLJS("order:1001"))
	if first <= 0 || first > 20000 {
		t.Fatalf("countdown = %d ms, want within the 20 s lease", first)
	}
	// The countdown moves without a reload: Redis's PTTL, pushed on the watcher's ticks.
	waitJS(t, ctx, "the countdown to move", lockTTLJS("order:1001")+` <= `+strconv.Itoa(first-500), eventWait)
	holder := `[...document.querySelectorAll('tr[data-lock]')].find(r => r.dataset.lock === 'order:1001').querySelector('[data-testid="holder"]').textContent`
	if got := eval[string](t, ctx, holder); got != token {
		t.Errorf("holder = %q, want the token %q", got, token)
	}

	if eval[int](t, ctx, lockTTLJS("article")) <= 0 {
		t.Error("the article's lock is not listed")
	}

	// Release with the form, which the acquire prefilled.
	if got := attr(t, ctx, "#f-token", "value"); got != token {
		t.Errorf("release form token = %q, want %q", got, token)
	}
	do(t, ctx, "submit the release form", chromedp.Click(chromedp.CSS(`#lock-forms form[action="/locks/release"] button[type="submit"]`)))
	waitJS(t, ctx, "the released message", `document.querySelector('[data-testid="released"]') !== null`, eventWait)
	waitJS(t, ctx, "the row to go", lockTTLJS("order:1001")+` === null`, eventWait)
	if rdb.Exists(context.Background(), "lock:order:1001").Val() != 0 {
		t.Error("lock:order:1001 still exists")
	}
	if eval[int](t, ctx, lockTTLJS("article")) <= 0 {
		t.Error("the other client's lock went too")
	}
	if got := eval[int](t, ctx, `window.__zpulseMarker`); got != 42 {
		t.Errorf("the page was reloaded: the forms must post with htmx and the list must update live")
	}
}
