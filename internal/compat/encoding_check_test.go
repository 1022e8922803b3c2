package compat

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// A board saved before the encodings were named (tie_break=first_reached, read as
// first_reached_wide) that the main article's addPointsWithTieBreak writes: the article's
// earlier write ranks below zpulse's later one. zpulse's check names the article's score as
// a misfit and first_reached as what it looks like; the fix saves first_reached and rewrites
// zpulse's score with its time, and then the earlier write ranks first for both, the
// article's floor still reading the points.
func TestEncodingCheckFixesALegacyBoardTheArticleWrites(t *testing.T) {
	redistest.ForEachTopology(t, testEncodingCheckFixesALegacyBoard)
}

func testEncodingCheckFixesALegacyBoard(t *testing.T, rdb redis.UniversalClient) {
	svc, clock := setup(t, rdb)
	ctx := context.Background()
	board := "legacy-mix"
	noErr(t, rdb.Del(ctx, "leaderboard:"+board).Err())
	noErr(t, rdb.Del(ctx, "zpulse:board:{"+board+"}:settings").Err())
	noErr(t, rdb.HSet(ctx, "zpulse:board:{"+board+"}:settings", "tie_break", "first_reached").Err())
	lb := Leaderboard{RDB: rdb, Key: "leaderboard:" + board}
	get(lb.AddPointsWithTieBreak(ctx, "article-first", 100, clock.Now().UnixMilli()))(t)
	clock.Advance(2 * time.Second)
	get(svc.Leaderboards.AddPoints(ctx, board, "zpulse-later", 100))(t)
	if got := zpulseOrder(t, svc, board); got != "zpulse-later=100 article-first=100" {
		t.Fatalf("before the fix: %s (the misrank this check is for)", got)
	}
	r := get(svc.Leaderboards.CheckEncoding(ctx, board))(t)
	if r.TieBreak != domain.TieBreakFirstReachedWide || r.Misfits != 1 || r.Example == nil || r.Example.Player != "article-first" || r.Likely != domain.TieBreakFirstReached {
		t.Fatalf("check = %+v (example %+v)", r, r.Example)
	}
	fix := get(svc.Leaderboards.FixEncoding(ctx, board, r.Likely))(t)
	if fix.Rewritten != 1 || fix.Left != 0 {
		t.Fatalf("fix = %+v", fix)
	}
	if got := zpulseOrder(t, svc, board); got != "article-first=100 zpulse-later=100" {
		t.Errorf("after the fix zpulse shows %s", got)
	}
	top := get(lb.Top(ctx, 2))(t)
	if len(top) != 2 || top[0].Player != "article-first" || RealPoints(top[1].Score) != 100 {
		t.Errorf("after the fix the article's top = %+v", top)
	}
	// The article's next write and zpulse's now share one encoding: the earlier ranks first.
	clock.Advance(time.Second)
	get(svc.Leaderboards.AddPoints(ctx, board, "zpulse-next", 100))(t)
	clock.Advance(time.Second)
	get(lb.AddPointsWithTieBreak(ctx, "article-next", 100, clock.Now().UnixMilli()))(t)
	if got := zpulseOrder(t, svc, board); got != "article-first=100 zpulse-later=100 zpulse-next=100 article-next=100" {
		t.Errorf("writes after the fix: %s", got)
	}
}
