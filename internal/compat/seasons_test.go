package compat

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/redistest"
)

// A season that ends on a board the main article's service writes: its leaderboard:<board>
// starts empty for the service (its top is empty, its next ZINCRBY starts season 2), and the
// ended season keeps what it wrote, readable through zpulse.
func TestSeasonEndOnABoardTheArticleWrites(t *testing.T) {
	redistest.ForEachTopology(t, testSeasonEndOnABoardTheArticleWrites)
}

func testSeasonEndOnABoardTheArticleWrites(t *testing.T, rdb redis.UniversalClient) {
	svc, _ := setup(t, rdb)
	ctx := context.Background()
	board := "season-compat"
	lb := Leaderboard{RDB: rdb, Key: "leaderboard:" + board}
	get(lb.AddPoints(ctx, "alice", 120))(t)
	get(lb.AddPoints(ctx, "bob", 95))(t)
	season := get(svc.Leaderboards.EndSeason(ctx, board))(t)
	if top := get(lb.Top(ctx, 10))(t); len(top) != 0 {
		t.Fatalf("the article's top right after the season ended = %v", top)
	}
	get(lb.AddPoints(ctx, "bob", 5))(t)
	if got := zpulseOrder(t, svc, board); got != "bob=5" {
		t.Errorf("season %d's board: %s", season.Number+1, got)
	}
	_, ended, err := svc.Leaderboards.SeasonTop(ctx, board, season.Number, 10)
	noErr(t, err)
	if len(ended) != 2 || ended[0].Player != "alice" || ended[0].Score != 120 || ended[1].Score != 95 {
		t.Errorf("season %d = %+v", season.Number, ended)
	}
}
