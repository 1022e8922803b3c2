package redisrepo

import (
	"github.com/zpulse/zpulse/internal/redisrepo/store"

	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
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

// Limiter clients whose (policy, client) pairs spell alike keep separate state, for every
// algorithm: one's checks never use up the other's quota, either way round.
func TestLimiterLookAlikePairsStayApart(t *testing.T) {
	one := func(name string, a domain.Algorithm) domain.LimitPolicy {
		if a == domain.TokenBucket {
			return domain.LimitPolicy{Name: name, Algorithm: a, RatePerS: domain.MinRatePerS, Burst: 1}
		}
		return domain.LimitPolicy{Name: name, Algorithm: a, Limit: 1, WindowMs: 10_000}
	}
	type pc struct{ policy, client string }
	for _, alg := range domain.Algorithms {
		for _, pair := range [][2]pc{{{"default", "pa:c"}, {"pa", "c"}}, {{"pb", "x:y"}, {"pb:x", "y"}}} {
			for _, order := range [][2]pc{pair, {pair[1], pair[0]}} {
				first, second := order[0], order[1]
				t.Run(string(alg)+" "+first.policy+"/"+first.client+" then "+second.policy+"/"+second.client, func(t *testing.T) {
					l, rdb, _ := newTestLimiters(t)
					ctx := context.Background()
					for _, p := range []domain.LimitPolicy{one("default", domain.SlidingLog), one("pa", alg), one("pb", alg), one("pb:x", alg)} {
						if _, err := l.SetPolicy(ctx, p); err != nil {
							t.Fatal(err)
						}
					}
					if r1, r2 := mustAllow(t, l, first.policy, first.client), mustAllow(t, l, first.policy, first.client); !r1.Allowed || r2.Allowed {
						t.Fatalf("%v: %+v then %+v, want the limit of 1 met", first, r1, r2)
					}
					if r := mustAllow(t, l, second.policy, second.client); !r.Allowed {
						t.Errorf("%v after %v used its quota: %+v; want its own quota untouched", second, first, r)
					}
					var states []string
					for _, c := range order {
						p, _ := l.Policy(ctx, c.policy)
						states = append(states, store.DefaultKeys.LimiterState(p, c.client))
					}
					if states[0] == states[1] || rdb.Exists(ctx, states[0], states[1]).Val() != 2 {
						t.Errorf("%v: want two keys, both written", states)
					}
				})
			}
		}
	}
}

// The reading side: rate keys another service wrote on the articles' rate:<client> belong to
// the policy "default", whatever ":" the client holds; zpulse's own keys of other policies
// read back as theirs; keys of unsaved policies or foreign shapes are nobody's.
func TestParseSlidingLog(t *testing.T) {
	logs := map[string]domain.LimitPolicy{"default": domain.DefaultPolicy, "pa": {Name: "pa", Algorithm: domain.SlidingLog}}
	for key, want := range map[string][2]string{
		"rate:c-77":           {"default", "c-77"},
		"rate:pa:c":           {"default", "pa:c"},
		"rate:sl:pa:{c}":      {"pa", "c"},
		"rate:sl:pa:{x:y}":    {"pa", "x:y"},
		"rate:sl:pb:{c}":      {}, // pb is not a saved sliding log
		"rate:fw:pa:{c}":      {}, // another algorithm's state
		"rate:sl:pa:{c}x":     {},
		"rate:sl:pa{c}":       {},
		"rate:sl:default:{c}": {},
		"rate:x{y}":           {},
		"leaderboard:c":       {},
	} {
		policy, client, ok := store.DefaultKeys.ParseSlidingLog(key, logs)
		if got := [2]string{policy, client}; got != want || ok != (want[0] != "") {
			t.Errorf("parseSlidingLog(%q) = %q, %q, %v; want %q", key, policy, client, ok, want)
		}
	}
}

// Lock names under zpulse's own prefix are its singleton loops': nobody else takes them.
func TestSingletonLockNamesAreReserved(t *testing.T) {
	svc, _, _ := newLimiterServices(t)
	ctx := context.Background()
	if _, err := svc.Locks.Acquire(ctx, "zpulse:queue-reaper", domain.LockOptions{TTL: time.Second}); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("Acquire of a singleton's lock: %v, want EINVALID", err)
	}
	if _, err := svc.Locks.Hold(ctx, "zpulse:demo", domain.LockOptions{TTL: time.Second}); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("Hold of a singleton's lock: %v, want EINVALID", err)
	}
}
