package redistest

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestMain(m *testing.M) { Main(m) }

// The cluster has three masters, each serving a third of the slots, and every slot is served.
func TestClusterMastersAndSlots(t *testing.T) {
	ctx := context.Background()
	rdb := ClusterClient(t)
	shards, err := rdb.ClusterShards(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(shards) != ClusterMasters {
		t.Fatalf("%d shards, want %d", len(shards), ClusterMasters)
	}
	covered := 0
	for _, sh := range shards {
		for _, r := range sh.Slots {
			covered += int(r.End-r.Start) + 1
		}
	}
	if covered != 16384 {
		t.Fatalf("%d slots served, want 16384", covered)
	}
	var masters atomic.Int32 // ForEachMaster calls f on every master at once
	err = rdb.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
		masters.Add(1)
		return m.Ping(ctx).Err()
	})
	if err != nil || masters.Load() != ClusterMasters {
		t.Fatalf("ForEachMaster reached %d masters (%v), want %d", masters.Load(), err, ClusterMasters)
	}
}

// Each test starts with every master empty, whatever the previous one wrote.
func TestClusterClientFlushesEveryMaster(t *testing.T) {
	ctx := context.Background()
	rdb := ClusterClient(t)
	for i := range 30 {
		if err := rdb.Set(ctx, fmt.Sprintf("k%d", i), "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	rdb = ClusterClient(t)
	err := rdb.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
		if n, err := m.DBSize(ctx).Result(); err != nil || n != 0 {
			return fmt.Errorf("%s holds %d keys (%v) after the flush", m.Options().Addr, n, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A suite run through ForEachTopology sees both topologies, each flushed.
func TestForEachTopology(t *testing.T) {
	var seen []string
	ForEachTopology(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		if n, err := rdb.Incr(ctx, "topology").Result(); err != nil || n != 1 {
			t.Fatalf("INCR on a fresh topology = %d, %v", n, err)
		}
		switch rdb.(type) {
		case *redis.Client:
			seen = append(seen, "single")
		case *redis.ClusterClient:
			seen = append(seen, "cluster")
		}
	})
	if fmt.Sprint(seen) != "[single cluster]" {
		t.Fatalf("topologies %v, want [single cluster]", seen)
	}
}

// The Sentinel setup serves writes through a failover client, and after SENTINEL FAILOVER the
// same client writes to the new master.
func TestSentinelFailover(t *testing.T) {
	ctx := context.Background()
	s := SharedSentinel(t)
	rdb := SentinelClient(t)
	if err := rdb.Set(ctx, "before", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	old, err := s.MasterAddr(ctx)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	now := s.Failover(t)
	t.Logf("SENTINEL FAILOVER %s -> %s settled in %v", old, now, time.Since(start).Round(time.Millisecond))
	if now == old {
		t.Fatalf("master still %s after the failover", old)
	}
	if err := rdb.Set(ctx, "after", "1", 0).Err(); err != nil {
		t.Fatalf("write after the failover: %v", err)
	}
}

// Benchmarks get both topologies too: one SET per iteration.
func BenchmarkForEachTopologySet(b *testing.B) {
	ForEachTopologyB(b, func(b *testing.B, rdb redis.UniversalClient) {
		ctx := context.Background()
		for i := 0; b.Loop(); i++ {
			if err := rdb.Set(ctx, fmt.Sprintf("k%d", i%1000), i, 0).Err(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// Tests that each take a DB do not see each other's keys, a DB starts empty, and Client's
// flush of database 0 leaves the DBs alone: tests taking DBs can run in parallel on one server.
func TestDBsAreIsolated(t *testing.T) {
	ctx := context.Background()
	a, b := DB(t), DB(t)
	for i, rdb := range []*redis.Client{a, b} {
		if n := rdb.DBSize(ctx).Val(); n != 0 {
			t.Fatalf("a new DB holds %d keys", n)
		}
		if err := rdb.Set(ctx, "mine", i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	Client(t).Set(ctx, "zero", 1, 0)
	Client(t) // flushes database 0
	for i, rdb := range []*redis.Client{a, b} {
		if got, err := rdb.Get(ctx, "mine").Int(); err != nil || got != i || rdb.DBSize(ctx).Val() != 1 {
			t.Errorf("DB %d: mine = %d, %v; %d keys: another test's writes or flush reached it", rdb.Options().DB, got, err, rdb.DBSize(ctx).Val())
		}
	}
}
