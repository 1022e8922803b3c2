package e2e

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/redis/go-redis/v9"
)

// clientJS reads a client's row on a limiter page (compared as a string, never put into a
// CSS selector), or null.
func clientJS(client string) string {
	return `(() => {
		const r = [...document.querySelectorAll('li[data-client]')].find(r => r.dataset.client === ` + jsString(client) + `);
		return r ? {used: r.dataset.used, limit: r.dataset.limit, full: r.dataset.full,
			allowed: r.querySelectorAll('[data-event="allowed"]').length,
			rejected: r.querySelectorAll('[data-event="rejected"]').length} : null;
	})()`
}

type clientRow struct {
	Used, Limit, Full string
	Allowed, Rejected int
}

// The try form fires 5 requests against the limit of 3: the answers say 3 allowed and 2
// rejected, and the client's bar arrives full on the live panel, without a reload; a request
// another service logs straight in Redis shows up too.
func TestLimiterTryFormLive(t *testing.T) {
	t.Parallel()
	rdb, addr := ownRedis(t)
	z := startZpulse(t, addr)
	ctx := newBrowser(t)
	do(t, ctx, "open the limiter", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(z.URL+"/limiters/default"))
	waitLive(t, ctx)
	eval[int](t, ctx, `window.__zpulseMarker = 42`)

	do(t, ctx, "fire 5 requests for c-42",
		chromedp.Clear(chromedp.ID("f-client")), chromedp.SendKeys(chromedp.ID("f-client"), "c-42"),
		chromedp.Clear(chromedp.ID("f-n")), chromedp.SendKeys(chromedp.ID("f-n"), "5"),
		chromedp.Click(chromedp.CSS(`#limiter-try button[type="submit"]`)))
	waitJS(t, ctx, "the try results", `document.querySelector('[data-testid="try-results"]') !== null`, eventWait)
	if a, r := text(t, ctx, `[data-testid="try-allowed"]`), text(t, ctx, `[data-testid="try-rejected"]`); a != "3 allowed" || r != "2 rejected" {
		t.Errorf("try results say %q, %q; want 3 allowed, 2 rejected", a, r)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('#limiter-try li[data-allowed="false"]').length`); n != 2 {
		t.Errorf("%d rejected answers listed, want 2", n)
	}

	// The live panel: c-42's bar full, its timeline with the 3 admitted and 2 rejected.
	waitJS(t, ctx, "c-42's full bar", `(`+clientJS("c-42")+` || {}).full === 'true'`, eventWait)
	row := eval[clientRow](t, ctx, clientJS("c-42"))
	if row.Used != "3" || row.Limit != "3" || row.Allowed != 3 || row.Rejected != 2 {
		t.Errorf("c-42's row = %+v, want 3 of 3 used, 3 allowed and 2 rejected on its timeline", row)
	}
	if got := text(t, ctx, `[data-testid="minute-totals"]`); got != "3 allowed 2 rejected" {
		t.Errorf("per-second totals = %q", got)
	}

	// Another service (the articles' script) logs a request for c-77: it shows by itself.
	now := time.Now().UnixMilli()
	if err := rdb.ZAdd(context.Background(), "rate:c-77", redis.Z{Score: float64(now), Member: "3f6c2a52-8a1c-4d1e-9a55-2d6f0b7e9c10"}).Err(); err != nil {
		t.Fatal(err)
	}
	rdb.PExpire(context.Background(), "rate:c-77", 10*time.Second)
	waitJS(t, ctx, "c-77, written by another service", `(`+clientJS("c-77")+` || {}).used === '1'`, eventWait)
	if got := eval[int](t, ctx, `window.__zpulseMarker`); got != 42 {
		t.Errorf("the page was reloaded")
	}

	if err := os.MkdirAll(screenshotDir, 0o755); err == nil {
		if buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot()); err == nil {
			os.WriteFile(filepath.Join(screenshotDir, "limiter-1280x900.png"), buf, 0o644)
		}
		do(t, ctx, "phone viewport", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
		if buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
			os.WriteFile(filepath.Join(screenshotDir, "limiter-390x844-full.png"), buf, 0o644)
		}
	}
}

// The policy form shows the fields of the chosen algorithm only: a sliding log's limit,
// window and shared window, not a token bucket's rate and burst; choosing the token bucket
// swaps them, without a round trip.
func TestPolicyFormShowsTheChosenAlgorithm(t *testing.T) {
	t.Parallel()
	_, addr := ownRedis(t)
	z := startZpulse(t, addr)
	ctx := newBrowser(t)
	do(t, ctx, "open a new limiter", chromedp.Navigate(z.URL+"/limiters/form-test"))
	waitJS(t, ctx, "the policy form", `document.querySelector('#limiter-policy select[name=algorithm]') !== null`, eventWait)
	shown := `['limit', 'window', 'shared', 'rate', 'burst'].filter(n => {
		const e = document.querySelector('#limiter-policy [name=' + n + ']'); return e && e.offsetParent !== null; }).join(' ')`
	if got := eval[string](t, ctx, `document.querySelector('#limiter-policy select[name=algorithm]').value`); got != "sliding_log" {
		t.Fatalf("a new policy's algorithm is %q, want sliding_log", got)
	}
	if got := eval[string](t, ctx, shown); got != "limit window shared" {
		t.Errorf("a sliding log's form shows %q, want limit window shared", got)
	}
	choose := func(algorithm string) {
		eval[bool](t, ctx, `(() => { const s = document.querySelector('#limiter-policy select[name=algorithm]');
			s.value = `+jsString(algorithm)+`; s.dispatchEvent(new Event('change', {bubbles: true})); return true; })()`)
	}
	choose("token_bucket")
	if got := eval[string](t, ctx, shown); got != "rate burst" {
		t.Errorf("a token bucket's form shows %q, want rate burst", got)
	}
	choose("fixed_window")
	if got := eval[string](t, ctx, shown); got != "limit window" {
		t.Errorf("a fixed window's form shows %q, want limit window", got)
	}
}
