package e2e

import (
	"bytes"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/redis/go-redis/v9"
)

// A board's seasons page after three seasons ended, at a laptop and a phone size, light and
// dark: past seasons with their winners, the current one's leaders, the end button and the
// season settings, nothing scrolling sideways. Screenshots go to screenshots/ (gitignored),
// and with ZPULSE_UPDATE_SCREENSHOTS=1 to docs/ for the README.
func TestSeasonsPage(t *testing.T) {
	t.Parallel()
	_, addr := ownRedis(t)
	z := startZpulse(t, addr)
	board := "arena:ranked"
	api := z.URL + "/api/v1/boards/" + board
	req, _ := http.NewRequest(http.MethodPut, api, strings.NewReader(`{"keep_seasons":12,"season_every":"weekly","season_zone":"Europe/Berlin","tie_break":"first_reached"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := httpClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("settings: %v %v", resp, err)
	}
	resp.Body.Close()
	seasons := [][]struct {
		player string
		points int
	}{
		{{"nightowl", 4820}, {"Émilie", 4410}, {"kestrel", 3990}, {"bramble", 2100}, {"quill", 870}},
		{{"kestrel", 5230}, {"nightowl", 5010}, {"zephyr", 4470}, {"Émilie", 3300}, {"moss", 1200}, {"quill", 640}},
		{{"zephyr", 6105}, {"a-player-with-a-very-long-name-that-fills-sixty-four-bytes-xxxx", 5990}, {"kestrel", 5120}, {"bramble", 3005}},
		{{"moss", 1840}, {"Émilie", 1625}, {"nightowl", 1390}, {"zephyr", 1210}, {"kestrel", 980}, {"quill", 455}, {"bramble", 300}},
	}
	for i, players := range seasons {
		for _, p := range players {
			if status, body := postJSON(t, api+"/scores", map[string]any{"player": p.player, "points": p.points}); status != http.StatusOK {
				t.Fatalf("add %s: %d %s", p.player, status, body)
			}
		}
		if i < len(seasons)-1 {
			if status, body := postJSON(t, api+"/seasons", map[string]any{}); status != http.StatusOK {
				t.Fatalf("end season %d: %d %s", i+1, status, body)
			}
		}
	}
	dir := screenshotDir
	if os.Getenv("ZPULSE_UPDATE_SCREENSHOTS") == "1" {
		dir = filepath.Join("..", "docs")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	axe, err := os.ReadFile(filepath.Join("..", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatalf("axe-core is an npm devDependency (make assets installs it): %v", err)
	}
	ctx := newBrowser(t)
	for _, l := range []struct {
		width, height int64
		mobile        bool
		scheme        string
	}{
		{1280, 900, false, "light"}, {1280, 900, false, "dark"}, {360, 740, true, "light"}, {360, 740, true, "dark"},
	} {
		viewport := chromedp.EmulateViewport(l.width, l.height)
		if l.mobile {
			viewport = chromedp.EmulateViewport(l.width, l.height, chromedp.EmulateMobile, chromedp.EmulateTouch)
		}
		name := "seasons-" + strconv.FormatInt(l.width, 10) + "x" + strconv.FormatInt(l.height, 10) + "-" + l.scheme + ".png"
		do(t, ctx, "look at "+name, viewport)
		if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: l.scheme}}}); err != nil {
			t.Fatal(err)
		}
		do(t, ctx, "open the seasons page", chromedp.Navigate(z.URL+"/boards/"+board+"/seasons"))
		waitLive(t, ctx)
		waitJS(t, ctx, "three past seasons and the current leaders", `document.querySelectorAll('[data-season]').length === 3 && document.querySelector('[data-testid="current-season"] tr[data-player="moss"]') !== null`, eventWait)
		waitJS(t, ctx, "the "+l.scheme+" theme", `document.documentElement.classList.contains('dark') === `+strconv.FormatBool(l.scheme == "dark"), eventWait)
		waitJS(t, ctx, "colours settling", `!document.getAnimations().some(a => a instanceof CSSTransition)`, eventWait)
		injectAxe(t, ctx, axe)
		for _, v := range axeViolations(t, ctx) {
			t.Errorf("%s: %s", name, v)
		}
		if width := eval[int](t, ctx, `document.documentElement.scrollWidth`); width > int(l.width) {
			t.Errorf("%s: the page is %dpx wide, it scrolls sideways", name, width)
		}
		buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if cfg, err := png.DecodeConfig(bytes.NewReader(buf)); err != nil || cfg.Width != int(l.width) {
			t.Fatalf("%s: not a %dpx PNG (%v)", name, l.width, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), buf, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d bytes)", filepath.Join(dir, name), len(buf))
	}
}

// A board whose scheduled season end failed: its page's note and the overview's short one,
// at a laptop and a phone size, light and dark, pass axe-core and do not scroll sideways.
// Screenshots go to screenshots/ (gitignored).
func TestRolloverFailureNote(t *testing.T) {
	t.Parallel()
	rdb, addr := ownRedis(t)
	z := startZpulse(t, addr)
	for _, b := range []string{"arena:broken", "arena:fine"} {
		req, _ := http.NewRequest(http.MethodPut, z.URL+"/api/v1/boards/"+b, strings.NewReader(`{"season_every":"daily"}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := httpClient.Do(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("settings: %v %v", resp, err)
		}
		resp.Body.Close()
		if status, body := postJSON(t, z.URL+"/api/v1/boards/"+b+"/scores", map[string]any{"player": "nightowl", "points": 4820}); status != http.StatusOK {
			t.Fatalf("add: %d %s", status, body)
		}
	}
	// The seasons hash lost its count beside its ended season 1, and its season is due: every
	// round of the rollover fails on it.
	ctx0 := t.Context()
	if err := rdb.HSet(ctx0, "{leaderboard:arena:broken}:seasons", "started", time.Now().Add(-72*time.Hour).UnixMilli()).Err(); err != nil {
		t.Fatal(err)
	}
	rdb.HDel(ctx0, "{leaderboard:arena:broken}:seasons", "current")
	rdb.ZAdd(ctx0, "{leaderboard:arena:broken}:season:1", redis.Z{Score: 1, Member: "old"})
	if err := os.MkdirAll(screenshotDir, 0o755); err != nil {
		t.Fatal(err)
	}
	axe, err := os.ReadFile(filepath.Join("..", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatalf("axe-core is an npm devDependency (make assets installs it): %v", err)
	}
	ctx := newBrowser(t)
	for _, l := range []struct {
		width, height int64
		mobile        bool
		scheme        string
	}{
		{1280, 900, false, "light"}, {1280, 900, false, "dark"}, {360, 740, true, "light"}, {360, 740, true, "dark"},
	} {
		viewport := chromedp.EmulateViewport(l.width, l.height)
		if l.mobile {
			viewport = chromedp.EmulateViewport(l.width, l.height, chromedp.EmulateMobile, chromedp.EmulateTouch)
		}
		do(t, ctx, "set the viewport", viewport)
		if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: l.scheme}}}); err != nil {
			t.Fatal(err)
		}
		for _, page := range []struct{ name, path string }{{"rollover-board", "/boards/arena:broken"}, {"rollover-overview", "/"}} {
			name := page.name + "-" + strconv.FormatInt(l.width, 10) + "x" + strconv.FormatInt(l.height, 10) + "-" + l.scheme + ".png"
			do(t, ctx, "open "+page.path, chromedp.Navigate(z.URL+page.path))
			waitLive(t, ctx)
			waitJS(t, ctx, "the note (the rollover's next round, every 15 s)", `document.querySelectorAll('[data-testid="rollover-failure"]').length === 1`, 30*time.Second)
			waitJS(t, ctx, "the "+l.scheme+" theme", `document.documentElement.classList.contains('dark') === `+strconv.FormatBool(l.scheme == "dark"), 2*time.Second)
			waitJS(t, ctx, "colours settling", `!document.getAnimations().some(a => a instanceof CSSTransition)`, 2*time.Second)
			injectAxe(t, ctx, axe)
			for _, v := range axeViolations(t, ctx) {
				t.Errorf("%s: %s", name, v)
			}
			if width := eval[int](t, ctx, `document.documentElement.scrollWidth`); width > int(l.width) {
				t.Errorf("%s: the page is %dpx wide, it scrolls sideways", name, width)
			}
			buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
			if err != nil {
				t.Fatalf("screenshot %s: %v", name, err)
			}
			if err := os.WriteFile(filepath.Join(screenshotDir, name), buf, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
