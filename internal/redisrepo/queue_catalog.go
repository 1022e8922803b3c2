package redisrepo

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
)

// QueueCatalog knows the names of every queue: those in zpulse's index (queues it wrote to or
// leased from) and the queue:* sorted sets other services wrote, found with SCAN (never KEYS)
// at a slow cadence, at most scanCalls × scanCount keys per refresh, as the boards' Catalog.
// A foreign queue whose key is gone (emptied) is dropped when a sweep that did not see it ends;
// indexed queues stay.
type QueueCatalog struct {
	rdb  redis.UniversalClient
	keys Keys

	mu        sync.Mutex
	names     map[string]struct{}
	sweep     map[string]struct{}
	cursor    uint64
	refreshed bool
}

// NewQueueCatalog returns an empty catalog; Refresh or Run fills it.
func NewQueueCatalog(rdb redis.UniversalClient, keys Keys) *QueueCatalog {
	return &QueueCatalog{rdb: rdb, keys: keys, names: map[string]struct{}{}, sweep: map[string]struct{}{}}
}

// Add records a queue zpulse wrote to.
func (c *QueueCatalog) Add(queue string) {
	c.mu.Lock()
	c.names[queue] = struct{}{}
	c.mu.Unlock()
}

// Known returns the queues known now, sorted, without reading Redis.
func (c *QueueCatalog) Known() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Sorted(maps.Keys(c.names))
}

// Queues returns the known queues, sorted; the first call refreshes the catalog.
// Returns EUNAVAILABLE when that first refresh cannot reach Redis.
func (c *QueueCatalog) Queues(ctx context.Context) ([]string, error) {
	c.mu.Lock()
	refreshed := c.refreshed
	c.mu.Unlock()
	if !refreshed {
		if err := c.Refresh(ctx); err != nil {
			return nil, err
		}
	}
	return c.Known(), nil
}

// Refresh reads the index and goes on with the SCAN sweep of queue:* sorted sets.
func (c *QueueCatalog) Refresh(ctx context.Context) error {
	own, err := c.rdb.SMembers(ctx, c.keys.QueueIndex()).Result()
	if err != nil {
		return wrap(err)
	}
	c.mu.Lock()
	cursor := c.cursor
	c.mu.Unlock()
	found, cursor, complete, err := sweepZSets(ctx, c.rdb, c.keys.QueuePrefix+"*", cursor)
	if err != nil {
		return wrap(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range found {
		if name := strings.TrimPrefix(k, c.keys.QueuePrefix); domain.ValidateName("queue", name) == nil {
			c.sweep[name] = struct{}{}
		}
	}
	queues := maps.Clone(c.sweep)
	for _, q := range own {
		if domain.ValidateName("queue", q) == nil {
			queues[q] = struct{}{}
		}
	}
	if complete {
		c.sweep = map[string]struct{}{}
	} else {
		maps.Copy(queues, c.names)
	}
	c.names, c.cursor, c.refreshed = queues, cursor, true
	return nil
}

// Run refreshes the catalog every interval until ctx ends.
func (c *QueueCatalog) Run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		_ = c.Refresh(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// sweepZSets goes on with a SCAN sweep of the sorted sets matching pattern from cursor, for at
// most scanCalls calls; on Redis Cluster every master is swept from its start.
func sweepZSets(ctx context.Context, rdb redis.UniversalClient, pattern string, cursor uint64) (keys []string, next uint64, complete bool, err error) {
	sweep := func(ctx context.Context, node redis.Cmdable, cursor uint64) ([]string, uint64, error) {
		var keys []string
		for range scanCalls {
			page, next, err := node.ScanType(ctx, cursor, pattern, scanCount, "zset").Result()
			if err != nil {
				return nil, 0, err
			}
			keys, cursor = append(keys, page...), next
			if cursor == 0 {
				break
			}
		}
		return keys, cursor, nil
	}
	cluster, ok := rdb.(*redis.ClusterClient)
	if !ok {
		keys, next, err = sweep(ctx, rdb, cursor)
		return keys, next, next == 0, err
	}
	var mu sync.Mutex
	complete = true
	err = cluster.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error {
		found, next, err := sweep(ctx, node, 0)
		mu.Lock()
		defer mu.Unlock()
		keys, complete = append(keys, found...), complete && next == 0
		return err
	})
	return keys, 0, complete, err
}
