package boards

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// seasonBoards is Leaderboards over rdb on a manual clock from testNow, for the season,
// period-reset and encoding tests.
func seasonBoards(rdb redis.UniversalClient) (*Leaderboards, *domain.ManualClock) {
	clock := domain.NewManualClock(testNow)
	keys := store.DefaultKeys
	return NewLeaderboards(rdb, keys, store.NewDiscovery(rdb, keys, nil), store.Clocks{Script: clock}, domain.DefaultScoreHistory), clock
}

// uniqueBoard is a board name no other test of the run uses (the Cluster is shared).
func uniqueBoard(t *testing.T) string {
	return fmt.Sprintf("season-%d-%d", time.Now().UnixNano(), len(t.Name()))
}

func TestEndSeasonKeepsTheSeasonReadableAndEmptiesTheBoard(t *testing.T) {
	redistest.ForEachTopology(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		lb, clock := seasonBoards(rdb)
		board := uniqueBoard(t)
		for i, p := range []string{"ann", "bob", "cid", "dan"} {
			if _, err := lb.AddPoints(ctx, board, p, int64(10*(i+1))); err != nil {
				t.Fatal(err)
			}
		}
		clock.Advance(time.Hour)
		s, err := lb.EndSeason(ctx, board)
		if err != nil {
			t.Fatal(err)
		}
		if s.Number != 1 || s.Players != 4 || s.Started != nil || !s.Ended.Equal(clock.Now().Truncate(time.Millisecond)) {
			t.Fatalf("ended season = %+v", s)
		}
		if n, _ := rdb.Exists(ctx, store.DefaultKeys.Leaderboard(board)).Result(); n != 0 {
			t.Fatal("the board still exists after its season ended")
		}
		if _, err := lb.AddPoints(ctx, board, "eve", 5); err != nil {
			t.Fatal(err)
		}
		list, err := lb.Seasons(ctx, board)
		if err != nil {
			t.Fatal(err)
		}
		if list.Current != 2 || len(list.Seasons) != 1 || list.CurrentStarted == nil || !list.CurrentStarted.Equal(s.Ended) {
			t.Fatalf("seasons = %+v", list)
		}
		if w := list.Seasons[0].Winners; len(w) != 3 || w[0].Player != "dan" || w[0].Score != 40 || w[2].Player != "bob" {
			t.Fatalf("winners = %+v", w)
		}
		_, top, err := lb.SeasonTop(ctx, board, 1, 10)
		if err != nil || len(top) != 4 {
			t.Fatalf("season top = %v, %v", top, err)
		}
		page, err := lb.SeasonEntries(ctx, board, 1, "", 3)
		if err != nil || len(page.Entries) != 3 || page.NextCursor == nil || page.Total != 4 {
			t.Fatalf("first page = %+v, %v", page, err)
		}
		page, err = lb.SeasonEntries(ctx, board, 1, *page.NextCursor, 3)
		if err != nil || len(page.Entries) != 1 || page.Entries[0].Player != "ann" || page.Entries[0].Rank != 4 || page.NextCursor != nil {
			t.Fatalf("second page = %+v, %v", page, err)
		}
		e, err := lb.SeasonPlayer(ctx, board, 1, "cid")
		if err != nil || e.Rank != 2 || e.Score != 30 {
			t.Fatalf("cid in season 1 = %+v, %v", e, err)
		}
		if _, err := lb.SeasonPlayer(ctx, board, 1, "eve"); domain.ErrorCode(err) != domain.ENOTFOUND {
			t.Fatalf("eve (this season only) in season 1: %v", err)
		}
		if _, _, err := lb.SeasonTop(ctx, board, 2, 10); domain.ErrorCode(err) != domain.ENOTFOUND {
			t.Fatalf("the current season read as ended: %v", err)
		}
		clock.Advance(time.Hour)
		s2, err := lb.EndSeason(ctx, board)
		if err != nil || s2.Number != 2 || s2.Players != 1 || s2.Started == nil || !s2.Started.Equal(s.Ended) {
			t.Fatalf("second season = %+v, %v", s2, err)
		}
	})
}

func TestSeasonRetentionKeepsTheLastN(t *testing.T) {
	ctx := context.Background()
	rdb := redistest.DB(t)
	lb, _ := seasonBoards(rdb)
	board := "kept"
	if _, err := lb.PatchSettings(ctx, board, domain.BoardSettingsPatch{KeepSeasons: new(2)}); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := lb.AddPoints(ctx, board, "p", int64(i+1)); err != nil {
			t.Fatal(err)
		}
		if _, err := lb.EndSeason(ctx, board); err != nil {
			t.Fatal(err)
		}
	}
	list, err := lb.Seasons(ctx, board)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Seasons) != 2 || list.Seasons[0].Number != 5 || list.Seasons[1].Number != 4 || list.Dropped != 3 {
		t.Fatalf("seasons = %+v", list)
	}
	for n := int64(1); n <= 3; n++ {
		if k, _ := rdb.Exists(ctx, store.DefaultKeys.SeasonBoard(board, n)).Result(); k != 0 {
			t.Fatalf("season %d's key outlived its retention", n)
		}
	}
}

// Writers add points while seasons end: every point that was answered is in exactly one
// season or on the live board, none lost and none counted twice.
func TestEndSeasonUnderWritersCountsEveryPointOnce(t *testing.T) {
	redistest.ForEachTopology(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		lb, _ := seasonBoards(rdb)
		board := uniqueBoard(t)
		var added atomic.Int64
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for w := range 4 {
			wg.Go(func() {
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					if _, err := lb.AddPoints(ctx, board, fmt.Sprintf("w%d-%d", w, i%7), 1); err != nil {
						t.Error(err)
						return
					}
					added.Add(1)
				}
			})
		}
		ended := 0
		for ended < 6 {
			if added.Load() < int64(20*(ended+1)) {
				runtime.Gosched() // let the writers add some first
				continue
			}
			if _, err := lb.EndSeason(ctx, board); err != nil {
				t.Fatal(err)
			}
			ended++
		}
		close(stop)
		wg.Wait()
		var total float64
		keys := []string{store.DefaultKeys.Leaderboard(board)}
		for n := int64(1); n <= int64(ended); n++ {
			keys = append(keys, store.DefaultKeys.SeasonBoard(board, n))
		}
		for _, k := range keys {
			zs, err := rdb.ZRangeWithScores(ctx, k, 0, -1).Result()
			if err != nil {
				t.Fatal(err)
			}
			for _, z := range zs {
				total += z.Score
			}
		}
		if int64(total) != added.Load() {
			t.Fatalf("%d points were added; the seasons and the board hold %v", added.Load(), total)
		}
	})
}

func TestRollSeasonsEndsAtTheBoundaryInTheBoardsZone(t *testing.T) {
	ctx := context.Background()
	rdb := redistest.DB(t)
	lb, clock := seasonBoards(rdb)
	board := "weekly-cup"
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err) // domain embeds time/tzdata: the zone is always there
	}
	// A Sunday 23:30 in Berlin of the test server's year: the next boundary is half an hour on.
	sunday := time.Date(testNow.Year(), 6, 1, 23, 30, 0, 0, berlin)
	for sunday.Weekday() != time.Sunday {
		sunday = sunday.AddDate(0, 0, 1)
	}
	clock.Set(sunday)
	if _, err := lb.PatchSettings(ctx, board, domain.BoardSettingsPatch{SeasonEvery: new(domain.Weekly), SeasonZone: new("Europe/Berlin")}); err != nil {
		t.Fatal(err)
	}
	if _, err := lb.AddPoints(ctx, board, "ann", 3); err != nil {
		t.Fatal(err)
	}
	if err := lb.Found.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := lb.RollSeasons(ctx); err != nil || n != 0 {
		t.Fatalf("before the boundary: %d ended, %v", n, err)
	}
	clock.Set(sunday.Add(31 * time.Minute)) // Monday 00:01 in Berlin, Sunday 22:01 UTC
	if n, err := lb.RollSeasons(ctx); err != nil || n != 1 {
		t.Fatalf("after the boundary: %d ended, %v", n, err)
	}
	if n, err := lb.RollSeasons(ctx); err != nil || n != 0 {
		t.Fatalf("a second round ended %d more (%v)", n, err)
	}
	list, _ := lb.Seasons(ctx, board)
	if len(list.Seasons) != 1 || list.Seasons[0].Started == nil || !list.Seasons[0].Started.Equal(sunday.Truncate(time.Millisecond)) {
		t.Fatalf("seasons = %+v", list)
	}
}

func TestResetPeriodResetsOnlyThatPeriod(t *testing.T) {
	redistest.ForEachTopology(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		lb, clock := seasonBoards(rdb)
		board := uniqueBoard(t)
		if _, err := lb.PatchSettings(ctx, board, domain.BoardSettingsPatch{Periods: &[]domain.Period{domain.Daily, domain.Weekly}}); err != nil {
			t.Fatal(err)
		}
		if _, err := lb.AddPoints(ctx, board, "ann", 7); err != nil {
			t.Fatal(err)
		}
		n, err := lb.ResetPeriod(ctx, board, domain.Weekly)
		if err != nil || n != 1 {
			t.Fatalf("reset weekly: %d, %v", n, err)
		}
		k := store.DefaultKeys
		for key, want := range map[string]int64{k.Leaderboard(board): 1, k.PeriodBoard(board, domain.Daily, clock.Now()): 1, k.PeriodBoard(board, domain.Weekly, clock.Now()): 0} {
			if got, _ := rdb.Exists(ctx, key).Result(); got != want {
				t.Errorf("%s exists %d, want %d", key, got, want)
			}
		}
		if _, err := lb.ResetPeriod(ctx, board, domain.AllTime); domain.ErrorCode(err) != domain.EINVALID {
			t.Fatalf("reset of all time as a period: %v", err)
		}
	})
}
