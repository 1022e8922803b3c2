package redisrepo

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

func tieBreakBoard(t *testing.T, lb *Leaderboards, board string) {
	t.Helper()
	if _, err := lb.UpdateSettings(context.Background(), board, domain.BoardSettings{TieBreak: domain.TieBreakFirstReached, RetentionDays: 1}); err != nil {
		t.Fatal(err)
	}
}

func order(t *testing.T, lb *Leaderboards, board string) string {
	t.Helper()
	top, err := lb.Top(context.Background(), board, domain.AllTime, 100)
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, e := range top.Entries {
		parts = append(parts, fmt.Sprintf("%s=%d", e.Player, e.Score))
	}
	return strings.Join(parts, " ")
}

// Who reaches a score first ranks higher, also when the score was reached by increments.
// On one server and on the Cluster.
func TestTieBreakFirstToReachRanksHigher(t *testing.T) {
	redistest.ForEachTopology(t, testTieBreakFirstToReachRanksHigher)
}

func testTieBreakFirstToReachRanksHigher(t *testing.T, rdb redis.UniversalClient) {
	lb, clock := newBoardsOn(t, rdb)
	ctx := context.Background()
	tieBreakBoard(t, lb, "tb")
	lb.AddPoints(ctx, "tb", "zoe", 60) // without the tie-break zoe would lead any tie ("zoe" > "anna")
	clock.Advance(time.Second)
	lb.AddPoints(ctx, "tb", "anna", 100)
	clock.Advance(time.Second)
	lb.AddPoints(ctx, "tb", "zoe", 40) // zoe reaches 100 after anna
	if got := order(t, lb, "tb"); got != "anna=100 zoe=100" {
		t.Errorf("order = %s, want anna (first to 100) above zoe", got)
	}
	clock.Advance(time.Second)
	lb.AddPoints(ctx, "tb", "zoe", 5)
	clock.Advance(time.Second)
	lb.AddPoints(ctx, "tb", "anna", 5)
	if got := order(t, lb, "tb"); got != "zoe=105 anna=105" {
		t.Errorf("order = %s, want zoe (first to 105) above anna", got)
	}
	clock.Advance(time.Second)
	lb.AddPoints(ctx, "tb", "zoe", -10)
	if got := order(t, lb, "tb"); got != "anna=105 zoe=95" {
		t.Errorf("after a negative add: %s", got)
	}
	e, _ := lb.SetScore(ctx, "tb", "bea", 105) // set stamps the time too: bea is last of the 105s
	if got := order(t, lb, "tb"); got != "anna=105 bea=105 zoe=95" || e.Rank != 2 || e.Score != 105 {
		t.Errorf("after set: %s (bea %+v)", got, e)
	}
}

// The encoding is exact at the edges of its documented range, and refuses what is beyond.
func TestTieBreakRangeEdges(t *testing.T) {
	lb, rdb, clock := newBoards(t)
	ctx := context.Background()
	tieBreakBoard(t, lb, "tb")
	last := domain.TieBreakEpoch.Add((domain.TieBreakSlots - 1) * time.Second)
	for _, c := range []struct {
		at     time.Time
		player string
		points int64
	}{
		{domain.TieBreakEpoch, "first-max", domain.TieBreakMaxPoints},
		{last, "last-max", domain.TieBreakMaxPoints},
		{domain.TieBreakEpoch, "first-min", -domain.TieBreakMaxPoints},
		{last, "last-min", -domain.TieBreakMaxPoints},
		{last, "last-zero", 0},
	} {
		clock.Set(c.at)
		e, err := lb.AddPoints(ctx, "tb", c.player, c.points)
		if err != nil {
			t.Fatalf("%s: %v", c.player, err)
		}
		slot, _ := domain.TieBreakTime(c.at)
		want := domain.TieBreakScore(c.points, slot)
		if raw := rdb.ZScore(ctx, "leaderboard:tb", c.player).Val(); raw != want || e.Score != c.points || e.Raw != want {
			t.Errorf("%s: Redis holds %v, entry %+v; want exactly %v with points %d", c.player, raw, e, want, c.points)
		}
	}
	if got := order(t, lb, "tb"); got != "first-max=8388607 last-max=8388607 last-zero=0 first-min=-8388607 last-min=-8388607" {
		t.Errorf("order = %s", got)
	}
	clock.Set(last)
	if _, err := lb.AddPoints(ctx, "tb", "first-max", 1); domain.ErrorCode(err) != domain.EINVALID || !strings.Contains(domain.ErrorMessage(err), "8388607") {
		t.Errorf("max+1 = %v, want EINVALID naming the range", err)
	}
	if _, err := lb.AddPoints(ctx, "tb", "new", domain.TieBreakMaxPoints+1); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("points beyond the range = %v", err)
	}
	for _, at := range []time.Time{domain.TieBreakEpoch.Add(-time.Second), last.Add(time.Second)} {
		clock.Set(at)
		if _, err := lb.AddPoints(ctx, "tb", "x", 1); domain.ErrorCode(err) != domain.EINVALID || !strings.Contains(domain.ErrorMessage(err), "between") {
			t.Errorf("at %v: %v, want EINVALID about the time range", at, err)
		}
	}
	if n := rdb.ZScore(ctx, "leaderboard:tb", "x").Err(); n == nil {
		t.Error("a refused add wrote")
	}
}

// Many goroutines adding to one player on a tie-break board: exact points, first-to-reach order.
func TestTieBreakConcurrentAdds(t *testing.T) {
	lb, _, clock := newBoards(t)
	ctx := context.Background()
	tieBreakBoard(t, lb, "tb")
	hammer := func(player string) {
		var wg sync.WaitGroup
		for range 40 {
			wg.Go(func() {
				for range 25 {
					if _, err := lb.AddPoints(ctx, "tb", player, 1); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
	}
	hammer("zed") // reaches 1,000 first
	clock.Advance(time.Second)
	hammer("amy")
	if got := order(t, lb, "tb"); got != "zed=1000 amy=1000" {
		t.Errorf("order = %s, want zed=1000 amy=1000", got)
	}
}
