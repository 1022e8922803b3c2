package boards

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

var timedEncodings = []domain.TieBreak{domain.TieBreakFirstReached, domain.TieBreakFirstReachedE10, domain.TieBreakFirstReachedWide}

func tieBreakBoard(t *testing.T, lb *Leaderboards, board string, enc domain.TieBreak) {
	t.Helper()
	if _, err := lb.UpdateSettings(context.Background(), board, domain.BoardSettings{TieBreak: enc, RetentionDays: 1}); err != nil {
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

// Who reaches a score first ranks higher, also when the score was reached by increments, in
// every encoding that carries a time. On one server and on the Cluster.
func TestTieBreakFirstToReachRanksHigher(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, testTieBreakFirstToReachRanksHigher)
}

func testTieBreakFirstToReachRanksHigher(t *testing.T, rdb redis.UniversalClient) {
	for _, enc := range timedEncodings {
		t.Run(string(enc), func(t *testing.T) {
			lb, clock := newBoardsOn(t, rdb)
			ctx := context.Background()
			board := "tb:" + string(enc) // one Redis for every encoding: a board each
			tieBreakBoard(t, lb, board, enc)
			lb.AddPoints(ctx, board, "zoe", 60) // without the tie-break zoe would lead any tie ("zoe" > "anna")
			clock.Advance(time.Second)
			lb.AddPoints(ctx, board, "anna", 100)
			clock.Advance(time.Second)
			lb.AddPoints(ctx, board, "zoe", 40) // zoe reaches 100 after anna
			if got := order(t, lb, board); got != "anna=100 zoe=100" {
				t.Errorf("order = %s, want anna (first to 100) above zoe", got)
			}
			clock.Advance(time.Second)
			lb.AddPoints(ctx, board, "zoe", 5)
			clock.Advance(time.Second)
			lb.AddPoints(ctx, board, "anna", 5)
			if got := order(t, lb, board); got != "zoe=105 anna=105" {
				t.Errorf("order = %s, want zoe (first to 105) above anna", got)
			}
			clock.Advance(time.Second)
			lb.AddPoints(ctx, board, "zoe", -10)
			if got := order(t, lb, board); got != "anna=105 zoe=95" {
				t.Errorf("after a negative add: %s", got)
			}
			clock.Advance(time.Second)
			e, _ := lb.SetScore(ctx, board, "bea", 105) // set stamps the time too: bea is last of the 105s
			if got := order(t, lb, board); got != "anna=105 bea=105 zoe=95" || e.Rank != 2 || e.Score != 105 {
				t.Errorf("after set: %s (bea %+v)", got, e)
			}
		})
	}
}

// Each encoding writes exactly domain.TieBreak.Encode's score at the edges of its documented
// points range, reads the true points back, and refuses points or times beyond the range.
func TestTieBreakRangeEdges(t *testing.T) {
	t.Parallel()
	outside := map[domain.TieBreak]time.Time{
		domain.TieBreakFirstReached:     time.UnixMilli(1e12 - 1),
		domain.TieBreakFirstReachedE10:  time.Unix(domain.E10MaxTS+1, 0),
		domain.TieBreakFirstReachedWide: domain.WideEpoch.Add(-time.Second),
	}
	for _, enc := range timedEncodings {
		t.Run(string(enc), func(t *testing.T) {
			lb, rdb, clock := newBoards(t)
			ctx := context.Background()
			tieBreakBoard(t, lb, "tb", enc)
			max := enc.MaxPoints()
			for _, c := range []struct {
				player string
				points int64
			}{{"max", max}, {"min", -max}, {"zero", 0}, {"one", 1}, {"minus-one", -1}} {
				e, err := lb.AddPoints(ctx, "tb", c.player, c.points)
				if err != nil {
					t.Fatalf("%s: %v", c.player, err)
				}
				want, _ := enc.Encode(c.points, testNow)
				if raw := rdb.ZScore(ctx, "leaderboard:tb", c.player).Val(); raw != want || e.Score != c.points || e.Raw != want {
					t.Errorf("%s: Redis holds %v, entry %+v; want exactly %v with points %d", c.player, raw, e, want, c.points)
				}
			}
			if got := order(t, lb, "tb"); got != fmt.Sprintf("max=%d one=1 zero=0 minus-one=-1 min=%d", max, -max) {
				t.Errorf("order = %s", got)
			}
			if _, err := lb.AddPoints(ctx, "tb", "max", 1); domain.ErrorCode(err) != domain.EINVALID || !strings.Contains(domain.ErrorMessage(err), fmt.Sprint(max)) {
				t.Errorf("max+1 = %v, want EINVALID naming the range", err)
			}
			if _, err := lb.AddPoints(ctx, "tb", "new", max+1); domain.ErrorCode(err) != domain.EINVALID {
				t.Errorf("points beyond the range = %v", err)
			}
			clock.Set(outside[enc])
			if _, err := lb.AddPoints(ctx, "tb", "x", 1); domain.ErrorCode(err) != domain.EINVALID || !strings.Contains(domain.ErrorMessage(err), "between") {
				t.Errorf("at %v: %v, want EINVALID about the time range", outside[enc], err)
			}
			if rdb.ZScore(ctx, "leaderboard:tb", "x").Err() == nil {
				t.Error("a refused add wrote")
			}
		})
	}
}

// The documented time resolution, at 100, 10^4 and 10^6 points: writes two resolutions apart
// always rank in time order, and the figures are the ones tiebreak.go states.
func TestTieBreakResolutionAtMagnitudes(t *testing.T) {
	t.Parallel()
	documented := map[domain.TieBreak][3]time.Duration{
		domain.TieBreakFirstReached:     {time.Millisecond, 18189894, 1164153218},
		domain.TieBreakFirstReachedE10:  {time.Second, time.Second, time.Second},
		domain.TieBreakFirstReachedWide: {time.Second, time.Second, time.Second},
	}
	for _, enc := range timedEncodings {
		for i, points := range []int64{100, 10_000, 1_000_000} {
			t.Run(fmt.Sprintf("%s/%d", enc, points), func(t *testing.T) {
				res := enc.ResolutionAt(points)
				if want := documented[enc][i]; res.Round(time.Microsecond) != want.Round(time.Microsecond) {
					t.Errorf("ResolutionAt(%d) = %v, documented %v", points, res, want)
				}
				lb, _, clock := newBoards(t)
				ctx := context.Background()
				tieBreakBoard(t, lb, "tb", enc)
				if points > enc.MaxPoints() { // 10^6 is beyond the second article's 900,718
					if _, err := lb.SetScore(ctx, "tb", "zed", points); domain.ErrorCode(err) != domain.EINVALID {
						t.Errorf("%d points on %s = %v, want EINVALID", points, enc, err)
					}
					return
				}
				for _, p := range []string{"zed", "amy", "kim"} { // reverse name order: only time can rank them so
					if _, err := lb.SetScore(ctx, "tb", p, points); err != nil {
						t.Fatal(err)
					}
					clock.Advance(2 * res)
				}
				if got, want := order(t, lb, "tb"), fmt.Sprintf("zed=%d amy=%d kim=%d", points, points, points); got != want {
					t.Errorf("order = %s, want %s", got, want)
				}
			})
		}
	}
	// Closer than the resolution two writes may share a score but never invert.
	a, _ := domain.TieBreakFirstReached.Encode(1_000_000, testNow)
	b, _ := domain.TieBreakFirstReached.Encode(1_000_000, testNow.Add(time.Millisecond))
	if b > a {
		t.Errorf("a later write encodes higher: %v > %v", b, a)
	}
}

// Many goroutines adding to one player on a tie-break board: exact points, first-to-reach order.
func TestTieBreakConcurrentAdds(t *testing.T) {
	t.Parallel()
	lb, _, clock := newBoards(t)
	ctx := context.Background()
	tieBreakBoard(t, lb, "tb", domain.TieBreakFirstReached)
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

// Without an injected clock the article encoding stamps Redis TIME inside the script.
func TestTieBreakStampsRedisTime(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	lb := openBoards(rdb, nil)
	ctx := context.Background()
	tieBreakBoard(t, lb, "tb", domain.TieBreakFirstReached)
	before, err := rdb.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	e, err := lb.AddPoints(ctx, "tb", "ann", 42)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := rdb.Time(ctx).Result()
	ms := math.Round((1 - (e.Raw - 42)) * 1e13)
	if e.Score != 42 || ms < float64(before.UnixMilli())-1 || ms > float64(after.UnixMilli())+1 {
		t.Errorf("entry %+v stamps %v ms, want between Redis TIME %d and %d", e, ms, before.UnixMilli(), after.UnixMilli())
	}
}

// A board saved before the encodings had names ("tie_break" = "first_reached" in the settings
// HASH) holds wide scores: it reads and keeps writing first_reached_wide until saved again.
func TestTieBreakLegacySettingsReadAsWide(t *testing.T) {
	t.Parallel()
	lb, rdb, _ := newBoards(t)
	ctx := context.Background()
	rdb.HSet(ctx, store.DefaultKeys.BoardSettings("old"), "tie_break", "first_reached", "retention_days", "7")
	wide, _ := domain.TieBreakFirstReachedWide.Encode(3_000_000, testNow.Add(-time.Hour))
	rdb.ZAdd(ctx, "leaderboard:old", redis.Z{Score: wide, Member: "early"})
	s, err := lb.Settings(ctx, "old")
	if err != nil || s.TieBreak != domain.TieBreakFirstReachedWide || s.RetentionDays != 7 {
		t.Fatalf("legacy settings = %+v, %v; want first_reached_wide", s, err)
	}
	if _, err := lb.AddPoints(ctx, "old", "late", 3_000_000); err != nil {
		t.Fatal(err)
	}
	if got := order(t, lb, "old"); got != "early=3000000 late=3000000" {
		t.Errorf("order = %s: the legacy board must keep one encoding", got)
	}
	s, err = lb.UpdateSettings(ctx, "old", domain.BoardSettings{TieBreak: domain.TieBreakFirstReached, RetentionDays: 7})
	if err != nil || s.TieBreak != domain.TieBreakFirstReached {
		t.Fatalf("save = %+v, %v", s, err)
	}
	if h := rdb.HGetAll(ctx, store.DefaultKeys.BoardSettings("old")).Val(); h["ties"] != "first_reached" || h["tie_break"] != "" {
		t.Errorf("settings hash after a save = %v", h)
	}
}
