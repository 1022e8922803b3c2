package boards

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// Three broken boards sorted before two healthy ones (a board key replaced by a list, a seasons
// hash that lost its count beside its ended season 1, a settings key of another type): the
// rollover ends the healthy boards' due seasons all the same, returns one failure per broken
// board, notes each on its page and the overview, and drops a note once its board rolls.
func TestRollSeasonsIsolatesABrokenBoard(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rdb := redistest.DB(t)
	lb, clock := seasonBoards(rdb)
	keys := store.DefaultKeys
	boards := []string{"a-list", "b-lost", "c-settings", "d-healthy", "e-healthy"}
	for _, b := range boards {
		if _, err := lb.PatchSettings(ctx, b, domain.BoardSettingsPatch{SeasonEvery: new(domain.Daily)}); err != nil {
			t.Fatal(err)
		}
		if _, err := lb.AddPoints(ctx, b, "ann", 3); err != nil {
			t.Fatal(err)
		}
	}
	rdb.Del(ctx, keys.Leaderboard("a-list"))
	rdb.RPush(ctx, keys.Leaderboard("a-list"), "another service's")
	rdb.HDel(ctx, keys.Seasons("b-lost"), "current")
	rdb.ZAdd(ctx, keys.SeasonBoard("b-lost", 1), redis.Z{Score: 1, Member: "old"})
	rdb.Del(ctx, keys.BoardSettings("c-settings"))
	rdb.Set(ctx, keys.BoardSettings("c-settings"), "not a hash", 0)
	if err := lb.Found.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	clock.Advance(25 * time.Hour)

	var failed []string
	ctx2, cancel := context.WithCancel(ctx)
	ended := 0
	err := lb.RunSeasonRollover(ctx2, time.Hour, func(n int) { ended = n }, func(board string, err error) {
		failed = append(failed, board)
		if len(failed) == 3 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("the loop: %v", err)
	}
	slices.Sort(failed)
	if ended != 2 || !slices.Equal(failed, []string{"a-list", "b-lost", "c-settings"}) {
		t.Fatalf("ended %d, failed %v", ended, failed)
	}
	for _, b := range []string{"d-healthy", "e-healthy"} {
		list, err := lb.Seasons(ctx, b)
		if err != nil || len(list.Seasons) != 1 || list.Current != 2 {
			t.Fatalf("%s's due season did not end: %+v, %v", b, list, err)
		}
	}
	notes, _ := rdb.HGetAll(ctx, keys.SeasonRolloverFailures()).Result()
	if !strings.Contains(notes["a-list"], "list") || !strings.Contains(notes["b-lost"], "already exists") || !strings.Contains(notes["c-settings"], "WRONGTYPE") && !strings.Contains(notes["c-settings"], "type") {
		t.Fatalf("notes = %v", notes)
	}
	sums, err := lb.Summaries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sums {
		if want := notes[s.Board] != ""; (s.RolloverFailure != "") != want {
			t.Errorf("the overview's %s: failure %q", s.Board, s.RolloverFailure)
		}
	}
	if top, err := lb.Top(ctx, "b-lost", domain.AllTime, 3); err != nil || top.RolloverFailure != notes["b-lost"] {
		t.Fatalf("b-lost's page: %+v, %v", top, err)
	}

	// The list goes, its board rolls (an empty board records its start): its note goes too.
	rdb.Del(ctx, keys.Leaderboard("a-list"))
	n, err := lb.RollSeasons(ctx)
	var f RolloverFailure
	if n != 0 || !errors.As(err, &f) || f.Board == "a-list" {
		t.Fatalf("the next round: %d, %v", n, err)
	}
	if notes, _ := rdb.HGetAll(ctx, keys.SeasonRolloverFailures()).Result(); notes["a-list"] != "" || notes["b-lost"] == "" {
		t.Fatalf("notes after the next round = %v", notes)
	}
}
