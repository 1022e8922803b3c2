package redisrepo

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// DemoSwitch is the Redis implementation of domain.DemoSwitch: the key Keys.DemoPaused
// exists while the demo is paused.
type DemoSwitch struct {
	rdb  redis.UniversalClient
	keys store.Keys
}

var _ domain.DemoSwitch = (*DemoSwitch)(nil)

// newDemoSwitch returns the demo's switch kept in rdb under keys.
func newDemoSwitch(rdb redis.UniversalClient, keys store.Keys) *DemoSwitch {
	return &DemoSwitch{rdb: rdb, keys: keys}
}

func (d *DemoSwitch) Paused(ctx context.Context) (bool, error) {
	err := d.rdb.Get(ctx, d.keys.DemoPaused()).Err()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	return err == nil, store.OpError("redisrepo.DemoSwitch.Paused", err)
}

func (d *DemoSwitch) SetPaused(ctx context.Context, paused bool) error {
	if paused {
		return store.OpWriteError("redisrepo.DemoSwitch.SetPaused", d.rdb.Set(ctx, d.keys.DemoPaused(), "1", 0).Err())
	}
	return store.OpWriteError("redisrepo.DemoSwitch.SetPaused", d.rdb.Del(ctx, d.keys.DemoPaused()).Err())
}
