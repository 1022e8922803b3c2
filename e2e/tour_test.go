package e2e

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/zpulse/zpulse/views"
)

// With the demo running, every page at a laptop and a phone size: each live panel shows data
// and changes by itself, nothing scrolls sideways, and a screenshot of each is saved. With
// ZPULSE_UPDATE_SCREENSHOTS=1 the overview's laptop screenshot is also written to
// docs/overview.png, the README's picture.
func TestTourWithDemo(t *testing.T) {
	sharedRedisClient(t)
	z := startZpulse(t, sharedRedis.Addr, "--demo=true", "--demo-every", "200ms")
	pages := []struct {
		name, path string
		panel      string // a live panel that must show data and change by itself; "" when static
		data       string // a selector that only matches when the page shows data
	}{
		{"overview", "/", "#boards-list", `#limiters-overview [data-limiter="demo-fixed"]`},
		{"overview-queues", "/", "#queues-list", `#queues-list [data-testid="depth"]`},
		{"boards", "/boards", "#boards-list", `[data-board="demo:2048"]`},
		{"board", "/boards/demo:2048", "[data-rank-panel]", "[data-rank-panel] tr[data-player]"},
		{"entries", "/boards/demo:2048/entries", "", "tr[data-player]"},
		{"queues", "/queues", "#queues-list", `#queues-list [data-testid="depth"]`},
		{"queue", "/queues/demo:emails", "#" + views.QueuePanelID("demo:emails"), `[data-testid="lanes"]`},
		{"delayed", "/queues/demo:reminders", "#" + views.QueuePanelID("demo:reminders"), `[data-testid="due-bar"]`},
		{"limiters", "/limiters", "", `a[href="/limiters/demo-fixed"]`},
		{"limiter", "/limiters/demo-fixed", "[id^=limiter-]", "[id^=limiter-] svg"},
		{"locks", "/locks", "", "#locks-panel, [data-testid=lock-count]"},
	}
	if err := os.MkdirAll(screenshotDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, size := range []struct {
		name          string
		width, height int64
		mobile        bool
	}{{"1280x900", 1280, 900, false}, {"390x844", 390, 844, true}} {
		ctx := newBrowser(t)
		// Every page keeps the security policy: count what the browser refuses.
		if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: `window.__csp = [];
			document.addEventListener('securitypolicyviolation', e => window.__csp.push(e.violatedDirective + ' ' + (e.blockedURI || e.sample)));`}); err != nil {
			t.Fatal(err)
		}
		viewport := chromedp.EmulateViewport(size.width, size.height)
		if size.mobile {
			viewport = chromedp.EmulateViewport(size.width, size.height, chromedp.EmulateMobile, chromedp.EmulateTouch)
		}
		for _, p := range pages {
			do(t, ctx, "open "+p.path, viewport, chromedp.Navigate(z.URL+p.path))
			waitLive(t, ctx)
			waitJS(t, ctx, p.name+" shows data", `document.querySelector(`+jsString(p.data)+`) !== null`, 10*time.Second)
			if p.panel != "" {
				before := eval[string](t, ctx, `document.querySelector(`+jsString(p.panel)+`).outerHTML`)
				waitJS(t, ctx, p.name+"'s live panel changing by itself",
					`document.querySelector(`+jsString(p.panel)+`).outerHTML !== `+jsString(before), 15*time.Second)
			}
			if v := eval[[]string](t, ctx, `window.__csp`); len(v) > 0 {
				t.Errorf("%s breaks the content security policy: %v", p.path, v)
			}
			if width := eval[int](t, ctx, `document.documentElement.scrollWidth`); width > int(size.width) {
				t.Errorf("%s at %s is %dpx wide: it scrolls sideways", p.path, size.name, width)
			}
			buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
			if err != nil {
				t.Fatalf("screenshot %s: %v", p.path, err)
			}
			name := filepath.Join(screenshotDir, "tour-"+p.name+"-"+size.name+".png")
			if err := os.WriteFile(name, buf, 0o644); err != nil {
				t.Fatal(err)
			}
			if p.name == "overview" && !size.mobile && os.Getenv("ZPULSE_UPDATE_SCREENSHOTS") == "1" {
				if err := os.WriteFile(filepath.Join("..", "docs", "overview.png"), buf, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}
