package boards

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// dumpAll returns every key with its DUMPed value.
func dumpAll(t *testing.T, rdb *redis.Client) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	for _, k := range rdb.Keys(ctx, "*").Val() {
		v, err := rdb.Dump(ctx, k).Result()
		if err != nil {
			t.Fatalf("DUMP %s: %v", k, err)
		}
		out[k] = v
	}
	return out
}

// Reset deletes the board's own keys and nothing else: boards whose names start like it
// (x:extra, xy), a board whose name looks like its unique-player key (x:unique:y) or its
// settings key (x:settings), another service's board x:eu, and a board with periods of its
// own keep every key and value.
func TestResetTouchesNothingElse(t *testing.T) {
	t.Parallel()
	lb, rdb, clock := newBoards(t)
	ctx := context.Background()
	all := []domain.Period{domain.Daily, domain.Weekly, domain.Monthly}
	for _, b := range []string{"x", "x:extra", "x:unique:y", "y"} {
		if _, err := lb.PatchSettings(ctx, b, domain.BoardSettingsPatch{Periods: &all}); err != nil {
			t.Fatal(err)
		}
	}
	write := func(boards ...string) {
		for _, b := range boards {
			if _, err := lb.AddPoints(ctx, b, "p", 1); err != nil {
				t.Fatal(err)
			}
		}
	}
	write("x", "x:extra", "xy", "x:unique:y", "x:settings", "y")
	old := testNow.AddDate(0, 0, -40) // older periods' boards, still within their retention
	clock.Set(old)
	write("x", "y")
	clock.Set(testNow)
	rdb.ZAdd(ctx, "leaderboard:x:eu", redis.Z{Score: 1, Member: "p"}) // another service's board x:eu
	// x's count of writes 40 days ago stays only because the manual clock kept Redis from
	// expiring it (boardAddsTTL, 10 minutes); this minute's goes with the board.
	gone := []string{"leaderboard:x", "zpulse:board:{x}:settings", "zpulse:board:{x}:unique:" + domain.Daily.Suffix(testNow),
		store.DefaultKeys.BoardAdds("x", testNow)}
	for _, p := range all {
		gone = append(gone, "leaderboard:x:"+p.Suffix(testNow), "leaderboard:x:"+p.Suffix(old))
	}
	before := dumpAll(t, rdb)
	for _, k := range gone {
		if _, ok := before[k]; !ok {
			t.Fatalf("the test wrote no %s; keys: %v", k, slices.Sorted(maps.Keys(before)))
		}
	}
	index := rdb.SMembers(ctx, store.DefaultKeys.BoardIndex()).Val()

	n, err := lb.Reset(ctx, "x")
	if err != nil || n != int64(len(gone)) {
		t.Errorf("Reset = %d, %v; want %d keys deleted", n, err, len(gone))
	}
	after := dumpAll(t, rdb)
	for _, k := range gone {
		if _, ok := after[k]; ok {
			t.Errorf("%s is still there", k)
		}
		delete(before, k)
	}
	delete(before, store.DefaultKeys.BoardIndex())
	delete(after, store.DefaultKeys.BoardIndex())
	// x's score history stays and records the reset (the record of what was done to it).
	delete(before, store.DefaultKeys.BoardHistory("x"))
	delete(after, store.DefaultKeys.BoardHistory("x"))
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s changed or went away", k)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			t.Errorf("%s appeared", k)
		}
	}
	want := slices.DeleteFunc(index, func(b string) bool { return b == "x" })
	if got := rdb.SMembers(ctx, store.DefaultKeys.BoardIndex()).Val(); !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
		t.Errorf("board index = %v, want %v", got, want)
	}
}
