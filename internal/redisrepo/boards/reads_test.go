package boards

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

func players(entries []domain.Entry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Player
	}
	return out
}

func TestAroundAPlayer(t *testing.T) {
	t.Parallel()
	lb, rdb, _ := newBoards(t)
	ctx := context.Background()
	for i := range 10 { // p0 has 0 points (last), p9 has 9 (first)
		rdb.ZAdd(ctx, "leaderboard:b", redis.Z{Score: float64(i), Member: fmt.Sprintf("p%d", i)})
	}
	for _, c := range []struct {
		player string
		n      int
		want   string
		first  int64
	}{
		{"p9", 2, "[p9 p8 p7]", 1},                        // rank 1: nobody above
		{"p0", 2, "[p2 p1 p0]", 8},                        // last rank: nobody below
		{"p5", 2, "[p7 p6 p5 p4 p3]", 3},                  // the middle
		{"p5", 100, "[p9 p8 p7 p6 p5 p4 p3 p2 p1 p0]", 1}, // clamped at both ends
	} {
		t.Run(fmt.Sprintf("%s±%d", c.player, c.n), func(t *testing.T) {
			got, err := lb.Around(ctx, "b", domain.AllTime, c.player, c.n)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(players(got)) != c.want || got[0].Rank != c.first {
				t.Errorf("Around(%s, %d) = %v from rank %d; want %s from %d", c.player, c.n, players(got), got[0].Rank, c.want, c.first)
			}
		})
	}
	if _, err := lb.Around(ctx, "b", domain.AllTime, "nobody", 2); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Errorf("absent player: %v", err)
	}
	for _, n := range []int{0, domain.MaxAround + 1} {
		if _, err := lb.Around(ctx, "b", domain.AllTime, "p1", n); domain.ErrorCode(err) != domain.EINVALID {
			t.Errorf("n=%d: %v", n, err)
		}
	}
}

// pageAll pages through a board and returns every player in order.
func pageAll(t *testing.T, lb *Leaderboards, board string, limit int, between func(page int)) []string {
	t.Helper()
	var all []string
	cursor := ""
	for page := 0; ; page++ {
		p, err := lb.Entries(context.Background(), board, domain.AllTime, cursor, limit)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, players(p.Entries)...)
		if p.NextCursor == nil {
			return all
		}
		if len(p.Entries) != limit {
			t.Fatalf("page %d has %d entries and a next cursor", page, len(p.Entries))
		}
		cursor = *p.NextCursor
		if between != nil {
			between(page)
		}
	}
}

// 100,000 members, a thousand per score: cursor paging returns each once, in ZREVRANGE order.
func TestCursorPagingOverManyTies(t *testing.T) {
	t.Parallel()
	lb, rdb, _ := newBoards(t)
	ctx := context.Background()
	const members = 100_000
	pipe := rdb.Pipeline()
	for i := range members {
		pipe.ZAdd(ctx, "leaderboard:big", redis.Z{Score: float64(i % 100), Member: fmt.Sprintf("m%06d", i)})
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	want := rdb.ZRangeArgs(ctx, redis.ZRangeArgs{Key: "leaderboard:big", Start: 0, Stop: -1, Rev: true}).Val()
	got := pageAll(t, lb, "big", 1000, nil)
	if !slices.Equal(got, want) {
		t.Fatalf("paging gave %d members; differs from ZREVRANGE (%d)", len(got), len(want))
	}
}

// Scores that change between pages do not make the members that did not change appear twice
// or go missing, even when the cursor's own member moved or left.
func TestCursorPagingWhileScoresChange(t *testing.T) {
	t.Parallel()
	lb, rdb, _ := newBoards(t)
	ctx := context.Background()
	for i := range 300 {
		rdb.ZAdd(ctx, "leaderboard:b", redis.Z{Score: float64(i % 7), Member: fmt.Sprintf("m%03d", i)})
	}
	moved := map[string]bool{}
	got := pageAll(t, lb, "b", 20, func(page int) {
		// After each page: the last member seen jumps to the top, one leaves, one joins.
		seen, _ := lb.Entries(ctx, "b", domain.AllTime, "", 300)
		victim := seen.Entries[(page*37)%len(seen.Entries)].Player
		rdb.ZIncrBy(ctx, "leaderboard:b", 100, victim)
		moved[victim] = true
		gone := seen.Entries[(page*53+11)%len(seen.Entries)].Player
		rdb.ZRem(ctx, "leaderboard:b", gone)
		moved[gone] = true
		newcomer := fmt.Sprintf("new%02d", page)
		rdb.ZAdd(ctx, "leaderboard:b", redis.Z{Score: 3, Member: newcomer})
		moved[newcomer] = true
	})
	count := map[string]int{}
	for _, p := range got {
		count[p]++
	}
	for i := range 300 {
		m := fmt.Sprintf("m%03d", i)
		if !moved[m] && count[m] != 1 {
			t.Errorf("%s (never changed) was returned %d times", m, count[m])
		}
	}
	if _, err := lb.Entries(ctx, "b", domain.AllTime, "not-a-cursor", 10); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("bad cursor: %v", err)
	}
}

// An exact multiple of the page size ends with a page that says there is no next one.
func TestCursorPagingEnd(t *testing.T) {
	t.Parallel()
	lb, rdb, _ := newBoards(t)
	ctx := context.Background()
	for i := range 4 {
		rdb.ZAdd(ctx, "leaderboard:b", redis.Z{Score: 1, Member: fmt.Sprintf("m%d", i)})
	}
	p, _ := lb.Entries(ctx, "b", domain.AllTime, "", 2)
	p, _ = lb.Entries(ctx, "b", domain.AllTime, *p.NextCursor, 2)
	if p.NextCursor != nil || fmt.Sprint(players(p.Entries)) != "[m1 m0]" || p.Entries[0].Rank != 3 {
		t.Errorf("last page: %+v", p)
	}
	if p, _ := lb.Entries(ctx, "empty", domain.AllTime, "", 10); len(p.Entries) != 0 || p.NextCursor != nil {
		t.Errorf("empty board: %+v", p)
	}
}

func TestSetRemoveTrimReset(t *testing.T) {
	t.Parallel()
	lb, rdb, _ := newBoards(t)
	ctx := context.Background()
	lb.UpdateSettings(ctx, "b", domain.BoardSettings{TieBreak: domain.TieBreakNone, Periods: []domain.Period{domain.Daily}, RetentionDays: 5})
	for i := range 5 {
		lb.AddPoints(ctx, "b", fmt.Sprintf("p%d", i), int64(10*(i+1)))
	}
	if e, err := lb.SetScore(ctx, "b", "p0", 1000); err != nil || e.Rank != 1 || e.Score != 1000 {
		t.Errorf("set: %+v %v", e, err)
	}
	if _, err := lb.SetScore(ctx, "b", "p0", domain.MaxSafeScore+1); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("set beyond range: %v", err)
	}
	if err := lb.RemovePlayer(ctx, "b", "p1"); err != nil {
		t.Fatal(err)
	}
	if rdb.ZScore(ctx, store.DefaultKeys.PeriodBoard("b", domain.Daily, testNow), "p1").Err() != redis.Nil || rdb.ZScore(ctx, "leaderboard:b", "p1").Err() != redis.Nil {
		t.Error("p1 is still on a board")
	}
	if err := lb.RemovePlayer(ctx, "b", "p1"); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Errorf("removing an absent player: %v", err)
	}
	removed, err := lb.Trim(ctx, "b", 2)
	if err != nil || removed != 2 || fmt.Sprint(rdb.ZRangeArgs(ctx, redis.ZRangeArgs{Key: "leaderboard:b", Start: 0, Stop: -1, Rev: true}).Val()) != "[p0 p4]" {
		t.Errorf("trim: removed %d, %v; board %v", removed, err, rdb.ZRangeArgs(ctx, redis.ZRangeArgs{Key: "leaderboard:b", Start: 0, Stop: -1, Rev: true}).Val())
	}
	for _, keep := range []int64{0, -1, MaxTrimKeep + 1} {
		if _, err := lb.Trim(ctx, "b", keep); domain.ErrorCode(err) != domain.EINVALID {
			t.Errorf("trim keep=%d: %v", keep, err)
		}
	}
	rdb.ZAdd(ctx, "leaderboard:b:eu", redis.Z{Score: 1, Member: "x"}) // another board, not a period
	n, err := lb.Reset(ctx, "b")
	if err != nil || n != 5 { // all-time, today's board, settings, today's unique count, this minute's count of writes
		t.Errorf("reset deleted %d keys, %v", n, err)
	}
	// The score history stays: it is the record of what was done to the board's scores.
	if left := rdb.Keys(ctx, "*").Val(); !slices.Equal(sorted(left), []string{"leaderboard:b:eu", "{leaderboard:b}:history"}) {
		t.Errorf("after reset: %v", left)
	}
}

func sorted(s []string) []string { slices.Sort(s); return s }

func TestUniquePlayersToday(t *testing.T) {
	t.Parallel()
	lb, _, clock := newBoards(t)
	ctx := context.Background()
	for i := range 50 {
		lb.AddPoints(ctx, "b", fmt.Sprintf("p%d", i%20), 1)
	}
	if top, _ := lb.Top(ctx, "b", domain.AllTime, 1); top.UniqueToday != 20 {
		t.Errorf("unique today = %d, want 20", top.UniqueToday)
	}
	clock.Advance(24 * time.Hour)
	lb.AddPoints(ctx, "b", "p1", 1)
	if top, _ := lb.Top(ctx, "b", domain.AllTime, 1); top.UniqueToday != 1 {
		t.Errorf("the next day: unique = %d, want 1", top.UniqueToday)
	}
}

// Discovery lists zpulse's boards and leaderboard:* sorted sets of other services, whatever
// their names hold (spaces, any script), but not other types or names with braces.
func TestDiscoveryListsBoards(t *testing.T) {
	t.Parallel()
	lb, rdb, _ := newBoards(t)
	ctx := context.Background()
	lb.UpdateSettings(ctx, "own", domain.BoardSettings{TieBreak: domain.TieBreakNone, Periods: []domain.Period{domain.Daily}, RetentionDays: 1})
	lb.AddPoints(ctx, "own", "a", 1)
	rdb.ZAdd(ctx, "leaderboard:ext:eu", redis.Z{Score: 1, Member: "x"})
	rdb.ZAdd(ctx, "leaderboard:2026-10", redis.Z{Score: 1, Member: "x"}) // the article's monthly key: a board of its own
	rdb.ZAdd(ctx, "leaderboard:has space", redis.Z{Score: 1, Member: "x"})
	rdb.ZAdd(ctx, "leaderboard:排行榜:2048", redis.Z{Score: 1, Member: "x"})
	rdb.ZAdd(ctx, "leaderboard:a{b}", redis.Z{Score: 1, Member: "x"})
	rdb.Set(ctx, "leaderboard:string", "x", 0)
	rdb.ZAdd(ctx, "queue:email-jobs", redis.Z{Score: 1, Member: "x"})
	for i := range 2500 { // more keys than one SCAN call looks at
		rdb.Set(ctx, fmt.Sprintf("noise:%d", i), "x", 0)
	}
	bs, err := lb.Boards(ctx)
	if err != nil || fmt.Sprint(bs) != "[2026-10 ext:eu has space own 排行榜:2048]" {
		t.Errorf("bs = %v %v", bs, err)
	}
	rdb.Del(ctx, "leaderboard:ext:eu")
	lb.Found.Refresh(ctx)
	if bs, _ := lb.Boards(ctx); fmt.Sprint(bs) != "[2026-10 has space own 排行榜:2048]" {
		t.Errorf("after the key went away: %v", bs)
	}
}
