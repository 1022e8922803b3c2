package limiters

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// maxPending bounds the memory of checks waiting to be written; beyond it new ones are
// dropped until the next flush (only the pages' history loses them, never a limit).
const maxPending = 100_000

// Client lists and events are kept this long after a client's last check, at least.
const (
	minKeepMs  = 10 * 60 * 1000
	maxListed  = 1000 // clients per policy in the list
	statsTTL   = 3 * time.Minute
	flushEvery = 200 * time.Millisecond
)

// recorder keeps the outcome of the checks made through this instance until Flush writes
// them, in one pipeline, for the limiters' pages: each client's latest checks, the counts
// per second and the list of clients. Keeping this off the check itself keeps a check at one
// round trip (one script); the pages learn of it within a flush interval.
type recorder struct {
	mu      sync.Mutex
	pending []check

	// flushing is held from taking the pending checks until they are written, so a Flush
	// that returns has written every check recorded before it was called, even when the
	// periodic flush took them a moment earlier.
	flushing sync.Mutex
}

type check struct {
	policy  domain.LimitPolicy
	client  string
	at      int64
	allowed bool
}

func (r *recorder) add(p domain.LimitPolicy, client string, res domain.LimitResult) {
	r.mu.Lock()
	if len(r.pending) < maxPending {
		r.pending = append(r.pending, check{policy: p, client: client, at: res.AtMs, allowed: res.Allowed})
	}
	r.mu.Unlock()
}

func (r *recorder) Take() []check {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.pending
	r.pending = nil
	return out
}

func keepMs(p domain.LimitPolicy) int64 { return max(2*p.QuotaWindowMs(), minKeepMs) }

// Flush writes the checks recorded since the last flush; when it returns, every check
// recorded before the call is written (or lost with the error). Run calls it every 200 ms.
// Returns EUNAVAILABLE (the checks are then lost: they are history, not limits).
func (l *Limiters) Flush(ctx context.Context) error {
	l.Rec.flushing.Lock()
	defer l.Rec.flushing.Unlock()
	checks := l.Rec.Take()
	if len(checks) == 0 {
		return nil
	}
	type clientKey struct{ policy, client string }
	events := map[clientKey][]any{}
	lastSeen := map[clientKey]int64{}
	policies := map[string]domain.LimitPolicy{}
	stats := map[string]map[string]int64{} // stats key -> field -> count
	for _, c := range checks {
		k := clientKey{c.policy.Name, c.client}
		mark := "0"
		if c.allowed {
			mark = "1"
		}
		events[k] = append(events[k], strconv.FormatInt(c.at, 10)+":"+mark)
		lastSeen[k] = max(lastSeen[k], c.at)
		policies[c.policy.Name] = c.policy
		sk := l.Keys.LimiterStats(c.policy.Name, c.at/60_000)
		if stats[sk] == nil {
			stats[sk] = map[string]int64{}
		}
		stats[sk][statsField(c.at/1000, c.allowed)]++
	}
	pipe := l.Rdb.Pipeline()
	newest := map[string]int64{}
	for k, evs := range events {
		p := policies[k.policy]
		key := l.Keys.LimiterEvents(k.policy, k.client)
		if len(evs) > domain.MaxViewEvents {
			evs = evs[len(evs)-domain.MaxViewEvents:]
		}
		pipe.LPush(ctx, key, evs...) // the last pushed, the newest, ends up first
		pipe.LTrim(ctx, key, 0, domain.MaxViewEvents-1)
		pipe.PExpire(ctx, key, time.Duration(keepMs(p))*time.Millisecond)
		pipe.ZAddGT(ctx, l.Keys.LimiterClients(k.policy), redis.Z{Score: float64(lastSeen[k]), Member: k.client})
		newest[k.policy] = max(newest[k.policy], lastSeen[k])
	}
	for name, at := range newest {
		l.trimClients(ctx, pipe, policies[name], at)
	}
	for sk, fields := range stats {
		for f, n := range fields {
			pipe.HIncrBy(ctx, sk, f, n)
		}
		pipe.Expire(ctx, sk, statsTTL)
	}
	_, err := pipe.Exec(ctx)
	return store.OpWriteError("limiters.Limiters.Flush", err)
}

// trimClients keeps a policy's client list small: clients seen lately, at most maxListed.
func (l *Limiters) trimClients(ctx context.Context, pipe redis.Pipeliner, p domain.LimitPolicy, nowMs int64) {
	key := l.Keys.LimiterClients(p.Name)
	keep := keepMs(p)
	pipe.ZRemRangeByScore(ctx, key, "-inf", "("+strconv.FormatInt(nowMs-keep, 10))
	pipe.ZRemRangeByRank(ctx, key, 0, -maxListed-1)
	pipe.PExpire(ctx, key, time.Duration(keep)*time.Millisecond)
}

// Run flushes the recorded checks every 200 ms until ctx ends; then it flushes one last time.
func (l *Limiters) Run(ctx context.Context) {
	flush := time.NewTicker(flushEvery)
	defer flush.Stop()
	for {
		select {
		case <-ctx.Done():
			final, cancel := context.WithTimeout(context.Background(), time.Second)
			_ = l.Flush(final)
			cancel()
			return
		case <-flush.C:
			_ = l.Flush(ctx) // Redis down: the watcher reports it; history is best effort
		}
	}
}

// lastSeenField is the field of a limiter hash that holds the time of the client's latest
// request, or the start of its window (store/keys.go has the layouts).
var lastSeenField = map[domain.Algorithm]string{domain.TokenBucket: "ts", domain.FixedWindow: "w", domain.SlidingCounter: "w"}

// AdoptClients lists every client among keys (the limiter keys under rate: that Discovery
// found: sorted sets and hashes) under its saved policy of the key's algorithm, with the time
// of its latest request (a sliding log's newest entry, a token bucket's ts, a window's start),
// so that clients written by other services in zpulse's layouts (the articles' own, on
// rate:<client>; another service's token bucket on rate:tb:<policy>:{<client>}) show on the
// limiters' pages. Returns EUNAVAILABLE.
func (l *Limiters) AdoptClients(ctx context.Context, keys []string) error {
	policies, err := l.Policies(ctx)
	if err != nil {
		return err
	}
	saved := map[string]domain.LimitPolicy{}
	for _, p := range policies {
		saved[p.Name] = p
	}
	pipe := l.Rdb.Pipeline()
	type found struct {
		policy domain.LimitPolicy
		client string
		newest *redis.ZSliceCmd // a sliding log's newest entry
		seen   *redis.StringCmd // a hash's time field
	}
	var all []found
	for _, key := range keys {
		a, policy, client, ok := l.Keys.ParseLimiterState(key)
		p, known := saved[policy]
		if !ok || !known || p.Algorithm != a {
			continue
		}
		f := found{policy: p, client: client}
		if field, hash := lastSeenField[a]; hash {
			f.seen = pipe.HGet(ctx, key, field)
		} else {
			f.newest = pipe.ZRangeWithScores(ctx, key, -1, -1)
		}
		all = append(all, f)
	}
	if len(all) == 0 {
		return nil
	}
	var reply redis.Error // a key of another type (WRONGTYPE) only leaves its client out
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) && !errors.As(err, &reply) {
		return store.OpError("limiters.Limiters.AdoptClients", err)
	}
	pipe = l.Rdb.Pipeline()
	newest := map[string]int64{}
	for _, f := range all {
		at, ok := int64(0), false
		switch {
		case f.newest != nil && len(f.newest.Val()) == 1:
			at, ok = int64(f.newest.Val()[0].Score), true
		case f.seen != nil && f.seen.Err() == nil:
			ms, err := strconv.ParseFloat(f.seen.Val(), 64)
			at, ok = int64(ms), err == nil && ms > 0
		}
		if ok {
			pipe.ZAddGT(ctx, l.Keys.LimiterClients(f.policy.Name), redis.Z{Score: float64(at), Member: f.client})
			newest[f.policy.Name] = max(newest[f.policy.Name], at)
		}
	}
	for name, at := range newest {
		l.trimClients(ctx, pipe, saved[name], at)
	}
	if len(newest) > 0 {
		if _, err := pipe.Exec(ctx); err != nil {
			return store.OpWriteError("limiters.Limiters.AdoptClients", err)
		}
	}
	return nil
}
