package redistest

import (
	"testing"

	"github.com/redis/go-redis/v9"
)

// ForEachTopology runs f as a subtest on each topology zpulse must work on: "single" (the
// package's server, Client) and "cluster" (the package's 3-master cluster, ClusterClient, started
// on first use). Each subtest gets a flushed client, closed after it.
//
//	func TestEnqueue(t *testing.T) {
//		redistest.ForEachTopology(t, func(t *testing.T, rdb redis.UniversalClient) { ... })
//	}
func ForEachTopology(t *testing.T, f func(t *testing.T, rdb redis.UniversalClient)) {
	t.Helper()
	t.Run("single", func(t *testing.T) { f(t, Client(t)) })
	t.Run("cluster", func(t *testing.T) { f(t, ClusterClient(t)) })
}

// ForEachTopologyB is ForEachTopology for benchmarks, so figures exist for both topologies.
func ForEachTopologyB(b *testing.B, f func(b *testing.B, rdb redis.UniversalClient)) {
	b.Helper()
	b.Run("single", func(b *testing.B) { f(b, Client(b)) })
	b.Run("cluster", func(b *testing.B) { f(b, ClusterClient(b)) })
}
