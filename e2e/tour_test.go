package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/views"
)

// With the demo running and the longest names allowed (a 64-character board, player and
// queue, a 10-digit score) and an adopted source, every page at a laptop and a phone size, in
// light and dark: each live panel shows data and changes by itself, nothing scrolls sideways
// nor sticks out of its card at the phone size (where chart labels stay 9 px or more),
// axe-core finds no WCAG 2.2 AA violation, and a screenshot of each is saved. With
// ZPULSE_UPDATE_SCREENSHOTS=1 the README's pictures are written first (readmePictures), with
// the demo's data only. Each page has a tab of its own, side by side with the others, which
// loads it once and sees it at every look, within a deadline of its own.
func TestTourWithDemo(t *testing.T) {
	t.Parallel()
	rdb, addr := ownRedis(t)
	z := startZpulse(t, addr, "--demo=true", "--demo-every", "200ms")
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
	adoptSource(t, rdb, z.URL)
	axe, err := os.ReadFile(filepath.Join("..", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatalf("axe-core is an npm devDependency (make assets installs it): %v", err)
	}
	pages := []struct {
		name, path string
		panels     []string // the live panels that must each change by themselves; none when static
		data       string   // a selector that only matches when the page shows data
	}{
		{"overview", "/", []string{"#boards-list", "#queues-list"}, `body:has(#limiters-overview [data-limiter="demo-fixed"]):has(#queues-list [data-testid="depth"])`},
		{"boards", "/boards", []string{"#boards-list"}, `[data-board="demo:2048"]`},
		{"board", "/boards/demo:2048", []string{"[data-rank-panel]"}, "[data-rank-panel] tr[data-player]"},
		{"sprint", "/boards/demo:sprint", nil, `body:has([data-testid="ranking"]):has([data-rank-panel] tr[data-player])`},
		{"entries", "/boards/demo:2048/entries", nil, "tr[data-player]"},
		{"queues", "/queues", []string{"#queues-list"}, `#queues-list [data-testid="depth"]`},
		{"queue", "/queues/demo:emails", []string{"#" + views.QueuePanelID("demo:emails")}, `[data-testid="lanes"]`},
		{"delayed", "/queues/demo:reminders", []string{"#" + views.QueuePanelID("demo:reminders")}, `[data-testid="due-bar"]`},
		{"limiters", "/limiters", nil, `a[href="/limiters/demo-fixed"]`},
		{"limiter", "/limiters/demo-fixed", []string{"[id^=limiter-]"}, "[id^=limiter-] svg"},
		{"limiter-log", "/limiters/demo-log", nil, "[id^=limiter-] svg"},
		{"locks", "/locks", nil, "#locks-panel, [data-testid=lock-count]"},
		{"long-board", "/boards/" + long, nil, "[data-rank-panel] tr[data-player]"},
		{"long-queue", "/queues/" + long, nil, `[data-testid="lanes"]`},
		{"login", "/login", nil, "main h1"},
		{"sources", "/sources", nil, `[data-testid="sources"]`},
		{"source", "/sources/tour-queue", nil, "main h1"},
		{"source-board", "/sources/tour-board?player=moe", nil, `[data-testid="lookup"]`},
		{"jobs", "/queues/" + long + "/jobs", nil, "main h1"},
		{"job", "/queues/" + long + "/jobs/a-job", nil, "main h1"},
		{"force-release", "/locks/zpulse:demo-traffic/force-release", nil, "main h1"},
		{"board-weekly", "/boards/demo:2048?period=weekly", nil, `[data-testid="reset-period"]`},
		{"seasons", "/boards/demo:2048/seasons", nil, "main h1"},
		{"audit", "/audit", nil, "main h1"},
		{"dead-jobs", "/queues/demo:reminders/jobs?state=dead", nil, "main h1"},
		{"schedules", "/schedules", nil, `[data-schedule="nightly-digest"]`},
	}
	if err := os.MkdirAll(screenshotDir, 0o755); err != nil {
		t.Fatal(err)
	}
	// Each page is a subtest of its own, in a tab of its own, side by side with the others.
	for _, p := range pages {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			ctx := newBrowserWithin(t, 3*time.Minute)
			// Every page keeps the security policy: count what the browser refuses.
			if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: `window.__csp = [];
				document.addEventListener('securitypolicyviolation', e => window.__csp.push(e.violatedDirective + ' ' + (e.blockedURI || e.sample)));`}); err != nil {
				t.Fatal(err)
			}
			tourPage(t, ctx, z.URL+p.path, p.name, p.path, p.panels, p.data, axe)
		})
	}
}

// colourRules are axe-core's WCAG 2.2 AA rules whose outcome depends on colours alone: what
// the colour scheme changes, where every other rule sees the same document.
var colourRules = []string{"color-contrast", "link-in-text-block"}

// tourLook is a size and colour scheme the tour sees each page at.
type tourLook struct {
	size          string
	width, height int64
	mobile        bool
	scheme        string
}

var tourLooks = []tourLook{
	{"1280x900", 1280, 900, false, "light"}, {"1280x900", 1280, 900, false, "dark"},
	{"360x740", 360, 740, true, "light"}, {"360x740", 360, 740, true, "dark"},
}

// setLook changes the tab's viewport and the system's colour scheme under the page.
func setLook(t *testing.T, ctx context.Context, l tourLook) {
	t.Helper()
	viewport := chromedp.EmulateViewport(l.width, l.height)
	if l.mobile {
		viewport = chromedp.EmulateViewport(l.width, l.height, chromedp.EmulateMobile, chromedp.EmulateTouch)
	}
	do(t, ctx, "look at "+l.size+", "+l.scheme, viewport)
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: l.scheme}}}); err != nil {
		t.Fatal(err)
	}
}

// tourPage loads one page of the tour once and sees it at every look: the viewport and the
// system's colour scheme change under it (the theme switch starts at "system" and follows it).
func tourPage(t *testing.T, ctx context.Context, url, name, path string, panels []string, data string, axe []byte) {
	setLook(t, ctx, tourLooks[0])
	do(t, ctx, "open "+path, chromedp.Navigate(url))
	waitLive(t, ctx)
	waitJS(t, ctx, name+" shows data", `document.querySelector(`+jsString(data)+`) !== null`, eventWait)
	before := make([]string, len(panels))
	for i, panel := range panels {
		before[i] = eval[string](t, ctx, `document.querySelector(`+jsString(panel)+`).outerHTML`)
	}
	for i, panel := range panels {
		waitJS(t, ctx, name+"'s live panel "+panel+" changing by itself",
			`document.querySelector(`+jsString(panel)+`).outerHTML !== `+jsString(before[i]), 15*time.Second)
	}
	if v := eval[[]string](t, ctx, `window.__csp`); len(v) > 0 {
		t.Errorf("%s breaks the content security policy: %v", path, v)
	}
	// The page holds still for its looks: the live panels were seen changing above, and from
	// here live messages are dropped before htmx swaps them (htmx:wsBeforeMessage cancelled),
	// so axe, the overflow checks and the screenshots read one settled document, and 20 tabs
	// swapping the demo's changes do not take the CPU the rest of make test needs (a busy
	// overview's tab spent a fifth of a core on its swaps, a held one under 2%).
	eval[bool](t, ctx, `document.body.addEventListener('htmx:wsBeforeMessage', e => e.preventDefault()), true`)
	injectAxe(t, ctx, axe)
	fast := true
	for _, l := range tourLooks {
		setLook(t, ctx, l)
		where := path + " at " + l.size + ", " + l.scheme
		waitJS(t, ctx, path+" following a "+l.scheme+" system",
			`document.documentElement.classList.contains('dark') === `+strconv.FormatBool(l.scheme == "dark"), 10*time.Second)
		// Colours that change with the theme fade (transition): axe reads them settled, so the
		// fades are finished at once rather than waited for (on a busy machine, and with live
		// swaps every tick, a page may never be without one for long).
		eval[int](t, ctx, `(() => { const fades = document.getAnimations().filter(a => a instanceof CSSTransition);
			fades.forEach(a => a.finish()); return fades.length; })()`)
		if width := eval[int](t, ctx, `document.documentElement.scrollWidth`); width > int(l.width) {
			t.Errorf("%s is %dpx wide: it scrolls sideways", where, width)
		}
		if l.mobile {
			// The header leaves the phone's screen to the content: one line of name and
			// badges, one of links.
			if h := eval[float64](t, ctx, `document.querySelector('header').getBoundingClientRect().height`); h > 100 {
				t.Errorf("%s: the header takes %.0f of %d px", where, h, l.height)
			}
			for _, o := range eval[[]string](t, ctx, overflowJS) {
				t.Errorf("%s: %s", where, o)
			}
			// A chart's labels, drawn in the SVG, shrink with it: they stay readable.
			if small := eval[[]string](t, ctx, `[...document.querySelectorAll('svg text')].filter(e => {
				const h = e.getBoundingClientRect().height; return h > 0 && h < 9; }).map(e => e.textContent)`); len(small) > 0 {
				t.Errorf("%s: chart labels under 9 px: %q", where, small)
			}
		}
		// Dark differs from light in colours only: the dark looks run the rules that read
		// colours; every rule runs at both sizes in light.
		rules := []string(nil)
		if l.scheme == "dark" {
			rules = colourRules
		}
		violations := axeViolations(t, ctx, rules...)
		for _, v := range violations {
			t.Errorf("%s: %s", where, v)
		}
		t.Logf("axe: %d violations on %s", len(violations), where)
		// PNG encoded for speed rather than size: 80 of them are taken.
		shot, err := chromedp.Call(ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{OptimizeForSpeed: &fast})
		if err != nil {
			t.Fatalf("screenshot %s: %v", path, err)
		}
		buf := shot.Data
		file := filepath.Join(screenshotDir, "tour-"+name+"-"+l.size+"-"+l.scheme+".png")
		if err := os.WriteFile(file, buf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// overflowJS lists the elements whose box sticks out sideways of what holds them: the
// nearest card or clipping (overflow not visible) ancestor, else the viewport. What sticks
// out of a card is cut or scrolls inside it; neither should happen on a phone. Elements
// drawn inside an SVG (a nested svg too: it clips what it draws, as a chart's sliding plot
// does with the runs it draws beyond its edges), screen-reader-only ones, and what is meant to
// scroll sideways ([data-scrolls-sideways]: the phone's line of links), are left out.
const overflowJS = `(() => {
	const name = e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
		(e.dataset.testid ? '[data-testid=' + e.dataset.testid + ']' : '') +
		' "' + (e.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 30) + '"';
	const out = [], reported = new Set();
	for (const e of document.body.querySelectorAll('*')) {
		if (reported.has(e.parentElement)) { reported.add(e); continue; } // its outermost is said
		if (e.parentElement.closest('svg') || e.closest('.sr-only, noscript, script, template, [data-scrolls-sideways]')) continue;
		const r = e.getBoundingClientRect();
		if (r.width === 0 || r.height === 0) continue;
		let box = {left: 0, right: document.documentElement.clientWidth}, holder = 'the viewport';
		for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
			if (a.classList.contains('card') || getComputedStyle(a).overflowX !== 'visible') {
				box = a.getBoundingClientRect(); holder = name(a); break;
			}
		}
		if (r.right > box.right + 1 || r.left < box.left - 1) {
			reported.add(e);
			out.push(name(e) + ' spans ' + Math.round(r.left) + '–' + Math.round(r.right) + 'px, out of ' + holder + ' (' + Math.round(box.left) + '–' + Math.round(box.right) + 'px)');
		}
		if (out.length >= 10) break;
	}
	return out;
})()`

// adoptSource writes a queue and a board in another service's layout and adopts them as
// tour-queue and tour-board.
func adoptSource(t *testing.T, rdb *redis.Client, base string) {
	t.Helper()
	if err := rdb.ZAdd(context.Background(), "queue:tour-foreign", redis.Z{Score: 5e13 + 1, Member: "job-from-elsewhere"}).Err(); err != nil {
		t.Fatal(err)
	}
	// A board another service writes, lower is better (race times in ms).
	for i, p := range []string{"kai", "lea", "moe", "nia", "oto"} {
		if err := rdb.ZAdd(context.Background(), "race:times", redis.Z{Score: float64(9_000 + i*1_234), Member: p}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{
		"tour-queue": `{"kind":"queue","key":"queue:tour-foreign","encoding":"priority"}`,
		"tour-board": `{"kind":"board","key":"race:times","encoding":"none","sort_order":"asc"}`,
	} {
		req, err := http.NewRequest(http.MethodPut, base+"/api/v1/sources/"+name, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := httpClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			t.Fatalf("adopt %s: %d", name, resp.StatusCode)
		}
	}
}

// injectAxe loads axe-core into the page, through the DevTools protocol, which the page's
// content security policy does not govern.
func injectAxe(t *testing.T, ctx context.Context, axe []byte) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](string(axe)+"\n;true")); err != nil {
		t.Fatalf("inject axe-core: %v", err)
	}
}

// axeViolations runs axe-core (WCAG 2.0, 2.1 and 2.2, A and AA; injectAxe first) on the page
// and returns one line per violation: its rule, impact and the first nodes it names. Given
// rules, it runs only those.
func axeViolations(t *testing.T, ctx context.Context, rules ...string) []string {
	t.Helper()
	only := `{type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']}`
	if len(rules) > 0 {
		b, _ := json.Marshal(rules)
		only = `{type: 'rule', values: ` + string(b) + `}`
	}
	run := `(async () => {
		const r = await axe.run(document, {runOnly: ` + only + `, resultTypes: ['violations']});
		return JSON.stringify(r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
			nodes: v.nodes.slice(0, 3).map(n => n.target.join(' ') + ' — ' + (n.failureSummary || '').replace(/\s+/g, ' '))})));
	})()`
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
		waitJS(t, ctx, "the demo's data", `document.querySelector('#limiters-overview [data-limiter="demo-fixed"] svg') !== null && document.querySelector('#queues-list [data-testid="depth"]') !== null`, eventWait)
		buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("screenshot %s: %v", p.file, err)
		}
		if err := os.WriteFile(filepath.Join("..", "docs", p.file), buf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
