package redisrepo

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// One refresh finds every kind other services wrote; a key that is gone leaves the cache when
// the next sweep ends, while names of zpulse's indexes stay.
func TestDiscoveryFindsEveryKind(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rdb := redistest.DB(t)
	svc := openTest(t, rdb, domain.NewManualClock(testNow))
	svc.Leaderboards.AddPoints(ctx, "own", "a", 1)
	rdb.ZAdd(ctx, "leaderboard:theirs", redis.Z{Score: 1, Member: "x"})
	rdb.ZAdd(ctx, "leaderboard:theirs:2026-11-29", redis.Z{Score: 1, Member: "x"}) // a period board of theirs
	rdb.ZAdd(ctx, "queue:java-jobs", redis.Z{Score: 1, Member: "j"})
	rdb.Set(ctx, "lock:article", "uuid", time.Minute)
	rdb.HSet(ctx, "lock:redisson", "owner", "1") // another service's lock may be a hash
	rdb.Set(ctx, "leaderboard:not-a-zset", "x", 0)
	if err := svc.Discovery.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	want := map[store.Kind]string{store.KindBoard: "[own theirs]", store.KindQueue: "[java-jobs]", store.KindLock: "[article redisson]"}
	for k, w := range want {
		if got := fmt.Sprint(svc.Discovery.Names(k)); got != w {
			t.Errorf("kind %d: %s, want %s", k, got, w)
		}
	}
	rdb.Del(ctx, "leaderboard:theirs", "leaderboard:theirs:2026-11-29", "leaderboard:own")
	if err := svc.Discovery.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(svc.Discovery.Names(store.KindBoard)); got != "[own]" {
		t.Errorf("after the boards were deleted: %s, want the indexed one only", got)
	}
}

// Every SCAN is bounded (COUNT scanCount) and so is the number of calls of one refresh, on a
// keyspace larger than one refresh covers (the needle may lie beyond the first refresh's
// reach); the sweep goes on where it stopped.
func TestDiscoveryIsBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rdb := redistest.DB(t)
	svc := openTest(t, rdb, nil)
	pipe := rdb.Pipeline()
	for i := range 3 * store.ScanCount * store.ScanCalls / 2 {
		pipe.Set(ctx, fmt.Sprintf("other:%d", i), "x", 0)
	}
	pipe.ZAdd(ctx, "queue:needle", redis.Z{Score: 1, Member: "j"})
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	hook := &scanHook{}
	rdb.AddHook(hook)
	var refreshes int
	for !slices.Contains(svc.Discovery.Names(store.KindQueue), "needle") {
		if refreshes++; refreshes > 4 {
			t.Fatal("the needle was not found within 4 refreshes")
		}
		hook.calls = 0
		if err := svc.Discovery.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		if hook.calls > store.SweepsPerRefresh*store.ScanCalls {
			t.Fatalf("one refresh made %d SCAN calls, want at most %d", hook.calls, store.SweepsPerRefresh*store.ScanCalls)
		}
	}
	if hook.unbounded != "" {
		t.Errorf("a SCAN without COUNT %d: %s", store.ScanCount, hook.unbounded)
	}
}

type scanHook struct {
	redistest.CountingHook
	calls     int
	unbounded string
}

func (h *scanHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if cmd.Name() == "scan" {
			h.calls++
			if args := fmt.Sprint(cmd.Args()); !strings.Contains(args, fmt.Sprintf("count %d", store.ScanCount)) {
				h.unbounded = args
			}
		}
		return next(ctx, cmd)
	}
}

// On a Cluster, locks and limiter clients that other services wrote on each of the three
// masters appear in one call: one lock list, one discovery refresh (its SCAN goes to every
// master, not to whichever node a keyless command reaches).
func TestDiscoveryReachesEveryMaster(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rdb := redistest.ClusterTurn(t)
	svc := openTest(t, rdb, nil)
	now := rdb.Time(ctx).Val().UnixMilli() // the servers' clock, which the window is read by
	// A lock and a limiter client on each master, written as another service would.
	var wantLocks, wantClients []string
	k := DefaultKeys
	for _, key := range redistest.KeyOnEveryMaster(t, rdb, func(i int) string { return k.Lock(fmt.Sprintf("theirs-%d", i)) }) {
		if err := rdb.Set(ctx, key, "uuid", time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
		wantLocks = append(wantLocks, strings.TrimPrefix(key, k.Lock("")))
	}
	for _, key := range redistest.KeyOnEveryMaster(t, rdb, func(i int) string { return k.RatePrefix + fmt.Sprintf("c-%d", i) }) {
		if err := rdb.ZAdd(ctx, key, redis.Z{Score: float64(now), Member: "u1"}).Err(); err != nil {
			t.Fatal(err)
		}
		wantClients = append(wantClients, strings.TrimPrefix(key, k.RatePrefix))
	}
	if len(wantLocks) != 3 {
		t.Fatalf("a lock on each of %d masters, want 3", len(wantLocks))
	}
	if err := svc.Discovery.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	held, err := svc.Locks.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var gotLocks []string
	for _, l := range held.Locks {
		gotLocks = append(gotLocks, l.Lock)
	}
	slices.Sort(wantLocks)
	if !slices.Equal(gotLocks, wantLocks) {
		t.Errorf("one lock list = %v, want the locks on every master %v", gotLocks, wantLocks)
	}
	view, err := svc.Limiters.View(ctx, domain.DefaultLimiter)
	if err != nil {
		t.Fatal(err)
	}
	var gotClients []string
	for _, c := range view.Clients {
		gotClients = append(gotClients, c.Client)
	}
	slices.Sort(gotClients)
	slices.Sort(wantClients)
	if !slices.Equal(gotClients, wantClients) {
		t.Errorf("after one refresh the default limiter lists %v, want the clients on every master %v", gotClients, wantClients)
	}
}
