package limiters

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// newTestLimiters returns limiters on a database of the test's own (redistest.DB, so tests
// run side by side) on a manual clock from t0.
func newTestLimiters(t *testing.T) (*Limiters, *redis.Client, *domain.ManualClock) {
	l, _, rdb, clock := newLimitersFound(t)
	return l, rdb, clock
}

// newLimitersFound is newTestLimiters with the discovery Open wires to them.
func newLimitersFound(t *testing.T) (*Limiters, *store.Discovery, *redis.Client, *domain.ManualClock) {
	rdb := redistest.DB(t)
	l, found, clock := newLimitersOn(rdb)
	return l, found, rdb, clock
}

// newLimitersOn is newLimitersFound on a given client (a topology of
// redistest.ForEachTopologyParallel).
func newLimitersOn(rdb redis.UniversalClient) (*Limiters, *store.Discovery, *domain.ManualClock) {
	clock := domain.NewManualClock(t0)
	l, found := openLimiters(rdb, clock)
	return l, found, clock
}

// openLimiters builds Limiters over rdb as redisrepo.Open does (the default keys, clock; nil
// is Redis TIME, as in production), with the discovery Open gives them, which adopts the
// clients of the rate keys it finds: another instance.
func openLimiters(rdb redis.UniversalClient, clock domain.Clock) (*Limiters, *store.Discovery) {
	keys := store.DefaultKeys
	l := NewLimiters(rdb, keys, store.Clocks{Script: clock})
	return l, store.NewDiscovery(rdb, keys, func(ctx context.Context, keys []string) { _ = l.AdoptClients(ctx, keys) })
}
