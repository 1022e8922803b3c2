package queues

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// newTestQueues returns queues on a database of the test's own (redistest.DB, so tests run
// side by side) with a manual clock for scores and leases, and a blocking client of their own.
func newTestQueues(t testing.TB) (*Queues, *redis.Client, *domain.ManualClock) {
	rdb := redistest.DB(t)
	q, clock := newTestQueuesOn(t, rdb)
	return q, rdb, clock
}

// newTestQueuesOn is newTestQueues on a given client (a topology of ForEachTopologyParallel).
func newTestQueuesOn(t testing.TB, rdb redis.UniversalClient) (*Queues, *domain.ManualClock) {
	clock := domain.NewManualClock(testNow)
	q, _ := openQueues(t, rdb, clock, 4)
	return q, clock
}

// openQueues builds Queues over rdb as redisrepo.Open does (the default keys, a discovery of
// their own, clock; nil is Redis TIME, as in production; a blocking client of takePool
// connections, closed after the test): another instance. It returns the discovery too.
func openQueues(t testing.TB, rdb redis.UniversalClient, clock domain.Clock, takePool int) (*Queues, *store.Discovery) {
	keys := store.DefaultKeys
	blocking := NewBlockingClient(rdb, takePool)
	if blocking != rdb {
		t.Cleanup(func() { blocking.Close() })
	}
	found := store.NewDiscovery(rdb, keys, nil)
	return NewQueues(rdb, blocking, keys, found, store.Clocks{Script: clock}, store.ReplicaWait{}, domain.DefaultCompletedPolicy), found
}
