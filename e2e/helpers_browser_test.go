package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// findBrowser returns the path of Chromium's headless shell, else of Chromium or Chrome. The
// shell is Chromium's Blink without the browser's own UI: headless chromium renders a WebUI
// tab strip per window, which cost a third of the tour's CPU. Without a browser the test
// skips, except under CI, where the browser tests are required.
func findBrowser(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium-headless-shell", "chromium", "chromium-browser", "google-chrome"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium-headless-shell, chromium, chromium-browser or google-chrome on PATH; the browser tests are required under CI: apt-get install -y chromium-headless-shell")
	}
	t.Skip("no chromium-headless-shell, chromium, chromium-browser or google-chrome on PATH: apt-get install -y chromium-headless-shell to run the browser tests")
	return ""
}

// browser is the package's headless browser, started by the first test that needs one and
// closed by TestMain. Each test works in a browser context of its own (its own cookies and
// storage), which is much cheaper than a browser process per test.
var browser struct {
	once sync.Once
	ctx  context.Context // the browser's first tab; tests open their own
	err  error
	stop func()
}

// newBrowser returns a tab in a fresh browser context of the package's browser, with a
// deadline of testTimeout. The tab and its context are closed when the test ends; what the
// page logged to its console is printed when the test failed.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	return newBrowserWithin(t, testTimeout)
}

// newBrowserWithin is newBrowser for a test whose browser work is bounded by timeout instead
// of testTimeout: one that visits many pages in one tab (the tour).
func newBrowserWithin(t *testing.T, timeout time.Duration) context.Context {
	t.Helper()
	path := findBrowser(t)
	browser.once.Do(func() { browser.ctx, browser.stop, browser.err = startBrowser(path) })
	if browser.err != nil {
		t.Fatalf("start %s: %v", path, browser.err)
	}
	tabCtx, cancel := chromedp.NewContext(browser.ctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if err := chromedp.Do(tabCtx); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	// Tabs of parallel tests are open side by side: each behaves as the focused page, so
	// focus, typing and clicks work as in a browser with one tab.
	if _, err := chromedp.Call(tabCtx, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true}); err != nil {
		t.Fatalf("emulate a focused tab: %v", err)
	}
	logConsole(t, tabCtx)
	ctx, cancelDeadline := context.WithTimeout(tabCtx, timeout)
	t.Cleanup(cancelDeadline)
	return ctx
}

// startBrowser starts headless Chromium with a fresh profile. stop closes it and removes the
// profile.
func startBrowser(path string) (ctx context.Context, stop func(), err error) {
	dir, err := os.MkdirTemp("", "zpulse-e2e-chromium-")
	if err != nil {
		return nil, nil, err
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(dir),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	stop = func() {
		cancel()
		cancelAlloc() // waits for the browser to exit
		os.RemoveAll(dir)
	}
	// The first Run binds the browser's life to ctx, which has no deadline; tests put
	// deadlines on their own tabs.
	if err := chromedp.Do(ctx); err != nil {
		stop()
		return nil, nil, err
	}
	return ctx, stop, nil
}

// logConsole keeps what the tab logs to its console (errors, CSP violations, exceptions)
// and prints it if the test fails.
func logConsole(t *testing.T, ctx context.Context) {
	var (
		mu    sync.Mutex
		lines []string
	)
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages { // ends when the tab's context does
			if err != nil {
				return
			}
			mu.Lock()
			lines = append(lines, fmt.Sprintf("console.%s %s:%d %s", m.Type, m.URL, m.Line+1, m))
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		t.Logf("browser console:\n%s", strings.Join(lines, "\n"))
	})
}

// do runs browser actions and fails the test if one fails.
func do(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// eval evaluates a JavaScript expression in the page and decodes its value.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// waitJS polls a JavaScript expression in the page every 50 ms until it is truthy, and
// fails the test (saying what it waited for) if it is not within timeout.
func waitJS(t *testing.T, ctx context.Context, what, expr string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr,
			chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(time.Until(deadline))))
		if err == nil {
			return
		}
		// A navigation that lands while the poll runs destroys the page's JavaScript context
		// under it: poll again in the new page, within the same deadline.
		if !navigatedAway(err) || time.Now().After(deadline) {
			t.Fatalf("waiting %v for %s: %v", timeout, what, err)
		}
	}
}

// navigatedAway says whether err is Chromium's answer to a script whose page was replaced.
func navigatedAway(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Cannot find context with specified id") ||
		strings.Contains(msg, "Execution context was destroyed") ||
		strings.Contains(msg, "Inspected target navigated or closed")
}

// waitLive waits until the page's live connection is open (the ws wrapper's data-conn).
func waitLive(t *testing.T, ctx context.Context) {
	t.Helper()
	waitJS(t, ctx, "the live connection to open", `document.querySelector('[data-conn="open"]') !== null`, eventWait)
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// row is a board row as the page shows it.
type row struct {
	Rank   string `json:"rank"`
	Player string `json:"player"`
	Score  string `json:"score"`
}

// rowJS finds the row of player (compared as a string, never put into a CSS selector) and
// reads its cells, or null.
func rowJS(player string) string {
	return `(() => {
		const r = [...document.querySelectorAll('tr[data-player]')].find(r => r.dataset.player === ` + jsString(player) + `);
		return r ? {rank: r.cells[0].textContent.trim(), player: r.cells[1].querySelector('span[title]').textContent, score: r.cells[2].textContent.trim()} : null;
	})()`
}

// waitRow waits until player's row shows score, and returns it.
func waitRow(t *testing.T, ctx context.Context, player, score string, timeout time.Duration) row {
	t.Helper()
	waitJS(t, ctx, fmt.Sprintf("the row of %q with score %s", player, score),
		`(`+rowJS(player)+` || {}).score === `+jsString(score), timeout)
	return findRow(t, ctx, player)
}

// findRow returns player's row, failing the test if there is none.
func findRow(t *testing.T, ctx context.Context, player string) row {
	t.Helper()
	r := eval[*row](t, ctx, rowJS(player))
	if r == nil {
		t.Fatalf("no row for %q", player)
	}
	return *r
}

// text returns the whitespace-normalized text of the first element matching a CSS
// selector, or "" when there is none.
func text(t *testing.T, ctx context.Context, selector string) string {
	t.Helper()
	return eval[string](t, ctx, `(() => { const e = document.querySelector(`+jsString(selector)+`);
		return e ? e.textContent.replace(/\s+/g, ' ').trim() : ''; })()`)
}

// exists reports whether a CSS selector matches an element.
func exists(t *testing.T, ctx context.Context, selector string) bool {
	t.Helper()
	return eval[bool](t, ctx, `document.querySelector(`+jsString(selector)+`) !== null`)
}

// attr returns an attribute of the first element matching a CSS selector, as the DOM has it
// (for an input, the value the server rendered rather than what was typed since).
func attr(t *testing.T, ctx context.Context, selector, name string) string {
	t.Helper()
	res, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(selector), name))
	if err != nil {
		t.Fatalf("attribute %s of %s: %v", name, selector, err)
	}
	return res.Value
}

// location returns the tab's current URL.
func location(t *testing.T, ctx context.Context) *url.URL {
	t.Helper()
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatalf("location: %v", err)
	}
	u, err := url.Parse(loc)
	if err != nil {
		t.Fatalf("location %q: %v", loc, err)
	}
	return u
}
