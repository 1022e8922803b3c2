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

// Catalog knows the names of every board: those in zpulse's index (boards it wrote to) and
// the leaderboard:* sorted sets other services wrote, found with SCAN (never KEYS) at a slow
// cadence. Period boards (leaderboard:<board>:2026-11-29 ...) of a known board are not boards
// of their own.
type Catalog struct {
	rdb  redis.UniversalClient
	keys Keys

	mu        sync.Mutex
	names     map[string]struct{} // the boards known now
	sweep     map[string]struct{} // boards seen by the SCAN sweep under way
	cursor    uint64              // where the sweep goes on at the next refresh
	refreshed bool
}

// NewCatalog returns an empty catalog; Refresh or Run fills it.
func NewCatalog(rdb redis.UniversalClient, keys Keys) *Catalog {
	return &Catalog{rdb: rdb, keys: keys, names: map[string]struct{}{}, sweep: map[string]struct{}{}}
}

// Add records a board zpulse wrote to.
func (c *Catalog) Add(board string) {
	c.mu.Lock()
	c.names[board] = struct{}{}
	c.mu.Unlock()
}

// Remove forgets a board that was reset.
func (c *Catalog) Remove(board string) {
	c.mu.Lock()
	delete(c.names, board)
	c.mu.Unlock()
}

// Known returns the boards known now, sorted, without reading Redis.
func (c *Catalog) Known() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Sorted(maps.Keys(c.names))
}

// Boards returns the known boards, sorted; the first call refreshes the catalog.
// Returns EUNAVAILABLE when that first refresh cannot reach Redis.
func (c *Catalog) Boards(ctx context.Context) ([]string, error) {
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

// Refresh reads the index and goes on with the SCAN sweep for other services' boards, at most
// scanCalls calls per refresh. A board whose key is gone is dropped when a sweep that did not
// see it ends.
func (c *Catalog) Refresh(ctx context.Context) error {
	own, err := c.rdb.SMembers(ctx, c.keys.BoardIndex()).Result()
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
		if name := strings.TrimPrefix(k, c.keys.LeaderboardPrefix); domain.ValidateName("board", name) == nil {
			c.sweep[name] = struct{}{}
		}
	}
	boards := maps.Clone(c.sweep)
	for _, b := range own {
		boards[b] = struct{}{}
	}
	if complete {
		c.sweep = map[string]struct{}{}
	} else { // until the sweep ends, what earlier sweeps found stays
		maps.Copy(boards, c.names)
	}
	for b := range boards { // a period board of a known board is not a board of its own
		if i := strings.LastIndexByte(b, ':'); i > 0 && IsPeriodSuffix(b[i+1:]) {
			if _, known := boards[b[:i]]; known {
				delete(boards, b)
			}
		}
	}
	c.names, c.cursor, c.refreshed = boards, cursor, true
	return nil
}

// scan goes on with the sweep of leaderboard:* sorted sets from cursor, for at most scanCalls
// calls. On Redis Cluster every master is swept from its start within the bound.
func (c *Catalog) scan(ctx context.Context, cursor uint64) (keys []string, next uint64, complete bool, err error) {
	pattern := c.keys.LeaderboardPrefix + "*"
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
