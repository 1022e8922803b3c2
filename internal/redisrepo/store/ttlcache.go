package store

import (
	"context"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/zpulse/zpulse/internal/domain"
)

// TTLCache is zpulse's one cache of values read from Redis (board settings, queue settings,
// limiter policies): a value is used for ttl after it was read, so hot paths do not pay a
// round trip for it, and a change made through another instance applies here within ttl.
// Concurrent misses of one key share one read (singleflight). It holds at most
// TTLCacheMax entries: names come from requests (any board or queue name), so a put into a
// full cache first drops the stale entries, then the oldest.
type TTLCache[V any] struct {
	ttl   time.Duration
	clock domain.Clock

	loads   singleflight.Group
	mu      sync.Mutex
	entries map[string]ttlEntry[V]
}

// TTLCacheMax bounds every TTLCache.
const TTLCacheMax = 10_000

type ttlEntry[V any] struct {
	v    V
	read time.Time
}

func NewTTLCache[V any](ttl time.Duration, clock domain.Clock) *TTLCache[V] {
	return &TTLCache[V]{ttl: ttl, clock: clock, entries: map[string]ttlEntry[V]{}}
}

// Get returns key's value, read with load when it is missing or older than ttl. A clock moved
// back (a test's) counts as stale.
func (c *TTLCache[V]) Get(ctx context.Context, key string, load func(context.Context) (V, error)) (V, error) {
	now := c.clock.Now()
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if age := now.Sub(e.read); ok && age >= 0 && age < c.ttl {
		return e.v, nil
	}
	v, err, _ := c.loads.Do(key, func() (any, error) {
		v, err := load(ctx)
		if err == nil {
			c.Put(key, v)
		}
		return v, err
	})
	return v.(V), err
}

// Put records a value just written or read.
func (c *TTLCache[V]) Put(key string, v V) {
	now := c.clock.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; !ok && len(c.entries) >= TTLCacheMax {
		var oldest string
		for k, e := range c.entries {
			if age := now.Sub(e.read); age < 0 || age >= c.ttl {
				delete(c.entries, k)
			} else if oldest == "" || e.read.Before(c.entries[oldest].read) {
				oldest = k
			}
		}
		if len(c.entries) >= TTLCacheMax {
			delete(c.entries, oldest)
		}
	}
	c.entries[key] = ttlEntry[V]{v: v, read: now}
}

// Forget drops key's value: the next get reads it again.
func (c *TTLCache[V]) Forget(key string) {
	c.mu.Lock()
	delete(c.entries, key)
	c.mu.Unlock()
}

// Peek returns key's value, fresh or not, without reading.
func (c *TTLCache[V]) Peek(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	return e.v, ok
}
