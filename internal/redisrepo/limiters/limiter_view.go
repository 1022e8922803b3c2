package limiters

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
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

// LimiterViews reads limiters' views with the clock the limiters use.
type LimiterViews struct {
	keys   store.Keys
	clocks store.Clocks // Script nil: the limiters use Redis TIME, estimated between reads by Local

	mu   sync.Mutex
	prev map[string]limiterPrev // for the live path: topic's limiter -> last read
}

func NewLimiterViews(keys store.Keys, c store.Clocks) *LimiterViews {
	return &LimiterViews{keys: keys, clocks: c, prev: map[string]limiterPrev{}}
}

// PlanLive adds the reads of a limiter's view on the live path's pipeline. The decoder's seen
// is false on a limiter's first read, which only learns its policy and clients (the view is
// then not to be shown); whole is false too when the read learnt clients whose state it did
// not read (a client new since the last read, say another service's first request): a read
// again at once shows them.
func (v *LimiterViews) PlanLive(ctx context.Context, pipe redis.Pipeliner, name string) func() (view domain.LimiterView, seen, whole bool) {
	v.mu.Lock()
	prev, seen := v.prev[name]
	v.mu.Unlock()
	decode := v.plan(ctx, pipe, name, prev, seen)
	return func() (domain.LimiterView, bool, bool) {
		view, next := decode()
		v.mu.Lock()
		v.prev[name] = next
		v.mu.Unlock()
		whole := seen && next.policy.Algorithm == prev.policy.Algorithm
		for _, c := range next.clients {
			whole = whole && slices.Contains(prev.clients, c)
		}
		return view, seen, whole
	}
}

// Forget drops what the live path remembers of limiters nobody watches any more.
func (v *LimiterViews) Forget(watched map[string]bool) {
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
func (v *LimiterViews) estimateNow(prev limiterPrev, seen bool) int64 {
	local := v.clocks.Local()
	switch {
	case v.clocks.Script != nil:
		return v.clocks.Script.Now().UnixMilli()
	case seen:
		return prev.nowMs + local.Now().Sub(prev.readAt).Milliseconds()
	default:
		return local.Now().UnixMilli()
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

// head is the reads every view starts with: the limiter clock (Redis TIME when the limiters
// use it), the policy, and the clients seen within a span of the estimated now.
type head struct {
	est     int64
	readAt  time.Time      // the local clock when the reads were planned
	time    *redis.TimeCmd // nil with an injected clock
	policy  *redis.MapStringStringCmd
	clients *redis.StringSliceCmd
	recent  *redis.ZRangeBy
}

func (v *LimiterViews) planHead(ctx context.Context, pipe redis.Pipeliner, name string, est, span int64) head {
	h := head{est: est, readAt: v.clocks.Local().Now(), recent: &redis.ZRangeBy{Min: strconv.FormatInt(est-span, 10), Max: "+inf", Count: domain.MaxViewClients}}
	if v.clocks.Script == nil {
		h.time = pipe.Time(ctx)
	}
	h.policy = pipe.HGetAll(ctx, v.keys.LimiterPolicy(name))
	h.clients = pipe.ZRevRangeByScore(ctx, v.keys.LimiterClients(name), h.recent)
	return h
}

// read decodes the head once its pipeline ran: what the next read of the view starts from,
// and whether the policy exists (saved or built in).
func (h head) read(name string) (limiterPrev, bool) {
	now := h.est
	if h.time != nil {
		now = h.time.Val().UnixMilli()
	}
	policy, exists := builtins.decode(name, h.policy.Val())
	if !exists {
		policy = domain.LimitPolicy{Name: name}
	}
	return limiterPrev{policy: policy, clients: h.clients.Val(), nowMs: now, readAt: h.readAt}, exists
}

func (v *LimiterViews) plan(ctx context.Context, pipe redis.Pipeliner, name string, prev limiterPrev, seen bool) func() (domain.LimiterView, limiterPrev) {
	est := v.estimateNow(prev, seen)
	span := int64(minKeepMs)
	if seen {
		span = 2 * max(prev.policy.QuotaWindowMs(), 1000)
	}
	h := v.planHead(ctx, pipe, name, est, span)
	clientCount := pipe.ZCount(ctx, v.keys.LimiterClients(name), h.recent.Min, "+inf")

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
		next, exists := h.read(name)
		now, policy := next.nowMs, next.policy
		view := domain.LimiterView{Policy: policy, StateKey: v.keys.LimiterStateDisplay(policy), Exists: exists}
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
		if len(view.Clients) > 0 { // the seconds are drawn at their own times (views.secondBars)
			view.NowMs = now - now%1000
		}
		return view, next
	}
}

// View reads a limiter's view in two round trips: the policy and the client list, then the
// clients' state.
func (l *Limiters) View(ctx context.Context, name string) (domain.LimiterView, error) {
	if err := domain.ValidateLimiterName(name); err != nil {
		return domain.LimiterView{}, err
	}
	views, err := l.readViews(ctx, []string{name})
	if err != nil {
		return domain.LimiterView{}, store.OpError("limiters.Limiters.View", err)
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
		return nil, store.OpError("limiters.Limiters.Views", err)
	}
	return slices.DeleteFunc(views, func(v domain.LimiterView) bool { return !v.Exists }), nil
}

// readViews reads limiters' views in two pipelines: the first reads each one's head (policy
// and clients, no more), the second the view with the plan the live path uses.
func (l *Limiters) readViews(ctx context.Context, names []string) ([]domain.LimiterView, error) {
	v := NewLimiterViews(l.Keys, l.clocks)
	pipe := l.Rdb.Pipeline()
	heads := make([]head, len(names))
	for i, name := range names {
		heads[i] = v.planHead(ctx, pipe, name, v.estimateNow(limiterPrev{}, false), minKeepMs)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, err
	}
	pipe = l.Rdb.Pipeline()
	seconds := make([]func() (domain.LimiterView, limiterPrev), len(names))
	for i, name := range names {
		prev, _ := heads[i].read(name)
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
