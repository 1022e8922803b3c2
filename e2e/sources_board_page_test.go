package e2e

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/redis/go-redis/v9"
)

// The second article's daily board as a service in China writes it (hash-tagged, dated in
// Asia/Shanghai, points × 10^10 + (max_ts − ts)), adopted: its page at a laptop and a phone
// size, light and dark, shows the board with true points, finds a player and pages to the
// last one, with nothing sticking out sideways and no axe-core violation. With
// ZPULSE_UPDATE_SCREENSHOTS=1 its pictures are written to docs/.
func TestAdoptedBoardPage(t *testing.T) {
	t.Parallel()
	rdb, addr := ownRedis(t)
	z := startZpulse(t, addr)
	ctx := context.Background()
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	now := rdb.Time(ctx).Val()
	key := "{game}:rank:" + now.In(shanghai).Format("20060102")
	names := []string{"user:1001", "user:1002", "lin.wei", "zhang_san", "li-si", "wang.fang", "chen.jie", "liu.yang", "zhao.lei", "sun.li",
		"zhou.min", "wu.hao", "zheng.yu", "feng.xin", "qian.bo", "a-player-with-a-very-long-name-that-fills-sixty-four-bytes-xxxx"}
	var zs []redis.Z
	for i := range 64 {
		name := fmt.Sprintf("player:%04d", 2000+i)
		if i < len(names) {
			name = names[i]
		}
		points := int64(98_000 - i*i*23)
		if i == 3 {
			points = 98_000 - 2*2*23 // a tie with the third, reached later
		}
		zs = append(zs, redis.Z{Score: float64(points*10_000_000_000 + (9_999_999_999 - now.Unix() + int64(i))), Member: name})
	}
	rdb.ZAdd(ctx, key, zs...)
	req, _ := http.NewRequest(http.MethodPut, z.URL+"/api/v1/sources/cn-daily", strings.NewReader(`{"kind":"board","key":"{game}:rank:{yyyymmdd}","encoding":"first_reached_e10","zone":"Asia/Shanghai"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := httpClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("adopt: %v %v", resp, err)
	}
	resp.Body.Close()
	axe, err := os.ReadFile(filepath.Join("..", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatalf("axe-core is an npm devDependency (make assets installs it): %v", err)
	}

	b := newBrowser(t)
	do(t, b, "open the adopted board, finding lin.wei", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(z.URL+"/sources/cn-daily?player=lin.wei"))
	waitLive(t, b)
	if got := eval[string](t, b, `document.querySelector('[data-testid="lookup"] p').textContent.replace(/\s+/g, ' ').trim()`); got != "lin.wei is #4 with 97,908 points." {
		t.Errorf("the lookup says %q", got)
	}
	if got := eval[string](t, b, `document.querySelector('[data-testid="source-entries"] tr[data-player]').dataset.player`); got != "user:1001" {
		t.Errorf("the board starts with %q", got)
	}
	injectAxe(t, b, axe)
	for _, l := range []struct {
		file          string
		width, height int64
		mobile        bool
		scheme        string
	}{
		{"adopted-board.png", 1280, 900, false, "light"}, {"adopted-board-dark.png", 1280, 900, false, "dark"},
		{"adopted-board-phone.png", 360, 740, true, "light"}, {"adopted-board-phone-dark.png", 360, 740, true, "dark"},
	} {
		viewport := chromedp.EmulateViewport(l.width, l.height)
		if l.mobile {
			viewport = chromedp.EmulateViewport(l.width, l.height, chromedp.EmulateMobile, chromedp.EmulateTouch)
		}
		do(t, b, "look at "+l.file, viewport)
		if _, err := chromedp.Call(b, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: l.scheme}}}); err != nil {
			t.Fatal(err)
		}
		waitJS(t, b, "following a "+l.scheme+" system", `document.documentElement.classList.contains('dark') === `+strconv.FormatBool(l.scheme == "dark"), eventWait)
		waitJS(t, b, "the colours settling", `!document.getAnimations().some(a => a instanceof CSSTransition)`, eventWait)
		if width := eval[int](t, b, `document.documentElement.scrollWidth`); width > int(l.width) {
			t.Errorf("%s: the page is %dpx wide", l.file, width)
		}
		if l.mobile {
			for _, o := range eval[[]string](t, b, overflowJS) {
				t.Errorf("%s: %s", l.file, o)
			}
		}
		for _, v := range axeViolations(t, b) {
			t.Errorf("%s: %s", l.file, v)
		}
		if os.Getenv("ZPULSE_UPDATE_SCREENSHOTS") == "1" {
			buf, err := chromedp.Run(b, chromedp.CaptureScreenshot())
			if err != nil {
				t.Fatal(err)
			}
			if cfg, err := png.DecodeConfig(bytes.NewReader(buf)); err != nil || cfg.Width != int(l.width) {
				t.Fatalf("%s: %v %v", l.file, cfg, err)
			}
			if err := os.WriteFile(filepath.Join("..", "docs", l.file), buf, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	// "Browse all" pages to the last player, each once.
	do(t, b, "browse all", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(z.URL+"/sources/cn-daily/entries"))
	seen := 0
	for range 3 {
		seen += eval[int](t, b, `document.querySelectorAll('tr[data-player]').length`)
		if !eval[bool](t, b, `document.querySelector('[data-testid="entries-next"]') !== null`) {
			break
		}
		do(t, b, "the next page", chromedp.Click(`[data-testid="entries-next"]`), chromedp.WaitVisible(`tr[data-player]`))
	}
	if seen != 64 {
		t.Errorf("browsing reached %d players of 64", seen)
	}
	// A jump to a rank and back a page, as on a zpulse board, with no axe-core violation.
	do(t, b, "jump to rank 60", chromedp.Navigate(z.URL+"/sources/cn-daily/entries"), chromedp.SetValue(`#jump-rank`, "60"),
		chromedp.Submit(`#jump-rank`))
	waitJS(t, b, "the page from rank 60", `document.querySelector('tr[data-player]')?.dataset.rank === '60' && document.querySelectorAll('tr[data-player]').length === 5`, eventWait)
	if got := eval[string](t, b, `document.querySelector('[data-testid="entries-total"]').textContent`); got != "64" {
		t.Errorf("the total says %q", got)
	}
	do(t, b, "the previous page", chromedp.Click(`[data-testid="entries-prev"]`))
	waitJS(t, b, "the page from rank 10", `document.querySelector('tr[data-player]')?.dataset.rank === '10'`, eventWait)
	injectAxe(t, b, axe)
	for _, v := range axeViolations(t, b) {
		t.Errorf("entries: %s", v)
	}
	// The lookup follows the board live: lin.wei's new score shows without a reload.
	do(t, b, "find lin.wei again", chromedp.Navigate(z.URL+"/sources/cn-daily?player=lin.wei"))
	waitLive(t, b)
	rdb.ZIncrBy(ctx, key, 5_000*10_000_000_000, "lin.wei")
	waitJS(t, b, "the lookup following the board", `document.querySelector('[data-testid="lookup"] p').textContent.replace(/\s+/g, ' ').includes('is #1 with 102,908 points')`, eventWait)
}
