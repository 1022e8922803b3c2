package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/zpulse/zpulse/views"
)

// With the demo running and the longest names allowed (a 64-character board, player and
// queue, a 10-digit score), every page at a laptop and a phone size, in light and dark: each
// live panel shows data and changes by itself, nothing scrolls sideways, axe-core finds no
// WCAG 2.2 AA violation, and a screenshot of each is saved. With ZPULSE_UPDATE_SCREENSHOTS=1
// the README's pictures are written first (readmePictures), with the demo's data only.
func TestTourWithDemo(t *testing.T) {
	sharedRedisClient(t)
	z := startZpulse(t, sharedRedis.Addr, "--demo=true", "--demo-every", "200ms")
	if os.Getenv("ZPULSE_UPDATE_SCREENSHOTS") == "1" {
		readmePictures(t, z.URL)
	}
	long := strings.Repeat("long-name-", 6) + "0064"
	if status, body := postJSON(t, z.URL+"/api/v1/boards/"+long+"/scores", map[string]any{"player": long, "points": 1_234_567_890}); status != http.StatusOK {
		t.Fatalf("add a long name: %d %s", status, body)
	}
	if status, body := postJSON(t, z.URL+"/api/v1/queues/"+long+"/jobs", map[string]any{"id": "a-job", "priority": 1, "payload": map[string]any{}}); status/100 != 2 {
		t.Fatalf("enqueue to a long name: %d %s", status, body)
	}
	axe, err := os.ReadFile(filepath.Join("..", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatalf("axe-core is an npm devDependency (make assets installs it): %v", err)
	}
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
		{"long-board", "/boards/" + long, "", "[data-rank-panel] tr[data-player]"},
		{"long-queue", "/queues/" + long, "", `[data-testid="lanes"]`},
		{"login", "/login", "", "main h1"},
		{"sources", "/sources", "", "main h1"},
		{"jobs", "/queues/" + long + "/jobs", "", "main h1"},
		{"job", "/queues/" + long + "/jobs/a-job", "", "main h1"},
		{"force-release", "/locks/zpulse:demo-traffic/force-release", "", "main h1"},
	}
	if err := os.MkdirAll(screenshotDir, 0o755); err != nil {
		t.Fatal(err)
	}
	type size struct {
		name          string
		width, height int64
		mobile        bool
	}
	for _, look := range []struct {
		size
		scheme string
	}{
		{size{"1280x900", 1280, 900, false}, "light"}, {size{"1280x900", 1280, 900, false}, "dark"},
		{size{"360x740", 360, 740, true}, "light"}, {size{"360x740", 360, 740, true}, "dark"},
	} {
		size := look.size
		// Each page's waits and axe's run take a few seconds on a busy machine: the tab's budget
		// grows with the pages, rather than one test's testTimeout for all of them.
		ctx := newBrowserWithin(t, time.Duration(len(pages))*5*time.Second)
		// The system's colour scheme: the theme switch starts at "system".
		if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: look.scheme}}}); err != nil {
			t.Fatal(err)
		}
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
			if dark := eval[bool](t, ctx, `document.documentElement.classList.contains('dark')`); dark != (look.scheme == "dark") {
				t.Errorf("%s in a %s system: dark is %v", p.path, look.scheme, dark)
			}
			for _, v := range axeViolations(t, ctx, axe) {
				t.Errorf("%s at %s, %s: %s", p.path, size.name, look.scheme, v)
			}
			buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
			if err != nil {
				t.Fatalf("screenshot %s: %v", p.path, err)
			}
			name := filepath.Join(screenshotDir, "tour-"+p.name+"-"+size.name+"-"+look.scheme+".png")
			if err := os.WriteFile(name, buf, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// axeViolations runs axe-core (WCAG 2.0, 2.1 and 2.2, A and AA) on the page and returns one
// line per violation: its rule, impact and the first nodes it names. axe is injected through
// the DevTools protocol, which the page's content security policy does not govern.
func axeViolations(t *testing.T, ctx context.Context, axe []byte) []string {
	t.Helper()
	const run = `(async () => {
		const r = await axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']}, resultTypes: ['violations']});
		return JSON.stringify(r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
			nodes: v.nodes.slice(0, 3).map(n => n.target.join(' ') + ' — ' + (n.failureSummary || '').replace(/\s+/g, ' '))})));
	})()`
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](string(axe)+"\n;true")); err != nil {
		t.Fatalf("inject axe-core: %v", err)
	}
	out, err := chromedp.Run(ctx, chromedp.Evaluate[string](run, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("run axe-core: %v", err)
	}
	var violations []struct {
		ID, Impact, Help string
		Nodes            []string
	}
	if err := json.Unmarshal([]byte(out), &violations); err != nil {
		t.Fatalf("axe-core's answer: %v", err)
	}
	var lines []string
	for _, v := range violations {
		lines = append(lines, v.ID+" ("+v.Impact+"): "+v.Help+"\n\t"+strings.Join(v.Nodes, "\n\t"))
	}
	return lines
}

// readmePictures writes the README's pictures, the overview with the demo's data on a laptop
// (docs/overview.png) and on a phone (docs/overview-phone.png).
func readmePictures(t *testing.T, base string) {
	t.Helper()
	ctx := newBrowser(t)
	for _, p := range []struct {
		file          string
		width, height int64
		mobile        bool
	}{{"overview.png", 1280, 900, false}, {"overview-phone.png", 360, 740, true}} {
		viewport := chromedp.EmulateViewport(p.width, p.height)
		if p.mobile {
			viewport = chromedp.EmulateViewport(p.width, p.height, chromedp.EmulateMobile, chromedp.EmulateTouch)
		}
		do(t, ctx, "open the overview for "+p.file, viewport, chromedp.Navigate(base+"/"))
		waitLive(t, ctx)
		waitJS(t, ctx, "the demo's data", `document.querySelector('#limiters-overview [data-limiter="demo-fixed"] svg') !== null && document.querySelector('#queues-list [data-testid="depth"]') !== null`, 10*time.Second)
		buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("screenshot %s: %v", p.file, err)
		}
		if err := os.WriteFile(filepath.Join("..", "docs", p.file), buf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
