package boards

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// writeAs writes a player's score as a service using encoding t would (the article's ZADD of
// points + (1.0 − ms/1e13), …), at the time given.
func writeAs(t *testing.T, rdb redis.UniversalClient, key string, enc domain.TieBreak, player string, points int64, at time.Time) float64 {
	t.Helper()
	score, err := enc.Encode(points, at)
	if err != nil {
		t.Fatal(err)
	}
	if err := rdb.ZAdd(context.Background(), key, redis.Z{Score: score, Member: player}).Err(); err != nil {
		t.Fatal(err)
	}
	return score
}

// A board left at first_reached_wide (a legacy first_reached) that the main article's
// service writes: the check names a misfit and the article's encoding, and the fix saves it
// and rewrites zpulse's wide scores in it, points and times kept, so the order by time holds.
func TestCheckAndFixEncodingOfAMixedBoard(t *testing.T) {
	redistest.ForEachTopology(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		lb, clock := seasonBoards(rdb)
		board := uniqueBoard(t)
		if _, err := lb.PatchSettings(ctx, board, domain.BoardSettingsPatch{TieBreak: new(domain.TieBreakFirstReachedWide)}); err != nil {
			t.Fatal(err)
		}
		key := store.DefaultKeys.Leaderboard(board)
		now := clock.Now()
		// zpulse reached 50 first (wide encoding), the article's service 50 a minute later
		// and 70 and 60 after that.
		writeAs(t, rdb, key, domain.TieBreakFirstReachedWide, "early", 50, now.Add(-10*time.Minute))
		writeAs(t, rdb, key, domain.TieBreakFirstReached, "late", 50, now.Add(-9*time.Minute))
		writeAs(t, rdb, key, domain.TieBreakFirstReached, "top", 70, now.Add(-8*time.Minute))
		writeAs(t, rdb, key, domain.TieBreakFirstReached, "mid", 60, now.Add(-7*time.Minute))

		r, err := lb.CheckEncoding(ctx, board)
		if err != nil {
			t.Fatal(err)
		}
		if r.Checked != 4 || r.Misfits != 3 || r.Likely != domain.TieBreakFirstReached || r.Example == nil || r.Example.Player != "top" {
			t.Fatalf("report = %+v (example %+v)", r, r.Example)
		}
		fix, err := lb.FixEncoding(ctx, board, r.Likely)
		if err != nil {
			t.Fatal(err)
		}
		if fix.Rewritten != 1 || fix.Changed != 0 || fix.Left != 0 {
			t.Fatalf("fix = %+v", fix)
		}
		if r, _ := lb.CheckEncoding(ctx, board); r.Misfits != 0 || r.TieBreak != domain.TieBreakFirstReached {
			t.Fatalf("after the fix: %+v", r)
		}
		top, err := lb.Top(ctx, board, domain.AllTime, 10)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"top", "mid", "early", "late"}
		for i, e := range top.Entries {
			if e.Player != want[i] {
				t.Fatalf("order after the fix = %+v, want %v", top.Entries, want)
			}
		}
		if top.Entries[2].Score != 50 {
			t.Fatalf("early's points = %d", top.Entries[2].Score)
		}
	})
}

// The rewrite never overwrites a concurrent write: a member whose score is no longer the one
// read is left as that write made it.
func TestRewriteScoresLeavesAConcurrentWrite(t *testing.T) {
	ctx := context.Background()
	rdb := redistest.DB(t)
	rdb.ZAdd(ctx, "leaderboard:cas", redis.Z{Score: 12, Member: "p"}, redis.Z{Score: 20, Member: "q"})
	keys := []string{"leaderboard:cas", store.DefaultKeys.ScoreRewrite("leaderboard:cas")}
	if res, err := rewriteScoresScript.Run(ctx, rdb, keys, "p", "11", "11.5").Int64Slice(); err != nil || len(res) != 1 || res[0] != -1 {
		t.Fatalf("a rewrite without its marker: %v, %v", res, err)
	}
	if err := startRewriteScript.Run(ctx, rdb, keys[1:], "none", "first_reached").Err(); err != nil {
		t.Fatal(err)
	}
	rdb.HSet(ctx, keys[1], "m:q", 1) // q was converted by its own write meanwhile
	res, err := rewriteScoresScript.Run(ctx, rdb, keys, "p", "11", "11.5", "q", "20", "20.5").Int64Slice()
	if err != nil || res[0] != 0 || res[1] != 2 {
		t.Fatalf("stale rewrite: %v, %v", res, err)
	}
	if s, _ := rdb.ZScore(ctx, "leaderboard:cas", "p").Result(); s != 12 {
		t.Fatalf("the concurrent write was overwritten: %v", s)
	}
	if s, _ := rdb.ZScore(ctx, "leaderboard:cas", "q").Result(); s != 20 {
		t.Fatalf("the converted write was overwritten: %v", s)
	}
}

// A board at "none" receiving the article's fractions: the check says first_reached.
func TestCheckEncodingOfAPlainBoardWithArticleScores(t *testing.T) {
	ctx := context.Background()
	rdb := redistest.DB(t)
	lb, clock := seasonBoards(rdb)
	if _, err := lb.AddPoints(ctx, "plain", "own", 10); err != nil {
		t.Fatal(err)
	}
	writeAs(t, rdb, "leaderboard:plain", domain.TieBreakFirstReached, "svc", 10, clock.Now())
	r, err := lb.CheckEncoding(ctx, "plain")
	if err != nil || r.Misfits != 1 || r.Likely != domain.TieBreakFirstReached || r.Example.Player != "svc" {
		t.Fatalf("report = %+v, %v", r, err)
	}
}

// A rewrite that stopped half way (its marker still running) holds the board's encoding: a
// season does not end, a fix or a save to another encoding is refused, and a fix to the same
// encoding finishes it, converting the players it had not reached.
func TestAStoppedRewriteIsFinishedByTheNextFix(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lb, rdb, _ := newBoards(t)
	board := "stopped"
	for _, p := range []string{"ann", "bob"} {
		if _, err := lb.AddPoints(ctx, board, p, 40); err != nil {
			t.Fatal(err)
		}
	}
	key := store.DefaultKeys.Leaderboard(board)
	marker := []string{store.DefaultKeys.ScoreRewrite(key)}
	// A fix to first_reached_e10 that marked the board, saved the setting and stopped.
	if err := startRewriteScript.Run(ctx, rdb, marker, "none", "first_reached_e10").Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := lb.patchSettings(ctx, board, domain.BoardSettingsPatch{TieBreak: new(domain.TieBreakFirstReachedE10)}, false); err != nil {
		t.Fatal(err)
	}
	if e, err := lb.AddPoints(ctx, board, "ann", 2); err != nil || e.Score != 42 {
		t.Fatalf("an add under the stopped rewrite: %+v, %v", e, err)
	}
	if _, err := lb.EndSeason(ctx, board); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Fatalf("a season end during a rewrite: %v", err)
	}
	if _, err := lb.FixEncoding(ctx, board, domain.TieBreakFirstReached); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Fatalf("a fix to another encoding: %v", err)
	}
	if _, err := lb.UpdateSettings(ctx, board, domain.BoardSettings{TieBreak: domain.TieBreakNone, RetentionDays: domain.DefaultRetentionDays}); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Fatalf("a save of another encoding: %v", err)
	}
	fix, err := lb.FixEncoding(ctx, board, domain.TieBreakFirstReachedE10)
	if err != nil || fix.Rewritten != 1 {
		t.Fatalf("the fix that finishes it: %+v, %v", fix, err)
	}
	for p, want := range map[string]int64{"ann": 42, "bob": 40} {
		if e, err := lb.Player(ctx, board, domain.AllTime, p); err != nil || e.Score != want {
			t.Fatalf("%s after the fix: %+v, %v", p, e, err)
		}
	}
	if s, err := lb.EndSeason(ctx, board); err != nil || s.TieBreak != domain.TieBreakFirstReachedE10 {
		t.Fatalf("a season end after the rewrite: %+v, %v", s, err)
	}
	// A save of another encoding afterwards wins over the finished rewrite's marker.
	if _, err := lb.UpdateSettings(ctx, board, domain.BoardSettings{TieBreak: domain.TieBreakNone, RetentionDays: domain.DefaultRetentionDays}); err != nil {
		t.Fatal(err)
	}
	if e, err := lb.AddPoints(ctx, board, "cid", 5); err != nil || e.Score != 5 {
		t.Fatalf("an add after the save: %+v, %v", e, err)
	}
	if s, _ := rdb.ZScore(ctx, key, "cid").Result(); s != 5 {
		t.Fatalf("cid's score %v is not in the saved encoding", s)
	}
}

// A reset empties the board and drops a stopped rewrite's marker with it: seasons end again.
func TestResetDropsAStoppedRewrite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lb, rdb, _ := newBoards(t)
	if _, err := lb.AddPoints(ctx, "gone", "ann", 4); err != nil {
		t.Fatal(err)
	}
	key := store.DefaultKeys.Leaderboard("gone")
	if err := startRewriteScript.Run(ctx, rdb, []string{store.DefaultKeys.ScoreRewrite(key)}, "none", "first_reached").Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := lb.Reset(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	if n, _ := rdb.Exists(ctx, store.DefaultKeys.ScoreRewrite(key)).Result(); n != 0 {
		t.Fatal("the reset left the rewrite's marker")
	}
	if _, err := lb.AddPoints(ctx, "gone", "bob", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := lb.EndSeason(ctx, "gone"); err != nil {
		t.Fatalf("a season end after the reset: %v", err)
	}
}
