package sources

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/limiters"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// t0 is a window boundary for every window the tests use (a multiple of 10 s).
var t0 = time.UnixMilli(1_800_000_000_000)

// newSourcesOn builds Sources over rdb as redisrepo.Open does (the default keys, a manual
// clock from t0), with the discovery Open gives them, which also adopts the limiters' clients
// it finds.
func newSourcesOn(rdb redis.UniversalClient) (*Sources, *store.Discovery, *domain.ManualClock) {
	keys, clock := store.DefaultKeys, domain.NewManualClock(t0)
	c := store.Clocks{Script: clock}
	l := limiters.NewLimiters(rdb, keys, c)
	found := store.NewDiscovery(rdb, keys, func(ctx context.Context, keys []string) { _ = l.AdoptClients(ctx, keys) })
	return NewSources(rdb, keys, found, c), found, clock
}
