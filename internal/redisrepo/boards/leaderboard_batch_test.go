package boards

import (
	"context"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// A batch add scores each player exactly as AddPoints does, on every encoding and on the
// period boards; a refused item fails alone.
func TestAddPointsBatchMatchesAddPoints(t *testing.T) {
	t.Parallel()
	lb, rdb, _ := newBoards(t)
	ctx := context.Background()
	for _, tb := range []domain.TieBreak{domain.TieBreakNone, domain.TieBreakFirstReached, domain.TieBreakFirstReachedE10, domain.TieBreakFirstReachedWide} {
		single, batch := "single-"+string(tb), "batch-"+string(tb)
		for _, b := range []string{single, batch} {
			if _, err := lb.UpdateSettings(ctx, b, domain.BoardSettings{TieBreak: tb, Periods: []domain.Period{domain.Daily}, RetentionDays: 2}); err != nil {
				t.Fatal(err)
			}
		}
		adds := []domain.ScoreAdd{{Player: "ann", Points: 5}, {Player: "bob", Points: 3}, {Player: "ann", Points: 2}, {Player: "", Points: 1}, {Player: "cy", Points: 9}}
		want := map[string]domain.Entry{}
		for _, a := range adds {
			if e, err := lb.AddPoints(ctx, single, a.Player, a.Points); err == nil {
				want[a.Player] = e
			}
		}
		got, err := lb.AddPointsBatch(ctx, batch, adds)
		if err != nil {
			t.Fatal(err)
		}
		if got[3].Err == nil || domain.ErrorCode(got[3].Err) != domain.EINVALID {
			t.Errorf("%s: the empty player answered %+v, want EINVALID", tb, got[3])
		}
		for _, i := range []int{2, 1, 4} { // the last answer of each player: ranks are after the batch
			g, w := got[i], want[adds[i].Player]
			rank := rdb.ZRevRank(ctx, store.DefaultKeys.Leaderboard(single), adds[i].Player).Val() + 1 // after every single add
			if g.Err != nil || g.Value.Score != w.Score || g.Value.Raw != w.Raw || g.Value.Rank != rank {
				t.Errorf("%s: batch %s = %+v, single = %+v", tb, adds[i].Player, g, w)
			}
		}
		for _, b := range []string{single, batch} {
			daily := store.DefaultKeys.PeriodBoard(b, domain.Daily, testNow)
			if n := rdb.ZCard(ctx, daily).Val(); n != 3 || rdb.PTTL(ctx, daily).Val() <= 0 {
				t.Errorf("%s: %s holds %d players, TTL %v", tb, daily, n, rdb.PTTL(ctx, daily).Val())
			}
		}
	}
}
