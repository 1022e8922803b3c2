package locks

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// newTestLocks returns locks on a database of the test's own (redistest.DB, so tests run side
// by side), on Redis TIME.
func newTestLocks(t *testing.T) (*Locks, *redis.Client) {
	rdb := redistest.DB(t)
	lk, _ := openLocks(rdb, nil)
	return lk, rdb
}

// openLocks builds Locks over rdb as redisrepo.Open does (the default keys, a discovery of
// their own, clock; nil is Redis TIME, as in production; no replicas waited for): another
// instance. It returns the discovery too.
func openLocks(rdb redis.UniversalClient, clock domain.Clock) (*Locks, *store.Discovery) {
	keys := store.DefaultKeys
	found := store.NewDiscovery(rdb, keys, nil)
	return NewLocks(rdb, keys, found, store.Clocks{Script: clock}, store.ReplicaWait{}), found
}
