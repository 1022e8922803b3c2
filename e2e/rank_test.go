package e2e

import (
	"context"
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/redis/go-redis/v9"
)

// On a laptop and on a phone: points added through the form move the player up live, and
// every row says how far it moved since the page opened.
func TestRankChangesLiveWithMovement(t *testing.T) {
	t.Parallel()
	rdb, addr := ownRedis(t)
	z := startZpulse(t, addr)
	for _, size := range []struct {
		name          string
		width, height int64
		mobile        bool
	}{{"desktop", 1280, 900, false}, {"phone", 390, 844, true}} {
		t.Run(size.name, func(t *testing.T) {
			t.Parallel()
			board := "rank:" + size.name
			rdb.ZAdd(context.Background(), "leaderboard:"+board,
				redis.Z{Score: 100, Member: "amy"}, redis.Z{Score: 90, Member: "ben"}, redis.Z{Score: 80, Member: "cat"})
			ctx := newBrowser(t)
			viewport := chromedp.EmulateViewport(size.width, size.height)
			if size.mobile {
				viewport = chromedp.EmulateViewport(size.width, size.height, chromedp.EmulateMobile, chromedp.EmulateTouch)
			}
			do(t, ctx, "open the board", viewport, chromedp.Navigate(z.URL+"/boards/"+board))
			waitLive(t, ctx)
			if r := findRow(t, ctx, "cat"); r.Rank != "3" {
				t.Fatalf("cat starts at rank %s", r.Rank)
			}
			submitForm(t, ctx, "cat", "30")
			waitJS(t, ctx, "the success message", `document.querySelector('[data-testid="add-points-ok"]') !== null`, eventWait)
			if r := waitRow(t, ctx, "cat", "110", eventWait); r.Rank != "1" {
				t.Errorf("cat's row = %+v, want rank 1", r)
			}
			for player, want := range map[string]string{"cat": "▲2", "amy": "▼1", "ben": "▼1"} {
				got := eval[string](t, ctx, fmt.Sprintf(`[...document.querySelectorAll('[data-rank-panel] tr[data-player]')].find(r => r.dataset.player === %s).querySelector('.move').textContent`, jsString(player)))
				if got != want {
					t.Errorf("%s moved %q, want %q", player, got, want)
				}
			}
			// Someone new enters the top from outside: marked new.
			rdb.ZIncrBy(context.Background(), "leaderboard:"+board, 500, "dan")
			waitJS(t, ctx, "dan marked new", `(()=>{const r=[...document.querySelectorAll('[data-rank-panel] tr[data-player]')].find(r=>r.dataset.player==='dan');return r && r.querySelector('.move').textContent==='new'})()`, eventWait)
			if size.mobile {
				width := eval[int](t, ctx, `document.documentElement.scrollWidth`)
				if width > int(size.width) {
					t.Errorf("the page is %dpx wide on a %dpx phone: it scrolls sideways", width, size.width)
				}
			}
		})
	}
}

// A player looked up on the board's page sits right below the top list, and their rank and
// score follow the board without a reload.
func TestPlayerLookupFollowsTheBoard(t *testing.T) {
	t.Parallel()
	rdb, addr := ownRedis(t)
	z := startZpulse(t, addr)
	rdb.ZAdd(context.Background(), boardKey, redis.Z{Score: 100, Member: "amy"}, redis.Z{Score: 50, Member: "ben"})
	ctx := newBrowser(t)
	do(t, ctx, "look ben up", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(z.URL+"/boards/game:2048?player=ben"))
	waitLive(t, ctx)
	if got := text(t, ctx, `[data-testid="lookup"] p`); got != "ben is #2 with 50 points." {
		t.Fatalf("the lookup says %q", got)
	}
	if !eval[bool](t, ctx, `document.querySelector('[data-rank-panel]').nextElementSibling === document.querySelector('#player-lookup')`) {
		t.Error("the lookup is not right below the top list")
	}
	eval[int](t, ctx, `window.__zpulseMarker = 42`)
	rdb.ZIncrBy(context.Background(), boardKey, 100, "ben")
	waitJS(t, ctx, "ben's new rank in the lookup", `(document.querySelector('[data-testid="lookup"] p') || {}).textContent?.replace(/\s+/g, ' ').trim() === 'ben is #1 with 150 points.'`, eventWait)
	if got := eval[int](t, ctx, `window.__zpulseMarker`); got != 42 {
		t.Error("the page was reloaded")
	}
}
