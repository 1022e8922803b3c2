package boards

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// The articles' example: alice 120, bob 95, carol 150, bob +60.
func TestAddPointsArticleExample(t *testing.T) {
	t.Parallel()
	lb, rdb, _ := newBoards(t)
	ctx := context.Background()
	for _, a := range []struct {
		player string
		points int64
	}{{"alice", 120}, {"bob", 95}, {"carol", 150}, {"bob", 60}} {
		if _, err := lb.AddPoints(ctx, "game:2048", a.player, a.points); err != nil {
			t.Fatal(err)
		}
	}
	top, err := lb.Top(ctx, "game:2048", domain.AllTime, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []domain.Entry{domain.NewEntry(domain.TieBreakNone, 1, "bob", 155), domain.NewEntry(domain.TieBreakNone, 2, "carol", 150), domain.NewEntry(domain.TieBreakNone, 3, "alice", 120)}
	if fmt.Sprint(top.Entries) != fmt.Sprint(want) || top.Players != 3 || top.Board != "game:2048" {
		t.Errorf("Top = %+v, want %v and 3 players", top, want)
	}
	alice, err := lb.Player(ctx, "game:2048", domain.AllTime, "alice")
	if err != nil || alice.Rank != 3 || alice.Score != 120 {
		t.Errorf("Player(alice) = %+v, %v; want rank 3, score 120", alice, err)
	}
	if _, err := lb.Player(ctx, "game:2048", domain.AllTime, "nobody"); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Errorf("Player(nobody) = %v, want ENOTFOUND", err)
	}
	// The same keys as the articles: a service written from them sees the same board.
	if got := rdb.ZRevRangeWithScores(ctx, "leaderboard:game:2048", 0, 0).Val(); got[0].Member != "bob" || got[0].Score != 155 {
		t.Errorf("raw ZREVRANGE leaderboard:game:2048 = %v", got)
	}
	if bs, _ := lb.Boards(ctx); fmt.Sprint(bs) != "[game:2048]" {
		t.Errorf("Boards = %v", bs)
	}
}

func TestAddPointsReturnsScoreAndRank(t *testing.T) {
	t.Parallel()
	lb, _, _ := newBoards(t)
	ctx := context.Background()
	e, err := lb.AddPoints(ctx, "b", "alice", 10)
	if err != nil || e != (domain.Entry{Rank: 1, Player: "alice", Score: 10, Raw: 10}) {
		t.Fatalf("first add = %+v, %v", e, err)
	}
	lb.AddPoints(ctx, "b", "bob", 20)
	if e, _ := lb.AddPoints(ctx, "b", "alice", -5); e != (domain.Entry{Rank: 2, Player: "alice", Score: 5, Raw: 5}) {
		t.Errorf("negative add = %+v, want alice 5 at rank 2", e)
	}
}

// Every score zpulse writes stays an exact integer: a result outside ±(2^53−1) is refused
// and nothing is written.
func TestAddPointsRefusesScoresOutsideTheExactRange(t *testing.T) {
	t.Parallel()
	lb, rdb, _ := newBoards(t)
	ctx := context.Background()
	if _, err := lb.AddPoints(ctx, "b", "max", domain.MaxSafeScore); err != nil {
		t.Fatalf("adding MaxSafeScore: %v", err)
	}
	_, err := lb.AddPoints(ctx, "b", "max", 1)
	if domain.ErrorCode(err) != domain.EINVALID || !strings.Contains(domain.ErrorMessage(err), "exact range") {
		t.Fatalf("max+1 = %v, want EINVALID about the exact range", err)
	}
	if got := rdb.ZScore(ctx, "leaderboard:b", "max").Val(); got != domain.MaxSafeScore {
		t.Errorf("score after the refused add = %v, want unchanged %d", got, int64(domain.MaxSafeScore))
	}
	lb.AddPoints(ctx, "b", "min", -domain.MaxSafeScore)
	if _, err := lb.AddPoints(ctx, "b", "min", -1); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("min-1 = %v, want EINVALID", err)
	}
	if _, err := lb.AddPoints(ctx, "b", "x", domain.MaxSafeScore+1); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("points beyond range = %v, want EINVALID", err)
	}
	if n := rdb.Exists(ctx, "leaderboard:b").Val(); n != 1 || rdb.ZScore(ctx, "leaderboard:b", "x").Err() != redis.Nil {
		t.Error("a refused add wrote a member")
	}
}

func TestInvalidInputWritesNothing(t *testing.T) {
	t.Parallel()
	lb, rdb, _ := newBoards(t)
	ctx := context.Background()
	for _, c := range []struct{ board, player string }{{"bad board", "a"}, {"", "a"}, {"b", ""}, {"b", strings.Repeat("x", 65)}, {"b", "a\x00"}} {
		t.Run(fmt.Sprintf("%q/%q", c.board, c.player), func(t *testing.T) {
			if _, err := lb.AddPoints(ctx, c.board, c.player, 1); domain.ErrorCode(err) != domain.EINVALID {
				t.Errorf("AddPoints(%q, %q) = %v, want EINVALID", c.board, c.player, err)
			}
		})
	}
	if keys := rdb.Keys(ctx, "*").Val(); len(keys) != 0 {
		t.Errorf("invalid input wrote %v", keys)
	}
	if _, err := lb.Top(ctx, "b", domain.AllTime, 0); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("Top(n=0) = %v", err)
	}
	if _, err := lb.Top(ctx, "b", domain.AllTime, domain.MaxTopN+1); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("Top(n=1001) = %v", err)
	}
}

// A board written by another service with the articles' tie-break encoding shows its real
// points (floor).
func TestReadsBoardsWrittenByOthers(t *testing.T) {
	t.Parallel()
	lb, rdb, _ := newBoards(t)
	ctx := context.Background()
	// The article's addPointsWithTieBreak: points + 1 − ms/1e13.
	ms := float64(testNow.UnixMilli())
	rdb.ZAdd(ctx, "leaderboard:ext", redis.Z{Score: 120 + 1 - ms/1e13, Member: "ann"}, redis.Z{Score: 7, Member: "ben"})
	top, err := lb.Top(ctx, "ext", domain.AllTime, 10)
	if err != nil || len(top.Entries) != 2 || top.Entries[0].Score != 120 || top.Entries[0].Raw != 120+1-ms/1e13 || top.Players != 2 {
		t.Errorf("Top(ext) = %+v, %v", top, err)
	}
}

// ZINCRBY inside one script keeps concurrent adds exact.
func TestConcurrentAddsAreExact(t *testing.T) {
	t.Parallel()
	lb, rdb, _ := newBoards(t)
	ctx := context.Background()
	const writers, adds = 50, 40
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := range adds {
				if _, err := lb.AddPoints(ctx, "race", "one", int64(w*adds+i)); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	n := int64(writers * adds)
	if got, want := rdb.ZScore(ctx, "leaderboard:race", "one").Val(), float64(n*(n-1)/2); got != want {
		t.Errorf("score = %v, want the exact sum %v", got, want)
	}
}

// After SCRIPT FLUSH (or a Redis restart) the script is loaded again.
func TestAddPointsSurvivesScriptFlush(t *testing.T) {
	// Serial: SCRIPT FLUSH empties the whole server's script cache, under every other test.
	lb, rdb, _ := newBoards(t)
	ctx := context.Background()
	lb.AddPoints(ctx, "b", "a", 1)
	rdb.ScriptFlush(ctx)
	if e, err := lb.AddPoints(ctx, "b", "a", 1); err != nil || e.Score != 2 {
		t.Fatalf("after SCRIPT FLUSH: %+v, %v", e, err)
	}
}

// An add sends its script, the PFADD and the history's HINCRBY; the index SADD and the
// EXPIREs of the unique and history keys go with the first add of a board in a process and
// then about once a minute.
func TestAddPointsBookkeepingOnlyWhenItChangesSomething(t *testing.T) {
	t.Parallel()
	lb, rdb, clock := newBoards(t)
	ctx := context.Background()
	hook := &redistest.CountingHook{}
	rdb.AddHook(hook)
	add := func() int {
		t.Helper()
		before := hook.Commands
		if _, err := lb.AddPoints(ctx, "lean", "alice", 1); err != nil {
			t.Fatal(err)
		}
		return hook.Commands - before
	}
	lb.AddPoints(ctx, "warm", "alice", 1) // loads the script
	lb.Settings(ctx, "lean")              // the settings read is cached; leave it out of the count
	if n := add(); n != 6 {
		t.Errorf("first add sent %d commands, want 6 (script, SADD, PFADD, EXPIREAT, HINCRBY, EXPIRE)", n)
	}
	if n := add(); n != 3 {
		t.Errorf("second add sent %d commands, want 3 (script, PFADD, HINCRBY)", n)
	}
	if ttl := rdb.PTTL(ctx, store.DefaultKeys.BoardUnique("lean", clock.Now())).Val(); ttl <= 0 {
		t.Errorf("unique key TTL = %v, want one", ttl)
	}
	if !rdb.SIsMember(ctx, store.DefaultKeys.BoardIndex(), "lean").Val() {
		t.Error("the board is not in the index")
	}
	// Another instance resets the board: the index and expiry come back within the refresh.
	rdb.Del(ctx, store.DefaultKeys.BoardUnique("lean", clock.Now()))
	rdb.SRem(ctx, store.DefaultKeys.BoardIndex(), "lean")
	clock.Advance(store.BookkeepingRefresh)
	lb.Settings(ctx, "lean")
	if n := add(); n != 6 {
		t.Errorf("add after the refresh sent %d commands, want 6", n)
	}
	if ttl := rdb.PTTL(ctx, store.DefaultKeys.BoardUnique("lean", clock.Now())).Val(); ttl <= 0 || !rdb.SIsMember(ctx, store.DefaultKeys.BoardIndex(), "lean").Val() {
		t.Errorf("after the refresh: unique TTL %v, indexed %v", ttl, rdb.SIsMember(ctx, store.DefaultKeys.BoardIndex(), "lean").Val())
	}
}
