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

// Discovery bounds: one refresh examines at most scanCalls × scanCount keys, so a huge
// keyspace costs a bounded amount per refresh (what is not reached is found by later ones).
const (
	scanCount = 1000
	scanCalls = 100
)

// Catalog knows the names of every thing of one kind (boards, queues): those in zpulse's index
// SET (the ones it wrote to) and the sorted sets other services wrote under the kind's prefix,
// found with SCAN (never KEYS) at a slow cadence. A name whose key is gone leaves the catalog
// when a SCAN sweep that did not see it ends; indexed names stay.
type Catalog struct {
	rdb    redis.UniversalClient
	kind   string // "board", "queue": names are validated as such
	index  string // the SET of names zpulse wrote to
	prefix string // the things' keys are prefix + name
	// prune removes, from the names found, those that are not things of their own.
	prune func(names map[string]struct{})

	mu        sync.Mutex
	names     map[string]struct{} // known now
	sweep     map[string]struct{} // seen by the SCAN sweep under way
	cursor    uint64              // where the sweep goes on at the next refresh
	refreshed bool
}

// NewCatalog returns the catalog of boards, empty until Refresh or Run. Period boards
// (leaderboard:<board>:2026-11-29 ...) of a known board are not boards of their own.
func NewCatalog(rdb redis.UniversalClient, keys Keys) *Catalog {
	return newCatalog(rdb, "board", keys.BoardIndex(), keys.LeaderboardPrefix, func(names map[string]struct{}) {
		for b := range names {
			if i := strings.LastIndexByte(b, ':'); i > 0 && IsPeriodSuffix(b[i+1:]) {
				if _, known := names[b[:i]]; known {
					delete(names, b)
				}
			}
		}
	})
}

// NewQueueCatalog returns the catalog of queues, empty until Refresh or Run.
func NewQueueCatalog(rdb redis.UniversalClient, keys Keys) *Catalog {
	return newCatalog(rdb, "queue", keys.QueueIndex(), keys.QueuePrefix, func(map[string]struct{}) {})
}

func newCatalog(rdb redis.UniversalClient, kind, index, prefix string, prune func(map[string]struct{})) *Catalog {
	return &Catalog{rdb: rdb, kind: kind, index: index, prefix: prefix, prune: prune,
		names: map[string]struct{}{}, sweep: map[string]struct{}{}}
}

// Add records a name zpulse wrote to.
func (c *Catalog) Add(name string) {
	c.mu.Lock()
	c.names[name] = struct{}{}
	c.mu.Unlock()
}

// Remove forgets a name whose thing was deleted (a board reset).
func (c *Catalog) Remove(name string) {
	c.mu.Lock()
	delete(c.names, name)
	c.mu.Unlock()
}

// Known returns the names known now, sorted, without reading Redis.
func (c *Catalog) Known() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Sorted(maps.Keys(c.names))
}

// Names returns the known names, sorted; the first call refreshes the catalog.
// Returns EUNAVAILABLE when that first refresh cannot reach Redis.
func (c *Catalog) Names(ctx context.Context) ([]string, error) {
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

// Refresh reads the index and goes on with the SCAN sweep, at most scanCalls calls.
func (c *Catalog) Refresh(ctx context.Context) error {
	own, err := c.rdb.SMembers(ctx, c.index).Result()
	if err != nil {
		return wrap(err)
	}
	c.mu.Lock()
	cursor := c.cursor
	c.mu.Unlock()
	found, cursor, complete, err := c.scan(ctx, cursor)
	if err != nil {
		return wrap(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range found {
		if name := strings.TrimPrefix(k, c.prefix); domain.ValidateName(c.kind, name) == nil {
			c.sweep[name] = struct{}{}
		}
	}
	names := maps.Clone(c.sweep)
	for _, n := range own {
		if domain.ValidateName(c.kind, n) == nil {
			names[n] = struct{}{}
		}
	}
	if complete {
		c.sweep = map[string]struct{}{}
	} else { // until the sweep ends, what earlier sweeps found stays
		maps.Copy(names, c.names)
	}
	c.prune(names)
	c.names, c.cursor, c.refreshed = names, cursor, true
	return nil
}

// scan goes on with the sweep of the kind's sorted sets from cursor, for at most scanCalls
// calls. On Redis Cluster every master is swept from its start within the bound.
func (c *Catalog) scan(ctx context.Context, cursor uint64) (keys []string, next uint64, complete bool, err error) {
	sweep := func(ctx context.Context, node redis.Cmdable, cursor uint64) ([]string, uint64, error) {
		var keys []string
		for range scanCalls {
			page, next, err := node.ScanType(ctx, cursor, c.prefix+"*", scanCount, "zset").Result()
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
	cluster, ok := c.rdb.(*redis.ClusterClient)
	if !ok {
		keys, next, err = sweep(ctx, c.rdb, cursor)
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

// Run refreshes the catalog every interval until ctx ends. Failures wait for the next round:
// the watcher reports Redis outages.
func (c *Catalog) Run(ctx context.Context, every time.Duration) {
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

// scanKeys returns every key matching pattern (SCAN, never KEYS), on every master of a Cluster.
func scanKeys(ctx context.Context, rdb redis.UniversalClient, pattern string) ([]string, error) {
	var (
		mu   sync.Mutex
		keys []string
	)
	scan := func(ctx context.Context, node redis.Cmdable) error {
		iter := node.Scan(ctx, 0, pattern, scanCount).Iterator()
		for iter.Next(ctx) {
			mu.Lock()
			keys = append(keys, iter.Val())
			mu.Unlock()
		}
		return iter.Err()
	}
	if cluster, ok := rdb.(*redis.ClusterClient); ok {
		return keys, cluster.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error { return scan(ctx, node) })
	}
	return keys, scan(ctx, rdb)
}
