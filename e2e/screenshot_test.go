package e2e

import (
	"bytes"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// screenshotDir is where TestScreenshots writes, for people to look at (gitignored).
const screenshotDir = "screenshots"

// Screenshots of a board with players, on a desktop and a phone.
func TestScreenshots(t *testing.T) {
	t.Parallel()
	_, addr := ownRedis(t)
	z := startZpulse(t, addr)
	for _, p := range []struct {
		player string
		points int
	}{
		{"alice", 1520}, {"bob", 1200}, {"carol", 980}, {"Émilie", 730}, {"dora", 40},
		{"erin", 12_345_678}, {"frank", -15}, {"a-player-with-a-very-long-name-that-fills-sixty-four-bytes-xxxx", 500},
		{"grace", 300}, {"heidi", 250}, {"ivan", 200}, {"judy", 150},
	} {
		if status, body := postJSON(t, z.URL+"/api/v1/boards/game:2048/scores", map[string]any{"player": p.player, "points": p.points}); status != http.StatusOK {
			t.Fatalf("add %s: %d %s", p.player, status, body)
		}
	}
	if err := os.MkdirAll(screenshotDir, 0o755); err != nil {
		t.Fatal(err)
	}

	ctx := newBrowser(t)
	for _, s := range []struct {
		name          string
		width, height int64
		mobile        bool
	}{
		{"board-1280x900.png", 1280, 900, false},
		{"board-390x844.png", 390, 844, true},
	} {
		viewport := chromedp.EmulateViewport(s.width, s.height)
		if s.mobile {
			viewport = chromedp.EmulateViewport(s.width, s.height, chromedp.EmulateMobile, chromedp.EmulateTouch)
		}
		do(t, ctx, "open the board at "+s.name, viewport, chromedp.Navigate(z.URL+"/boards/game:2048"))
		waitLive(t, ctx) // the badge says "Live"
		findRow(t, ctx, "judy")
		buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("screenshot %s: %v", s.name, err)
		}
		path := filepath.Join(screenshotDir, s.name)
		if err := os.WriteFile(path, buf, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(buf))
		if err != nil {
			t.Fatalf("%s is not a PNG: %v", path, err)
		}
		if cfg.Width != int(s.width) || cfg.Height != int(s.height) {
			t.Errorf("%s is %dx%d, want %dx%d", path, cfg.Width, cfg.Height, s.width, s.height)
		}
		t.Logf("wrote %s (%d bytes)", path, len(buf))
	}

	// The whole phone page, to see the form below the board.
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("full-page screenshot: %v", err)
	}
	path := filepath.Join(screenshotDir, "board-390x844-full.png")
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := png.DecodeConfig(bytes.NewReader(buf)); err != nil {
		t.Fatalf("%s is not a PNG: %v", path, err)
	}
}
