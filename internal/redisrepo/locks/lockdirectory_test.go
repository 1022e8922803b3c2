package locks

import (
	"fmt"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// A lock whose expiry sits on the 100 ms the live read rounds to reads the same at every
// tick: TIME and PTTL, read a moment apart, may sum to a millisecond short, which without
// keepExpiries flipped the rounded expiry (and so sent its row, and held the watcher's next
// frame back) at some of the polls.
func TestAHeldLocksExpiryReadsTheSameAtEveryTick(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	keys := store.DefaultKeys
	dir := NewLockDirectory(store.NewDiscovery(rdb, keys, nil))
	now, err := rdb.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	// On the boundary: 50 ms past a whole 100 ms, a minute from now.
	at := (now.Add(time.Minute).UnixMilli()/100)*100 + 50
	// Behind 199 other locks (names sort first), its PTTL runs a millisecond or so after the
	// tick's TIME, as a busy page's locks do.
	pipe := rdb.Pipeline()
	for i := range domain.MaxLocksShown - 1 {
		name := fmt.Sprintf("before-%03d", i)
		pipe.Set(ctx, keys.Lock(name), "tok", time.Hour)
		pipe.SAdd(ctx, keys.LockIndex(), name)
	}
	pipe.Set(ctx, keys.Lock("edge"), "tok", 0)
	pipe.PExpireAt(ctx, keys.Lock("edge"), time.UnixMilli(at))
	pipe.SAdd(ctx, keys.LockIndex(), "edge")
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	read := func() domain.LockInfo {
		pipe := rdb.Pipeline()
		decode := dir.Plan(ctx, pipe, keys, false)
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
		held, _ := decode()
		if len(held.Locks) != domain.MaxLocksShown {
			t.Fatalf("%d locks read, want %d", len(held.Locks), domain.MaxLocksShown)
		}
		return held.Locks[len(held.Locks)-1]
	}
	// The index's names are read from the tick after the one that read the index.
	decode := dir.Plan(ctx, pipe, keys, false)
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	decode()
	first := read()
	if first.Lock != "edge" || (first.ExpiresAtMs != at-50 && first.ExpiresAtMs != at+50) {
		t.Fatalf("the lock reads %+v, want edge expiring at %d rounded to 100 ms", first, at)
	}
	for i := range 300 {
		if l := read(); l.ExpiresAtMs != first.ExpiresAtMs {
			t.Fatalf("read %d: expiry %d, the first read said %d", i, l.ExpiresAtMs, first.ExpiresAtMs)
		}
	}
	// A new lease moves it at once.
	rdb.PExpireAt(ctx, keys.Lock("edge"), time.UnixMilli(at+30_000))
	if l := read(); l.ExpiresAtMs != at+30_000-50 && l.ExpiresAtMs != at+30_000+50 {
		t.Errorf("after a new lease the expiry reads %d, want %d rounded", l.ExpiresAtMs, at+30_000)
	}
}

func TestKeepExpiries(t *testing.T) {
	locks := []domain.LockInfo{{Lock: "a", ExpiresAtMs: 1100}, {Lock: "b", ExpiresAtMs: 5000}, {Lock: "c", ExpiresAtMs: 0}, {Lock: "new", ExpiresAtMs: 700}}
	next := keepExpiries(map[string]int64{"a": 1000, "b": 4000, "c": 900, "gone": 1}, locks)
	if got := []int64{locks[0].ExpiresAtMs, locks[1].ExpiresAtMs, locks[2].ExpiresAtMs, locks[3].ExpiresAtMs}; got[0] != 1000 || got[1] != 5000 || got[2] != 0 || got[3] != 700 {
		t.Errorf("expiries = %v, want [1000 5000 0 700]: a step kept, a renewal and no expiry as read", got)
	}
	if len(next) != 4 || next["a"] != 1000 || next["new"] != 700 || next["gone"] != 0 {
		t.Errorf("kept %v, want this read's locks only", next)
	}
}
