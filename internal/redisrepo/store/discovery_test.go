package store

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// A master that left the Cluster mid-sweep does not hold the sweep open forever: what is gone
// still leaves the cache when the masters of now have been swept.
func TestDiscoveryForgetsAMasterThatLeft(t *testing.T) {
	ctx := context.Background()
	rdb := redistest.Client(t)
	d := NewDiscovery(rdb, DefaultKeys, nil)
	rdb.ZAdd(ctx, "queue:gone-soon", redis.Z{Score: 1, Member: "j"})
	if err := d.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	d.mu.Lock()
	s := d.sweeps[KindQueue]
	s.done["10.0.0.9:6379"], s.cursors["10.0.0.9:6379"] = false, 42 // a master's unfinished sweep
	d.mu.Unlock()
	rdb.Del(ctx, "queue:gone-soon")
	if err := d.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if names := d.Names(KindQueue); len(names) != 0 {
		t.Errorf("queues = %v: the sweep waited for a master that left", names)
	}
}
