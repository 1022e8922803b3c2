package redisrepo

import (
	"context"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// Without a URL, Open starts the embedded Redis, whose clock it keeps moving: miniredis only
// expires keys and answers TIME from the clock it is given. Real time is the behaviour under
// test here; the wait is a ticker with a deadline, ended by the key's expiry.
func TestOpenEmbeddedKeepsTime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, err := Open(ctx, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	if !svc.Embedded {
		t.Fatal("no URL and no client: want the embedded Redis")
	}
	rdb := svc.Client
	rdb.Set(ctx, "k", "v", 300*time.Millisecond)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(5 * time.Second)
	for rdb.Exists(ctx, "k").Val() == 1 {
		select {
		case <-deadline:
			t.Fatal("a key with a 300ms TTL still exists after 5s")
		case <-tick.C:
		}
	}
	if now := rdb.Time(ctx).Val(); time.Since(now).Abs() > 2*time.Second {
		t.Errorf("TIME = %v, far from now", now)
	}
}

// Pages get the keys' display names from the repository, in the articles' layout.
func TestOpenNamesKeysForPeople(t *testing.T) {
	t.Parallel()
	svc := openTest(t, redistest.DB(t), nil)
	want := domain.KeyDisplay{Boards: "leaderboard:*", Queues: "queue:*", Lock: "lock:<name>", LockExample: "lock:order:1001", RateDefault: "rate:<client>", InternalLocks: "zpulse:"}
	if svc.Keys != want {
		t.Errorf("keys = %+v, want %+v", svc.Keys, want)
	}
}
