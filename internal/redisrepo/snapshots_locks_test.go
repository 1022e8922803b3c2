package redisrepo

import (
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// The locks topic: zpulse's locks (index) and other services' locks (found by Discovery) in
// the watcher's one pipeline, shown once discovery has run; gone locks leave the index.
func TestSnapshotsReadLocksTopic(t *testing.T) {
	t.Parallel()
	svc := openTest(t, redistest.DB(t), nil)
	lk, rdb, snaps := svc.Locks, svc.Client, svc.Snapshots
	mine, _ := lk.Acquire(ctx, "order:1001", domain.LockOptions{TTL: time.Minute, Owner: "w-1"})
	lk.Acquire(ctx, "order:1001", domain.LockOptions{TTL: time.Minute, Owner: "w-1"})
	rdb.Set(ctx, "lock:article", "article-uuid", time.Minute)
	rdb.Set(ctx, "lock:bad{name}", "x", time.Minute) // braces: not a name zpulse can read

	topics := []string{domain.TopicLocks, domain.BoardTopic("b", domain.AllTime, domain.BoardTopN)}
	got, err := snaps.Read(ctx, topics, live.Poll{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got[domain.TopicLocks]; ok {
		t.Fatal("the first read published lk before any name was known")
	}
	if err := svc.Discovery.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	hook := &redistest.CountingHook{}
	rdb.AddHook(hook)
	got, err = snaps.Read(ctx, topics, live.Poll{})
	if err != nil {
		t.Fatal(err)
	}
	if hook.Pipelines != 1 || hook.Single != 0 {
		t.Errorf("Read made %d pipelines and %d single calls, want 1 pipeline", hook.Pipelines, hook.Single)
	}
	held := got[domain.TopicLocks].(domain.HeldLocks)
	if len(held.Locks) != 2 || held.More != 0 {
		t.Fatalf("lk = %+v, want article and order:1001", held)
	}
	art, ord := held.Locks[0], held.Locks[1]
	if art.Lock != "article" || art.Token != "article-uuid" || !art.Foreign() || art.Type != "string" || art.RemainingMs < 59000 || art.RemainingMs%100 != 0 {
		t.Errorf("article = %+v", art)
	}
	if ord.Lock != "order:1001" || ord.Token != "w-1" || ord.Holds != 2 || !ord.Reentrant || ord.Fence != mine.Fence || ord.LeaseMs != 60000 || ord.Watchdog {
		t.Errorf("order:1001 = %+v", ord)
	}

	// Gone lk disappear, and an expired lock's name leaves the index a tick later.
	lk.ForceRelease(ctx, "order:1001", "")
	rdb.Del(ctx, "lock:article")
	gone, _ := lk.Acquire(ctx, "short", domain.LockOptions{TTL: domain.MinLockTTL})
	snaps.Read(ctx, topics, live.Poll{})          // learns the name "short"
	rdb.Del(ctx, store.DefaultKeys.Lock("short")) // as its lease running out would
	got, _ = snaps.Read(ctx, topics, live.Poll{})
	if held := got[domain.TopicLocks].(domain.HeldLocks); len(held.Locks) != 0 {
		t.Errorf("lk = %+v, want none", held)
	}
	snaps.Read(ctx, topics, live.Poll{})
	if rdb.SIsMember(ctx, store.DefaultKeys.LockIndex(), gone.Lock).Val() {
		t.Error("an expired lock's name stayed in the index")
	}
}
