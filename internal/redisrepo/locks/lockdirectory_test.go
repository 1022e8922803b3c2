package locks

import (
	"fmt"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// A held lock's expiry reads the same at every tick, to the millisecond: PEXPIRETIME gives it
// in one command (TIME beside PTTL, a moment apart, once made it drift by the moment between
// them, which sent the lock's row to every viewer and held the watcher's next frame back).
func TestAHeldLocksExpiryReadsTheSameAtEveryTick(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	keys := store.DefaultKeys
	dir := NewLockDirectory(store.NewDiscovery(rdb, keys, nil))
	now, err := rdb.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	at := now.Add(time.Minute).UnixMilli()/100*100 + 50
	// Behind 199 other locks (names sort first), its reads run after theirs, as a busy
	// page's locks do.
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
	for i := range 300 {
		if l := read(); l.Lock != "edge" || l.ExpiresAtMs != at {
			t.Fatalf("read %d: %s expires at %d, want edge at %d", i, l.Lock, l.ExpiresAtMs, at)
		}
	}
	// A new lease moves it at once; a lock without expiry has none.
	rdb.PExpireAt(ctx, keys.Lock("edge"), time.UnixMilli(at+30_000))
	if l := read(); l.ExpiresAtMs != at+30_000 {
		t.Errorf("after a new lease the expiry reads %d, want %d", l.ExpiresAtMs, at+30_000)
	}
	rdb.Persist(ctx, keys.Lock("edge"))
	if l := read(); l.ExpiresAtMs != 0 || l.RemainingMs != -1 {
		t.Errorf("without expiry the lock reads expiry %d, remaining %d, want 0 and -1", l.ExpiresAtMs, l.RemainingMs)
	}
}
