package boards

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// Each add, set and remove zpulse makes is in the board's history, newest first, with the
// actor of the request's context, the points and the all-time score after it; another
// service's ZINCRBY is not; pages go on with their cursor; the stream lives in the board's
// slot. One server and the Cluster, on a plain and a tie-break board.
func TestScoreHistory(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, testScoreHistory)
}

func testScoreHistory(t *testing.T, rdb redis.UniversalClient) {
	lb, clock := newBoardsOn(t, rdb)
	alice := domain.WithActor(context.Background(), domain.Actor{Name: "alice", Role: domain.RoleAdmin, Via: "api"})
	bob := domain.WithActor(context.Background(), domain.Actor{Name: "bob", Role: domain.RoleAdmin, Via: "page"})
	for _, board := range []string{"game:2048", "game:race"} {
		if board == "game:race" {
			if _, err := lb.PatchSettings(alice, board, domain.BoardSettingsPatch{TieBreak: ptrTo(domain.TieBreakFirstReached)}); err != nil {
				t.Fatal(err)
			}
		}
		start := clock.Now()
		if _, err := lb.AddPoints(alice, board, "p1", 5); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Second)
		if _, err := lb.AddPoints(bob, board, "p2", 3); err != nil { // another player: not in p1's history
			t.Fatal(err)
		}
		if _, err := lb.AddPoints(context.Background(), board, "p1", 7); err != nil {
			t.Fatal(err)
		}
		rdb.ZIncrBy(context.Background(), store.DefaultKeys.Leaderboard(board), 100, "p1") // another service's write
		clock.Advance(time.Second)
		if _, err := lb.SetScore(bob, board, "p1", 40); err != nil {
			t.Fatal(err)
		}
		if err := lb.RemovePlayer(alice, board, "p1"); err != nil {
			t.Fatal(err)
		}
		h, err := lb.PlayerHistory(context.Background(), board, "p1", domain.HistoryOptions{Limit: 10})
		if err != nil {
			t.Fatalf("%s: PlayerHistory: %v", board, err)
		}
		want := []domain.ScoreEvent{
			{At: start.Add(2 * time.Second), Points: -40, Score: 0, Actor: "alice", Action: domain.ScoreRemoved},
			{At: start.Add(2 * time.Second), Points: 40, Score: 40, Actor: "bob", Action: domain.ScoreSet},
			{At: start.Add(time.Second), Points: 7, Score: 12, Actor: "anonymous", Action: domain.ScoreAdded},
			{At: start, Points: 5, Score: 5, Actor: "alice", Action: domain.ScoreAdded},
		}
		if len(h.Events) != len(want) || h.Next != "" {
			t.Fatalf("%s: history = %+v; want %+v", board, h, want)
		}
		for i, e := range h.Events {
			w := want[i]
			if !e.At.Equal(w.At.Truncate(time.Millisecond)) || e.Points != w.Points || e.Score != w.Score || e.Actor != w.Actor || e.Action != w.Action {
				t.Errorf("%s: event %d = %+v; want %+v", board, i, e, w)
			}
		}
		page, err := lb.PlayerHistory(context.Background(), board, "p1", domain.HistoryOptions{Limit: 3})
		if err != nil || len(page.Events) != 3 || page.Next == "" {
			t.Fatalf("%s: first page = %+v, %v; want 3 and a cursor", board, page, err)
		}
		rest, err := lb.PlayerHistory(context.Background(), board, "p1", domain.HistoryOptions{Limit: 3, Cursor: page.Next})
		if err != nil || len(rest.Events) != 1 || rest.Events[0].Points != 5 || rest.Next != "" {
			t.Errorf("%s: next page = %+v, %v; want the first add and no more", board, rest, err)
		}
	}
	if _, err := lb.Reset(alice, "game:2048"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"p1", "p2"} { // a reset is every player's
		h, err := lb.PlayerHistory(context.Background(), "game:2048", p, domain.HistoryOptions{Limit: 1})
		if err != nil || len(h.Events) != 1 || h.Events[0].Action != domain.ScoreReset || h.Events[0].Actor != "alice" || h.Events[0].Score != 0 {
			t.Errorf("%s after a reset: %+v, %v; want the reset by alice first", p, h, err)
		}
	}
	if _, err := lb.PlayerHistory(context.Background(), "game:2048", "p1", domain.HistoryOptions{Limit: 3, Cursor: "x"}); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("a made-up cursor: %v; want invalid", err)
	}
}

// The history's scripts take their arguments off ARGV's end (luaScoreHistory): the embedded
// in-memory Redis (miniredis's Lua) runs them as Redis does.
func TestScoreHistoryOnMiniredis(t *testing.T) {
	t.Parallel()
	m := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr()})
	t.Cleanup(func() { rdb.Close() })
	lb := openBoards(rdb, domain.NewManualClock(testNow))
	ctx := domain.WithActor(context.Background(), domain.Actor{Name: "alice"})
	if _, err := lb.AddPoints(ctx, "g", "p1", 5); err != nil {
		t.Fatal(err)
	}
	if _, err := lb.SetScore(ctx, "g", "p1", 9); err != nil {
		t.Fatal(err)
	}
	if err := lb.RemovePlayer(ctx, "g", "p1"); err != nil {
		t.Fatal(err)
	}
	h, err := lb.PlayerHistory(context.Background(), "g", "p1", domain.HistoryOptions{Limit: 10})
	if err != nil || len(h.Events) != 3 || h.Events[0].Action != domain.ScoreRemoved || h.Events[2].Points != 5 || h.Events[1].Actor != "alice" {
		t.Fatalf("history on miniredis = %+v, %v", h, err)
	}
}

func ptrTo[T any](v T) *T { return &v }

// A season's end is one event of every player's history, by its actor, with the season's
// retention (older seasons deleted in the same script) unchanged; one server and the Cluster.
func TestScoreHistoryRecordsSeasonEnds(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, func(t *testing.T, rdb redis.UniversalClient) {
		lb, _ := newBoardsOn(t, rdb)
		carol := domain.WithActor(context.Background(), domain.Actor{Name: "carol", Role: domain.RoleAdmin, Via: "api"})
		keep := 1
		if _, err := lb.PatchSettings(carol, "cup", domain.BoardSettingsPatch{KeepSeasons: &keep}); err != nil {
			t.Fatal(err)
		}
		for season := range 3 {
			if _, err := lb.AddPoints(carol, "cup", "p1", int64(season+1)); err != nil {
				t.Fatal(err)
			}
			if _, err := lb.EndSeason(carol, "cup"); err != nil {
				t.Fatal(err)
			}
		}
		h, err := lb.PlayerHistory(context.Background(), "cup", "p1", domain.HistoryOptions{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var actions []string
		for _, e := range h.Events {
			actions = append(actions, e.Actor+":"+e.Action)
		}
		want := "[carol:season_end carol:add carol:season_end carol:add carol:season_end carol:add]"
		if got := fmt.Sprint(actions); got != want {
			t.Errorf("history %s, want %s", got, want)
		}
		seasons, err := lb.Seasons(context.Background(), "cup")
		if err != nil || len(seasons.Seasons) != 1 || seasons.Dropped != 2 {
			t.Errorf("seasons kept with keep_seasons 1: %+v, %v", seasons, err)
		}
	})
}
