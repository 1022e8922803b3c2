package history

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/boards"
	"github.com/zpulse/zpulse/internal/redisrepo/limiters"
	"github.com/zpulse/zpulse/internal/redisrepo/locks"
	"github.com/zpulse/zpulse/internal/redisrepo/queues"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// instance is one zpulse over one Redis, as far as the history needs it: the rooms whose
// rings it samples, the recorder and /metrics' read, and the singletons the recorder runs
// under, built as redisrepo.Open builds them (the default keys, one discovery, clock; nil is
// Redis TIME, as in production).
type instance struct {
	Queues       *queues.Queues
	Leaderboards *boards.Leaderboards
	Limiters     *limiters.Limiters
	History      *History
	Business     *Business
	Singletons   *locks.Singletons
	close        func() // closes what the instance opened
}

// openInstance opens an instance over rdb, closed after the test (or before, by Close: a
// restart).
func openInstance(t *testing.T, rdb redis.UniversalClient, clock domain.Clock) *instance {
	keys, c := store.DefaultKeys, store.Clocks{Script: clock}
	l := limiters.NewLimiters(rdb, keys, c)
	found := store.NewDiscovery(rdb, keys, func(ctx context.Context, keys []string) { _ = l.AdoptClients(ctx, keys) })
	blocking := queues.NewBlockingClient(rdb, 4)
	in := &instance{Limiters: l, close: func() {},
		Leaderboards: boards.NewLeaderboards(rdb, keys, found, c),
		History:      NewHistory(rdb, keys, found, c),
		Business:     NewBusiness(rdb, keys, found, c),
		Singletons:   locks.NewSingletons(locks.NewLocks(rdb, keys, found, c, store.ReplicaWait{}), keys, slog.New(slog.NewTextHandler(io.Discard, nil)), locks.SingletonTimings{}),
	}
	in.Queues = queues.NewQueues(rdb, blocking, keys, found, c, store.ReplicaWait{}, domain.DefaultCompletedPolicy)
	if blocking != rdb {
		in.close = sync.OnceFunc(func() { blocking.Close() })
	}
	t.Cleanup(in.Close)
	return in
}

// Close closes what the instance opened, once: a restart.
func (in *instance) Close() { in.close() }
