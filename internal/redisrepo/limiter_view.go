package redisrepo

import (
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
)

// A limiter's view needs the policy (which keys to read) and the list of its clients before
// it can read their state. The live path reads every topic in one pipelined round trip, so it
// reads the policy and the list together with the state of the clients the previous read
// listed: a new client shows one tick later, and a topic's first read is not published.
// The page itself (Limiters.View) makes the two round trips.

// limiterPrev is what one read of a limiter's view found, for the next read.
type limiterPrev struct {
	policy  domain.LimitPolicy
	clients []string
	nowMs   int64     // the limiter clock at that read
	readAt  time.Time // the local clock at that read, to estimate the limiter clock now
}

// limiterViews reads limiters' views with the clock the limiters use.
type limiterViews struct {
	keys  Keys
	clock domain.Clock // nil: Redis TIME

	mu   sync.Mutex
	prev map[string]limiterPrev // for the live path: topic's limiter -> last read
}

func newLimiterViews(keys Keys, clock domain.Clock) *limiterViews {
	return &limiterViews{keys: keys, clock: clock, prev: map[string]limiterPrev{}}
}

// planLive adds the reads of a limiter's view on the live path's pipeline. The decoder
// reports ok false on a limiter's first read, which only learns its policy and clients.
func (v *limiterViews) planLive(ctx context.Context, pipe redis.Pipeliner, name string) func() (domain.LimiterView, bool) {
	v.mu.Lock()
	prev, seen := v.prev[name]
	v.mu.Unlock()
	decode := v.plan(ctx, pipe, name, prev, seen)
	return func() (domain.LimiterView, bool) {
		view, next := decode()
		v.mu.Lock()
		v.prev[name] = next
		v.mu.Unlock()
		return view, seen
	}
}

// forget drops what the live path remembers of limiters nobody watches any more.
func (v *limiterViews) forget(watched map[string]bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for name := range v.prev {
		if !watched[name] {
			delete(v.prev, name)
		}
	}
}

// estimateNow is the limiter clock now: the injected clock, or the Redis time of the last
// read plus the time elapsed since. It only places the bounds of reads; the view itself is
// computed with the time read in the same pipeline.
func (v *limiterViews) estimateNow(prev limiterPrev, seen bool) int64 {
	switch {
	case v.clock != nil:
		return v.clock.Now().UnixMilli()
	case seen:
		return prev.nowMs + time.Since(prev.readAt).Milliseconds()
	default:
		return time.Now().UnixMilli()
	}
}

// clientState is the queued reads of one client.
type clientState struct {
	client string
	count  *redis.IntCmd         // sliding log: requests after the estimated window start
	oldest *redis.ZSliceCmd      // sliding log: the oldest of those
	log    *redis.ZSliceCmd      // sliding log: the newest MaxViewEvents requests
	fields *redis.SliceCmd       // other algorithms: the state hash's fields
	events *redis.StringSliceCmd // zpulse's latest checks of the client
}

func (v *limiterViews) plan(ctx context.Context, pipe redis.Pipeliner, name string, prev limiterPrev, seen bool) func() (domain.LimiterView, limiterPrev) {
	var timeCmd *redis.TimeCmd
	if v.clock == nil {
		timeCmd = pipe.Time(ctx)
	}
	est := v.estimateNow(prev, seen)
	policyCmd := pipe.HGetAll(ctx, v.keys.LimiterPolicy(name))
	span := int64(minKeepMs)
	if seen {
		span = 2 * max(prev.policy.QuotaWindowMs(), 1000)
	}
	clientsKey := v.keys.LimiterClients(name)
	recent := &redis.ZRangeBy{Min: strconv.FormatInt(est-span, 10), Max: "+inf", Count: domain.MaxViewClients}
	clientsCmd := pipe.ZRevRangeByScore(ctx, clientsKey, recent)
	clientCount := pipe.ZCount(ctx, clientsKey, recent.Min, "+inf")

	var states []clientState
	if seen {
		p := prev.policy
		after := "(" + strconv.FormatInt(est-p.WindowMs, 10)
		for _, c := range prev.clients {
			s := clientState{client: c, events: pipe.LRange(ctx, v.keys.LimiterEvents(name, c), 0, domain.MaxViewEvents-1)}
			key := v.keys.LimiterState(p, c)
			switch p.Algorithm {
			case domain.SlidingLog:
				s.count = pipe.ZCount(ctx, key, after, "+inf")
				s.oldest = pipe.ZRangeByScoreWithScores(ctx, key, &redis.ZRangeBy{Min: after, Max: "+inf", Count: 1})
				s.log = pipe.ZRangeWithScores(ctx, key, -domain.MaxViewEvents, -1)
			case domain.FixedWindow:
				s.fields = pipe.HMGet(ctx, key, "w", "n")
			case domain.SlidingCounter:
				s.fields = pipe.HMGet(ctx, key, "w", "c", "p")
			case domain.TokenBucket:
				s.fields = pipe.HMGet(ctx, key, "tokens", "ts")
			}
			states = append(states, s)
		}
	}
	minute := est / 60_000
	statsNow := pipe.HGetAll(ctx, v.keys.LimiterStats(name, minute))
	statsBefore := pipe.HGetAll(ctx, v.keys.LimiterStats(name, minute-1))

	return func() (domain.LimiterView, limiterPrev) {
		now := est
		if timeCmd != nil {
			now = timeCmd.Val().UnixMilli()
		}
		policy, exists := decodePolicy(name, policyCmd.Val())
		if !exists {
			policy = domain.LimitPolicy{Name: name}
		}
		next := limiterPrev{policy: policy, clients: clientsCmd.Val(), nowMs: now, readAt: time.Now()}
		view := domain.LimiterView{Policy: policy, Exists: exists}
		if !exists {
			return view, next
		}
		listed := map[string]bool{}
		for _, c := range next.clients {
			listed[c] = true
		}
		if seen && prev.policy.Algorithm == policy.Algorithm {
			for _, s := range states {
				if !listed[s.client] {
					continue
				}
				u := decodeUsage(policy, now, s)
				if u.Used > 0 || len(u.Events) > 0 {
					view.Clients = append(view.Clients, u)
				}
			}
		}
		slices.SortFunc(view.Clients, func(a, b domain.ClientUsage) int { return strings.Compare(a.Client, b.Client) })
		view.More = max(int(clientCount.Val())-len(next.clients), 0)
		view.Seconds = decodeSeconds(now, statsBefore.Val(), statsNow.Val())
		if len(view.Clients) > 0 || len(view.Seconds) > 0 {
			view.NowMs = now - now%1000
		}
		return view, next
	}
}

// decodeUsage computes a client's usage from its state as the scripts do (limiter_scripts.go;
// TestViewAgreesWithPeek holds them together), with durations rounded up to whole seconds
// so a view changes once a second, not at every read.
func decodeUsage(p domain.LimitPolicy, now int64, s clientState) domain.ClientUsage {
	u := domain.ClientUsage{Client: s.client, Limit: p.Quota()}
	span := max(p.QuotaWindowMs(), 1000)
	var events []domain.LimitEvent
	for _, e := range s.events.Val() { // newest first
		at, mark, _ := strings.Cut(e, ":")
		ms, err := strconv.ParseInt(at, 10, 64)
		if err != nil || ms <= now-span || ms > now {
			continue
		}
		if p.Algorithm == domain.SlidingLog && mark == "1" {
			continue // admitted requests are in the log itself, with other services' ones
		}
		events = append(events, domain.LimitEvent{AtMs: ms, Allowed: mark == "1"})
	}
	switch p.Algorithm {
	case domain.SlidingLog:
		w := p.WindowMs
		log := s.log.Val()
		var inWindow []float64
		for _, z := range log {
			if int64(math.Ceil(z.Score)) > now-w {
				inWindow = append(inWindow, z.Score)
				if z.Score <= float64(now) {
					events = append(events, domain.LimitEvent{AtMs: int64(z.Score), Allowed: true})
				}
			}
		}
		count := s.count.Val()
		if int64(len(log)) < domain.MaxViewEvents || count <= int64(len(inWindow)) {
			count = int64(len(inWindow)) // the whole log was read: count exactly at now
		}
		u.Used = count
		u.Remaining = max(p.Limit-count, 0)
		if u.Remaining == 0 {
			i := count - p.Limit
			if len(inWindow) == int(count) && i < int64(len(inWindow)) {
				u.RetryAfterMs = int64(inWindow[i]) + w - now
			} else if o := s.oldest.Val(); len(o) == 1 {
				u.RetryAfterMs = int64(o[0].Score) + w - now
			}
		}
		if len(log) > 0 {
			u.ResetMs = int64(math.Ceil(log[len(log)-1].Score)) + w - now
		}
	case domain.FixedWindow:
		f := floats(s.fields.Val())
		start := now - now%p.WindowMs
		if f[0] == float64(start) {
			u.Used = int64(orZero(f[1]))
		}
		u.Remaining = max(p.Limit-u.Used, 0)
		if u.Remaining == 0 {
			u.RetryAfterMs = start + p.WindowMs - now
		}
		if u.Used > 0 {
			u.ResetMs = start + p.WindowMs - now
		}
	case domain.SlidingCounter:
		f := floats(s.fields.Val())
		w := p.WindowMs
		start := now - now%w
		c, prev := orZero(f[1]), orZero(f[2])
		if f[0] != float64(start) {
			if f[0] == float64(start-w) {
				prev = c
			} else {
				prev = 0
			}
			c = 0
		}
		limit := float64(p.Limit)
		estimate := prev*float64(w-(now-start))/float64(w) + c
		u.Used = int64(math.Ceil(estimate - 1e-9))
		u.Remaining = max(int64(math.Floor(limit-estimate+1e-9)), 0)
		if u.Remaining == 0 {
			var at float64
			if c+1 <= limit {
				at = float64(start) + float64(w)*(1-(limit-c-1)/prev)
			} else {
				at = float64(start+w) + float64(w)*(1-(limit-1)/c)
			}
			u.RetryAfterMs = max(int64(math.Ceil(at-float64(now))), 0)
		}
		if c > 0 {
			u.ResetMs = start + 2*w - now
		} else if prev > 0 {
			u.ResetMs = start + w - now
		}
	case domain.TokenBucket:
		f := floats(s.fields.Val())
		burst, rate := float64(p.Burst), p.RatePerS/1000
		tokens, ts := f[0], f[1]
		if math.IsNaN(tokens) || math.IsNaN(ts) {
			tokens, ts = burst, float64(now)
		}
		if float64(now) > ts {
			tokens = math.Min(burst, tokens+(float64(now)-ts)*rate)
		}
		u.Remaining = int64(math.Floor(tokens + 1e-9))
		u.Used = p.Burst - u.Remaining
		if u.Remaining < 1 {
			u.RetryAfterMs = int64(math.Ceil((1-tokens)/rate - 1e-9))
		}
		u.ResetMs = max(int64(math.Ceil((burst-tokens)/rate-1e-9)), 0)
	}
	u.RetryAfterMs = ceilSecond(max(u.RetryAfterMs, 0))
	u.ResetMs = ceilSecond(max(u.ResetMs, 0))
	slices.SortFunc(events, func(a, b domain.LimitEvent) int { return int(a.AtMs - b.AtMs) })
	if len(events) > domain.MaxViewEvents {
		events = events[len(events)-domain.MaxViewEvents:]
	}
	u.Events = events
	return u
}

// floats reads HMGET answers as numbers, NaN for a missing field. NaN equals no window
// start; counts go through orZero.
func floats(vals []any) []float64 {
	out := make([]float64, len(vals))
	for i, v := range vals {
		out[i] = math.NaN()
		if s, ok := v.(string); ok {
			if f, err := strconv.ParseFloat(s, 64); err == nil {
				out[i] = f
			}
		}
	}
	return out
}

func orZero(f float64) float64 {
	if math.IsNaN(f) {
		return 0
	}
	return f
}

func ceilSecond(ms int64) int64 { return (ms + 999) / 1000 * 1000 }

// decodeSeconds turns two minutes of per-second counts into the last ViewSeconds seconds
// that had checks, oldest first.
func decodeSeconds(now int64, maps ...map[string]string) []domain.SecondCount {
	bySec := map[int64]*domain.SecondCount{}
	nowSec := now / 1000
	for _, m := range maps {
		for field, val := range m {
			sec, kind, _ := strings.Cut(field, ":")
			s, err1 := strconv.ParseInt(sec, 10, 64)
			n, err2 := strconv.ParseInt(val, 10, 64)
			if err1 != nil || err2 != nil || s <= nowSec-domain.ViewSeconds || s > nowSec {
				continue
			}
			c := bySec[s]
			if c == nil {
				c = &domain.SecondCount{Sec: s}
				bySec[s] = c
			}
			if kind == "a" {
				c.Allowed += n
			} else {
				c.Rejected += n
			}
		}
	}
	out := make([]domain.SecondCount, 0, len(bySec))
	for _, c := range bySec {
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b domain.SecondCount) int { return int(a.Sec - b.Sec) })
	if len(out) == 0 {
		return nil
	}
	return out
}

// View reads a limiter's view in two round trips: the policy and the client list, then the
// clients' state.
func (l *Limiters) View(ctx context.Context, name string) (domain.LimiterView, error) {
	if err := domain.ValidateLimiterName(name); err != nil {
		return domain.LimiterView{}, err
	}
	views, err := l.readViews(ctx, []string{name})
	if err != nil {
		return domain.LimiterView{}, opError("redisrepo.Limiters.View", err)
	}
	return views[0], nil
}

// Views reads the view of every saved limiter, sorted by name, as the limiters topic shows
// them, in three round trips whatever their number.
func (l *Limiters) Views(ctx context.Context) ([]domain.LimiterView, error) {
	policies, err := l.Policies(ctx)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(policies))
	for i, p := range policies {
		names[i] = p.Name
	}
	views, err := l.readViews(ctx, names)
	if err != nil {
		return nil, opError("redisrepo.Limiters.Views", err)
	}
	return slices.DeleteFunc(views, func(v domain.LimiterView) bool { return !v.Exists }), nil
}

// readViews reads limiters' views with the plan the live path uses, in two pipelines: the
// first learns each policy and its clients, the second reads their state.
func (l *Limiters) readViews(ctx context.Context, names []string) ([]domain.LimiterView, error) {
	v := newLimiterViews(l.keys, l.clock)
	pipe := l.rdb.Pipeline()
	firsts := make([]func() (domain.LimiterView, limiterPrev), len(names))
	for i, name := range names {
		firsts[i] = v.plan(ctx, pipe, name, limiterPrev{}, false)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, err
	}
	pipe = l.rdb.Pipeline()
	seconds := make([]func() (domain.LimiterView, limiterPrev), len(names))
	for i, name := range names {
		_, prev := firsts[i]()
		seconds[i] = v.plan(ctx, pipe, name, prev, true)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, err
	}
	views := make([]domain.LimiterView, len(names))
	for i := range names {
		views[i], _ = seconds[i]()
	}
	return views, nil
}
