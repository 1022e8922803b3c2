package store

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

// Discovery bounds: one refresh makes at most ScanCalls SCAN calls of COUNT ScanCount per kind
// and per master, so a huge keyspace costs a bounded amount per refresh; what one refresh
// does not reach, the next ones find (each master's cursor goes on where it stopped).
const (
	ScanCount = 1000
	ScanCalls = 20
	// DiscoveryEvery is the one cadence of discovery (Services.Run).
	DiscoveryEvery = 5 * time.Second
)

// Kind is a kind of thing zpulse finds by a key pattern.
type Kind int

const (
	KindBoard  Kind = iota // leaderboard:* sorted sets
	KindQueue              // queue:* sorted sets
	KindLock               // lock:* of any type (another service's lock may be a Redisson hash)
	rateKeys               // rate:* sorted sets: sliding logs, whose clients the limiters adopt
	rateHashes             // rate:* hashes: fixed windows, sliding counters, token buckets, adopted too
	KindCount
)

// sweep is the discovery state of one kind.
type sweep struct {
	name    string // "board", "queue", "lock": names are validated as such; "" keeps keys only
	prefix  string // a thing's key is prefix + name
	pattern string // SCAN MATCH; "" for prefix + "*"
	typ     string // SCAN TYPE; "" for any
	index   string // zpulse's SET of the names it wrote to; "" for none
	cursors map[string]uint64
	done    map[string]bool     // masters whose pass ended
	seen    map[string]struct{} // Names (keys for rate) seen by the pass under way
	found   map[string]struct{} // Names found by the last complete pass and the one under way
	own     map[string]struct{} // Names in the index at the last refresh, or written since
	added   map[string]struct{} // Names written while a refresh reads the index: kept by it
	limit   int                 // the most keys a pass keeps (0: no bound)
	calls   int                 // the most SCAN calls of one step on one master (0: ScanCalls)
}

// Discovery is zpulse's one way of finding keys by pattern: boards, queues, locks and limiter
// clients written by other services. Each refresh reads the indexes of what zpulse wrote and
// goes on with a bounded SCAN sweep of every kind on every master (Redis Cluster), at one
// cadence; the names found are cached here, and read without a round trip. A name whose key
// is gone leaves the cache when a sweep that did not see it ends; indexed names stay.
type Discovery struct {
	rdb redis.UniversalClient

	refreshing  sync.Mutex // one refresh at a time
	stepping    sync.Mutex // one step at a time (StepLocks, StepAdopted)
	mu          sync.Mutex // guards the sweeps
	sweeps      [KindCount]*sweep
	lockStep    *sweep             // StepLocks' own pass over the lock keys: names only added, never dropped
	adopted     map[string]*sweep  // SCAN pattern of an adopted source -> its sweep (keys only)
	adoptedStep map[string]*sweep  // StepAdopted's own passes, by pattern: keys only added to adopted's
	dated       *sweep             // sorted sets with a yyyymmdd date in their key: layouts to suggest
	sources     string             // the HASH of adopted sources (Keys.Sources)
	watched     []string           // key patterns of every adopted source, for notifications
	families    []domain.KeyFamily // Keys.Families, that a saved source is checked against
	refreshed   bool
	running     bool                                     // Run runs: Warm waits for its first refresh
	attempted   bool                                     // Run's first refresh ended (first is closed)
	first       chan struct{}                            // closed when Run's first refresh ended
	lastErr     error                                    // the error of Run's latest refresh
	onRate      func(ctx context.Context, keys []string) // the rate keys (logs and hashes) one refresh found
}

func NewDiscovery(rdb redis.UniversalClient, keys Keys, onRate func(ctx context.Context, keys []string)) *Discovery {
	d := &Discovery{onRate: onRate, first: make(chan struct{}), rdb: rdb, adopted: map[string]*sweep{}, adoptedStep: map[string]*sweep{}, sources: keys.Sources(), families: keys.Families()}
	d.sweeps[KindBoard] = newSweep(&sweep{name: "board", prefix: keys.LeaderboardPrefix, typ: "zset", index: keys.BoardIndex()})
	d.sweeps[KindQueue] = newSweep(&sweep{name: "queue", prefix: keys.QueuePrefix, typ: "zset", index: keys.QueueIndex()})
	d.sweeps[KindLock] = newSweep(&sweep{name: "lock", prefix: keys.LockPrefix, index: keys.LockIndex()})
	d.sweeps[rateKeys] = newSweep(&sweep{prefix: keys.RatePrefix, typ: "zset"})
	d.sweeps[rateHashes] = newSweep(&sweep{prefix: keys.RatePrefix, typ: "hash"})
	d.dated = newSweep(&sweep{pattern: datedPattern, typ: "zset", limit: MaxDatedKeys})
	d.lockStep = newSweep(&sweep{name: "lock", prefix: keys.LockPrefix, calls: StepCalls})
	return d
}

// newSweep returns s with its state made, empty.
func newSweep(s *sweep) *sweep {
	s.cursors, s.done, s.seen, s.found, s.own = map[string]uint64{}, map[string]bool{}, map[string]struct{}{}, map[string]struct{}{}, map[string]struct{}{}
	return s
}

// Run refreshes every every until ctx ends. Failures wait for the next round: the watcher
// reports Redis outages. Only Run (and a test's Refresh) and the watcher's periodic steps
// (StepLocks, StepAdopted: discovery_step.go) advance discovery: reads (pages, the API, the
// watcher's other polls) only read its snapshot.
func (d *Discovery) Run(ctx context.Context, every time.Duration) {
	d.mu.Lock()
	d.running = true
	d.mu.Unlock()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		err := d.Refresh(ctx)
		d.mu.Lock()
		d.lastErr = err
		if !d.attempted {
			d.attempted = true
			close(d.first)
		}
		d.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Warm makes sure a first page shows what exists: while Run runs, it waits for Run's first
// refresh and never refreshes itself (a read only reads discovery's snapshot); without Run (a
// test, a tool), it refreshes once if nothing did yet. Returns EUNAVAILABLE when no refresh
// succeeded, or ctx's error.
func (d *Discovery) Warm(ctx context.Context) error {
	d.mu.Lock()
	running, refreshed, first := d.running, d.refreshed, d.first
	d.mu.Unlock()
	switch {
	case refreshed:
		return nil
	case !running:
		return d.Refresh(ctx)
	}
	select {
	case <-first:
	case <-ctx.Done():
		return ctx.Err()
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.refreshed {
		return nil
	}
	return d.lastErr
}

// Refreshed says whether a refresh has run: until then the names are not known.
func (d *Discovery) Refreshed() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.refreshed
}

// Refresh reads the indexes and goes on with each kind's sweep. Returns EUNAVAILABLE.
func (d *Discovery) Refresh(ctx context.Context) error {
	if err := d.refresh(ctx, KindBoard, KindQueue, KindLock, rateKeys, rateHashes); err != nil {
		return err
	}
	return d.refreshAdopted(ctx)
}

// refresh reads the indexes and goes on with the sweeps of the given kinds.
func (d *Discovery) refresh(ctx context.Context, kinds ...Kind) error {
	d.refreshing.Lock()
	defer d.refreshing.Unlock()
	d.mu.Lock()
	for _, k := range kinds {
		d.sweeps[k].added = map[string]struct{}{}
	}
	d.mu.Unlock()
	pipe := d.rdb.Pipeline()
	var indexes [KindCount]*redis.StringSliceCmd
	for _, k := range kinds {
		if s := d.sweeps[k]; s.index != "" {
			indexes[k] = pipe.SMembers(ctx, s.index)
		}
	}
	if _, err := pipe.Exec(ctx); !d.indexesOfAnotherType(indexes[:]) {
		d.endRefresh(kinds)
		return OpError("store.Discovery.refresh", err)
	}
	var foundRate []string
	masters := map[string]bool{} // the masters of now: a Cluster may have gained or lost some
	err := d.eachMaster(ctx, func(ctx context.Context, addr string, node redis.Cmdable) error {
		d.mu.Lock()
		masters[addr] = true
		d.mu.Unlock()
		for _, k := range kinds {
			found, err := d.step(ctx, k, addr, node)
			if err != nil {
				return err
			}
			if k == rateKeys || k == rateHashes {
				d.mu.Lock()
				foundRate = append(foundRate, found...)
				d.mu.Unlock()
			}
		}
		return nil
	})
	if err != nil {
		d.endRefresh(kinds)
		return OpError("store.Discovery.refresh", err)
	}
	d.mu.Lock()
	for _, k := range kinds {
		s := d.sweeps[k]
		if indexes[k] != nil {
			s.own = s.added
			for _, n := range indexes[k].Val() {
				if domain.ValidateKeyName(s.name, n) == nil {
					s.own[n] = struct{}{}
				}
			}
		}
		s.added = nil
		s.endPass(masters)
	}
	d.refreshed = d.refreshed || len(kinds) == int(KindCount)
	onRate := d.onRate
	d.mu.Unlock()
	if onRate != nil && len(foundRate) > 0 {
		onRate(ctx, foundRate)
	}
	return nil
}

// endPass ends a refresh of a sweep: when every master's pass ended, what it did not see is
// gone. Called with d.mu held.
func (s *sweep) endPass(masters map[string]bool) {
	for addr := range s.done { // a master that left takes its unfinished sweep with it
		if !masters[addr] {
			delete(s.done, addr)
			delete(s.cursors, addr)
		}
	}
	if len(s.done) > 0 && !slices.Contains(slices.Collect(maps.Values(s.done)), false) {
		s.found, s.seen = s.seen, map[string]struct{}{}
		clear(s.done)
		clear(s.cursors)
	} else {
		maps.Copy(s.found, s.seen)
	}
}

// remember adds a name (a key for sweeps of keys) as found, and says whether it was new.
// Called with d.mu held.
func (s *sweep) remember(id string) bool {
	_, known := s.found[id]
	if _, own := s.own[id]; own {
		known = true
	}
	s.found[id] = struct{}{}
	s.seen[id] = struct{}{} // so the pass under way keeps it when it ends
	return !known
}

// endRefresh ends a failed refresh: names written meanwhile are already in own.
func (d *Discovery) endRefresh(kinds []Kind) {
	d.mu.Lock()
	for _, k := range kinds {
		d.sweeps[k].added = nil
	}
	d.mu.Unlock()
}

// eachMaster calls fn for every master of a Cluster, at once, or for the one server.
func (d *Discovery) eachMaster(ctx context.Context, fn func(ctx context.Context, addr string, node redis.Cmdable) error) error {
	if cluster, ok := d.rdb.(*redis.ClusterClient); ok {
		return cluster.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error {
			return fn(ctx, node.Options().Addr, node)
		})
	}
	return fn(ctx, "", d.rdb)
}

// step goes on with one kind's sweep of one master for at most ScanCalls calls and returns
// the keys it found.
func (d *Discovery) step(ctx context.Context, k Kind, addr string, node redis.Cmdable) ([]string, error) {
	return d.stepSweep(ctx, d.sweeps[k], addr, node)
}

// stepSweep goes on with one sweep on one master (see step), for at most s.calls calls.
func (d *Discovery) stepSweep(ctx context.Context, s *sweep, addr string, node redis.Cmdable) ([]string, error) {
	pattern := s.pattern
	if pattern == "" {
		pattern = s.prefix + "*"
	}
	d.mu.Lock()
	cursor, done := s.cursors[addr], s.done[addr]
	d.mu.Unlock()
	if done {
		return nil, nil
	}
	calls := s.calls
	if calls == 0 {
		calls = ScanCalls
	}
	var keys []string
	for range calls {
		var page []string
		var err error
		if s.typ != "" {
			page, cursor, err = node.ScanType(ctx, cursor, pattern, ScanCount, s.typ).Result()
		} else {
			page, cursor, err = node.Scan(ctx, cursor, pattern, ScanCount).Result()
		}
		if err != nil {
			return nil, err
		}
		keys = append(keys, page...)
		if cursor == 0 {
			break
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	s.cursors[addr], s.done[addr] = cursor, cursor == 0
	for _, key := range keys {
		if s.limit > 0 && len(s.seen) >= s.limit {
			break
		}
		if s.name == "" {
			s.seen[key] = struct{}{}
		} else if name := strings.TrimPrefix(key, s.prefix); domain.ValidateKeyName(s.name, name) == nil {
			s.seen[name] = struct{}{}
		}
	}
	return keys, nil
}

// Names returns a kind's known names, sorted, without reading Redis: the indexed ones, those
// written since, and those found.
func (d *Discovery) Names(k Kind) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.sweeps[k]
	names := maps.Clone(s.found)
	maps.Copy(names, s.own)
	if k == KindBoard { // period boards of a known board are not boards of their own
		for b := range names {
			if i := strings.LastIndexByte(b, ':'); i > 0 && domain.IsPeriodSuffix(b[i+1:]) {
				if _, known := names[b[:i]]; known {
					delete(names, b)
				}
			}
		}
	}
	return slices.Sorted(maps.Keys(names))
}

// Add records a name zpulse wrote to.
func (d *Discovery) Add(k Kind, name string) {
	d.mu.Lock()
	s := d.sweeps[k]
	s.own[name] = struct{}{}
	if s.added != nil {
		s.added[name] = struct{}{}
	}
	d.mu.Unlock()
}

// Forget drops a name whose thing is gone (a board reset, a lock found released).
func (d *Discovery) Forget(k Kind, name string) {
	d.mu.Lock()
	s := d.sweeps[k]
	delete(s.own, name)
	delete(s.found, name)
	delete(s.seen, name)
	d.mu.Unlock()
}

// NamesWarm returns a kind's names after a first refresh. Returns EUNAVAILABLE.
func (d *Discovery) NamesWarm(ctx context.Context, k Kind) ([]string, error) {
	if err := d.Warm(ctx); err != nil {
		return nil, err
	}
	return d.Names(k), nil
}
