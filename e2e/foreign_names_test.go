package e2e

import (
	"context"
	"net/url"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/views"
)

// Another service's board and queue show whatever their names hold: a board named
// 排行榜:2048 and a queue named "mail jobs", written straight to Redis, are listed, open by
// their links, and update live.
func TestForeignNamesShowOpenAndUpdate(t *testing.T) {
	t.Parallel()
	rdb, addr := ownRedis(t)
	bg := context.Background()
	const board, queue = "排行榜:2048", "mail jobs"
	if err := rdb.ZAdd(bg, "leaderboard:"+board, redis.Z{Score: 120, Member: "山田"}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.ZAdd(bg, "queue:"+queue, redis.Z{Score: 1, Member: "job-1"}).Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Del(bg, "leaderboard:"+board, "queue:"+queue) })
	z := startZpulse(t, addr)
	ctx := newBrowser(t)

	// The board: listed with a percent-encoded link, opened by it, a new score shows live.
	do(t, ctx, "open the boards", chromedp.Navigate(z.URL+"/boards"))
	link := `[...document.querySelectorAll('#boards-list a')].find(a => a.getAttribute('href') === ` + jsString("/boards/"+url.PathEscape(board)) + `)`
	waitJS(t, ctx, "the board listed, its name percent-encoded in its link", link+` !== undefined`, eventWait)
	if got := eval[string](t, ctx, link+`.querySelector('span').textContent`); got != board {
		t.Errorf("the board's link says %q, want %q", got, board)
	}
	do(t, ctx, "follow the board's link", chromedp.Navigate(z.URL+eval[string](t, ctx, link+`.getAttribute('href')`)))
	waitJS(t, ctx, "the board's page", `location.pathname === `+jsString("/boards/"+url.PathEscape(board)), eventWait)
	waitLive(t, ctx)
	findRow(t, ctx, "山田")
	if err := rdb.ZAdd(bg, "leaderboard:"+board, redis.Z{Score: 500, Member: "佐藤"}).Err(); err != nil {
		t.Fatal(err)
	}
	if r := waitRow(t, ctx, "佐藤", "500", eventWait); r.Rank != "1" {
		t.Errorf("佐藤's row = %+v, want rank 1", r)
	}

	// The queue: listed, opened, a job added by the other service shows live.
	do(t, ctx, "open the queues", chromedp.Navigate(z.URL+"/queues"))
	link = `[...document.querySelectorAll('a')].find(a => a.getAttribute('href') === ` + jsString("/queues/"+url.PathEscape(queue)) + `)`
	waitJS(t, ctx, "the queue listed", link+` !== undefined`, eventWait)
	do(t, ctx, "follow the queue's link", chromedp.Navigate(z.URL+eval[string](t, ctx, link+`.getAttribute('href')`)))
	panel := `document.getElementById(` + jsString(views.QueuePanelID(queue)) + `)`
	waitJS(t, ctx, "the queue's page", panel+` !== null`, eventWait)
	waitLive(t, ctx)
	before := eval[string](t, ctx, panel+`.textContent`)
	if err := rdb.ZAdd(bg, "queue:"+queue, redis.Z{Score: 2, Member: "job-2"}).Err(); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the queue's panel updating live", panel+`.textContent !== `+jsString(before), eventWait)

	// Its jobs list and a job's page open too.
	do(t, ctx, "open the queue's jobs", chromedp.Navigate(z.URL+"/queues/"+url.PathEscape(queue)+"/jobs"))
	waitJS(t, ctx, "job-1 listed", `document.querySelector('[data-job="job-1"] a') !== null`, eventWait)
	do(t, ctx, "open job-1", chromedp.Navigate(z.URL+eval[string](t, ctx, `document.querySelector('[data-job="job-1"] a').getAttribute('href')`)))
	waitLive(t, ctx)
	if h1 := text(t, ctx, "main h1"); h1 != "job-1" {
		t.Errorf("job-1's page is headed %q", h1)
	}
}
