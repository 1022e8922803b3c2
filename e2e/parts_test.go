package e2e

import (
	"context"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/redis/go-redis/v9"
)

// A change to one player's score reaches the page as that row alone (live/parts.go), and
// htmx's ws extension swaps it in place by its id: the panel and the other rows stay the
// same elements, the row shows the new score, and the rank movement still marks it. Then a
// player who climbs in from outside moves every row below it, and the page shows the new
// order.
func TestOneRowChangeSwapsOnlyThatRow(t *testing.T) {
	t.Parallel()
	rdb, addr := ownRedis(t)
	z := startZpulse(t, addr)
	board := "parts:rows"
	key := "leaderboard:" + board
	rdb.ZAdd(context.Background(), key, redis.Z{Score: 300, Member: "amy"}, redis.Z{Score: 200, Member: "ben"}, redis.Z{Score: 100, Member: "cat"})
	ctx := newBrowser(t)
	do(t, ctx, "open the board", chromedp.Navigate(z.URL+"/boards/"+board))
	waitLive(t, ctx)
	// A first change, seen on the page, comes after the panel's whole first fragment.
	rdb.ZIncrBy(context.Background(), key, 10, "cat")
	waitRow(t, ctx, "cat", "110", eventWait)
	// The elements as they are now, and every live message from here on.
	eval[bool](t, ctx, `(() => {
		const panel = document.querySelector('[data-rank-panel]');
		window.__panel = panel;
		window.__rows = [...panel.querySelectorAll('tr[data-player]')];
		window.__msgs = [];
		document.body.addEventListener('htmx:wsBeforeMessage', e => window.__msgs.push(e.detail.message));
		return true;
	})()`)

	rdb.ZIncrBy(context.Background(), key, 50, "ben") // 250: still second
	if r := waitRow(t, ctx, "ben", "250", eventWait); r.Rank != "2" {
		t.Fatalf("ben's row = %+v, want rank 2", r)
	}
	msgs := eval[[]string](t, ctx, `window.__msgs`)
	if len(msgs) != 1 || len(msgs[0]) < 4 || msgs[0][:4] != "<tr " {
		t.Fatalf("the change came as %d messages %q, want one: ben's row", len(msgs), msgs)
	}
	same := eval[[]bool](t, ctx, `(() => {
		const panel = document.querySelector('[data-rank-panel]');
		const rows = [...panel.querySelectorAll('tr[data-player]')];
		return [panel === window.__panel, rows[0] === window.__rows[0], rows[1] === window.__rows[1], rows[2] === window.__rows[2], rows.length === 3];
	})()`)
	if want := []bool{true, true, false, true, true}; !slices.Equal(same, want) {
		t.Errorf("panel, amy's, ben's, cat's row the same elements, 3 rows: %v, want %v (only ben's row replaced)", same, want)
	}

	rdb.ZAdd(context.Background(), key, redis.Z{Score: 260, Member: "dan"}) // in at second
	waitRow(t, ctx, "dan", "260", eventWait)
	order := eval[[]string](t, ctx, `[...document.querySelectorAll('[data-rank-panel] tr[data-player]')].map(r => r.dataset.rank + ' ' + r.dataset.player)`)
	if want := []string{"1 amy", "2 dan", "3 ben", "4 cat"}; !slices.Equal(order, want) {
		t.Errorf("rows %q, want %q", order, want)
	}
	if move := eval[string](t, ctx, `[...document.querySelectorAll('[data-rank-panel] tr[data-player]')].find(r => r.dataset.player === 'dan').querySelector('.move').textContent`); move != "new" {
		t.Errorf("dan's movement %q, want new", move)
	}
}
