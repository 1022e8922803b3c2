package limiters

import (
	"maps"

	"github.com/zpulse/zpulse/internal/redisrepo/store"

	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
)

// policyCacheTTL is how long an instance keeps a policy it read. Every check needs its
// policy; reading it from Redis each time would double the round trips, and a script cannot
// read it (another key, another Cluster slot). An edit made through this instance applies at
// once; one made elsewhere within this long.
const policyCacheTTL = time.Second

// Limiters is the Redis implementation of domain.LimiterService.
type Limiters struct {
	Rdb    redis.UniversalClient
	Keys   store.Keys
	clocks store.Clocks // Script nil: Redis TIME inside each script

	policies *store.TTLCache[domain.LimitPolicy]

	Rec recorder
}

var _ domain.LimiterService = (*Limiters)(nil)

// NewLimiters returns limiters kept in rdb under keys, timed by the scripts' clock, serving
// Builtins while their hash is missing.
func NewLimiters(rdb redis.UniversalClient, keys store.Keys, c store.Clocks) *Limiters {
	return &Limiters{Rdb: rdb, Keys: keys, clocks: c,
		policies: store.NewTTLCache[domain.LimitPolicy](policyCacheTTL, c.Local())}
}

func (l *Limiters) Allow(ctx context.Context, limiter, client string) (domain.LimitResult, error) {
	p, err := l.checkArgs(ctx, limiter, client)
	if err != nil {
		return domain.LimitResult{}, err
	}
	res, err := l.run(ctx, p, client, true)
	if err == nil {
		l.Rec.add(p, client, res)
	}
	return res, err
}

func (l *Limiters) Peek(ctx context.Context, limiter, client string) (domain.LimitResult, error) {
	p, err := l.checkArgs(ctx, limiter, client)
	if err != nil {
		return domain.LimitResult{}, err
	}
	return l.run(ctx, p, client, false)
}

func (l *Limiters) checkArgs(ctx context.Context, limiter, client string) (domain.LimitPolicy, error) {
	if err := domain.ValidateLimiterName(limiter); err != nil {
		return domain.LimitPolicy{}, err
	}
	if err := domain.ValidateClient(client); err != nil {
		return domain.LimitPolicy{}, err
	}
	return l.cachedPolicy(ctx, limiter)
}

// run runs the policy's script for one client.
func (l *Limiters) run(ctx context.Context, p domain.LimitPolicy, client string, consume bool) (domain.LimitResult, error) {
	return RunLimiter(ctx, l.Rdb, l.clocks.Script, p, l.Keys.LimiterState(p, client), consume, func(seenMs int64) { l.sawLongerWriter(ctx, p, seenMs) })
}

// RunLimiter runs policy p's script on the state at key: it counts one request when consume
// is set, else only looks. clock nil reads Redis TIME in the script. It is shared by the
// saved policies (Limiters) and the built-in sign-in limit (Auth).
//
// onSeen, when not nil, is told of a writer with a longer window on a sliding log (see
// slidingLogScript).
func RunLimiter(ctx context.Context, rdb redis.UniversalClient, clock domain.Clock, p domain.LimitPolicy, key string, consume bool, onSeen func(seenMs int64)) (domain.LimitResult, error) {
	now := ""
	if clock != nil {
		now = strconv.FormatInt(clock.Now().UnixMilli(), 10)
	}
	flag := "0"
	if consume {
		flag = "1"
	}
	var cmd *redis.Cmd
	switch p.Algorithm {
	case domain.SlidingLog:
		cmd = SlidingLogScript.Run(ctx, rdb, []string{key}, now, flag, p.WindowMs, p.Limit, NewUUID(), p.KeepMs())
	case domain.FixedWindow:
		cmd = FixedWindowScript.Run(ctx, rdb, []string{key}, now, flag, p.WindowMs, p.Limit)
	case domain.SlidingCounter:
		cmd = SlidingCounterScript.Run(ctx, rdb, []string{key}, now, flag, p.WindowMs, p.Limit)
	case domain.TokenBucket:
		cmd = TokenBucketScript.Run(ctx, rdb, []string{key}, now, flag, strconv.FormatFloat(p.RatePerS/1000, 'g', -1, 64), p.Burst)
	default:
		return domain.LimitResult{}, fmt.Errorf("limiters.RunLimiter: limiter %q: unknown algorithm %q", p.Name, p.Algorithm)
	}
	vals, err := cmd.Int64Slice()
	if err != nil {
		return domain.LimitResult{}, store.ScriptWriteError("limiters.RunLimiter", key, err)
	}
	if len(vals) != 5 && (len(vals) != 6 || p.Algorithm != domain.SlidingLog) {
		return domain.LimitResult{}, fmt.Errorf("limiters.RunLimiter: limiter %q: unexpected reply %v", p.Name, vals)
	}
	if len(vals) == 6 && vals[5] > p.SeenWindowMs && onSeen != nil {
		onSeen(vals[5])
	}
	// The scripts admit nothing when they only look (Peek): the next request would be
	// admitted exactly when one remains.
	allowed := vals[0] == 1
	if !consume {
		allowed = vals[1] > 0
	}
	return domain.LimitResult{
		Allowed: allowed, Limit: p.Quota(), Remaining: vals[1],
		RetryAfterMs: vals[2], ResetMs: vals[3], AtMs: vals[4], Policy: p,
	}, nil
}

// sawLongerWriter records a longer window seen on the policy's keys, for the page's warning.
// A failure loses only the warning (the next check reports it again), never a decision.
func (l *Limiters) sawLongerWriter(ctx context.Context, p domain.LimitPolicy, seenMs int64) {
	key := l.Keys.LimiterPolicy(p.Name)
	if p.Name == domain.DefaultLimiter {
		// The default policy may have no hash: give it one, so the warning has a place.
		l.Rdb.HSetNX(ctx, key, "algorithm", string(p.Algorithm))
		l.Rdb.HSetNX(ctx, key, "limit", p.Limit)
		l.Rdb.HSetNX(ctx, key, "window_ms", p.WindowMs)
	}
	if raiseSeenWindowScript.Run(ctx, l.Rdb, []string{key}, seenMs).Val() == int64(1) {
		p.SeenWindowMs = seenMs
		l.policies.Put(p.Name, p)
	}
}

// NewUUID returns a random (version 4) UUID, the member the articles' script adds per request.
func NewUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func (l *Limiters) cachedPolicy(ctx context.Context, name string) (domain.LimitPolicy, error) {
	return l.policies.Get(ctx, name, func(ctx context.Context) (domain.LimitPolicy, error) { return l.Policy(ctx, name) })
}

func (l *Limiters) Policy(ctx context.Context, name string) (domain.LimitPolicy, error) {
	if err := domain.ValidateLimiterName(name); err != nil {
		return domain.LimitPolicy{}, err
	}
	fields, err := l.Rdb.HGetAll(ctx, l.Keys.LimiterPolicy(name)).Result()
	if err != nil {
		return domain.LimitPolicy{}, store.OpError("limiters.Limiters.Policy", err)
	}
	p, ok := builtins.decode(name, fields)
	if !ok {
		return domain.LimitPolicy{}, domain.Errorf(domain.ENOTFOUND, "there is no limiter policy %q: create it with PUT /api/v1/limiters/%s or on its page", name, name)
	}
	return p, nil
}

// builtinPolicies are the policies zpulse serves from code while their hash is missing:
// "default" (domain.DefaultPolicy), so a Redis that lost its data (a restart without
// persistence, a failover to an empty replica, FLUSHALL) still limits without a restart. A
// saved policy of the same name wins. (The sign-in limit needs no policy at all: it is
// domain.SignInAttempts, in code, with counters of its own; see Auth.)
type builtinPolicies map[string]domain.LimitPolicy

// builtins are the built-in policies: "default".
var builtins = builtinPolicies{domain.DefaultLimiter: domain.DefaultPolicy}

// BuiltinNames returns the names of the built-in policies, sorted.
func BuiltinNames() []string { return slices.Sorted(maps.Keys(builtins)) }

// decode reads a policy hash; a missing (or unreadable) hash is no policy, unless the
// policy is built in.
func (b builtinPolicies) decode(name string, f map[string]string) (domain.LimitPolicy, bool) {
	p := domain.LimitPolicy{Name: name, Algorithm: domain.Algorithm(f["algorithm"])}
	p.Limit, _ = strconv.ParseInt(f["limit"], 10, 64)
	p.WindowMs, _ = strconv.ParseInt(f["window_ms"], 10, 64)
	p.RatePerS, _ = strconv.ParseFloat(f["rate_per_s"], 64)
	p.Burst, _ = strconv.ParseInt(f["burst"], 10, 64)
	p.SharedWindowMs, _ = strconv.ParseInt(f["shared_window_ms"], 10, 64)
	seen, _ := strconv.ParseInt(f["seen_window_ms"], 10, 64)
	if len(f) == 0 || p.Validate() != nil {
		builtin, ok := b[name]
		return builtin, ok
	}
	p.SeenWindowMs = seen
	return p, true
}

func (l *Limiters) SetPolicy(ctx context.Context, p domain.LimitPolicy) (domain.LimitPolicy, error) {
	if p.Name == domain.SignInAttempts.Name {
		// A hash of that name would change nothing: the limit lives in code (domain.SignInAttempts).
		s := domain.SignInAttempts
		return domain.LimitPolicy{}, domain.Errorf(domain.ECONFLICT, "the policy %q is built in: the admin-token attempt limit (%d per %d s per address) is part of zpulse, so it cannot be changed",
			s.Name, s.Limit, s.WindowMs/1000)
	}
	if err := p.Validate(); err != nil {
		return domain.LimitPolicy{}, err
	}
	key := l.Keys.LimiterPolicy(p.Name)
	// One HSET of every field: readers never see half a policy. Not a MULTI with the index,
	// which lives in another Cluster slot (CROSSSLOT); SADD is idempotent, so a failure
	// between the two is mended by saving again.
	pipe := l.Rdb.Pipeline()
	pipe.HSet(ctx, key, "algorithm", string(p.Algorithm), "limit", p.Limit, "window_ms", p.WindowMs,
		"rate_per_s", strconv.FormatFloat(p.RatePerS, 'g', -1, 64), "burst", p.Burst, "shared_window_ms", p.SharedWindowMs)
	pipe.SAdd(ctx, l.Keys.LimiterIndex(), p.Name)
	if _, err := pipe.Exec(ctx); err != nil {
		return domain.LimitPolicy{}, store.OpWriteError("limiters.Limiters.SetPolicy", err)
	}
	l.policies.Put(p.Name, p)
	return p, nil
}

func (l *Limiters) DeletePolicy(ctx context.Context, name string) error {
	if domain.BuiltinLimiter(name) {
		return domain.Errorf(domain.ECONFLICT, "the policy %q is built in: zpulse needs it, so it cannot be deleted", name)
	}
	if err := domain.ValidateLimiterName(name); err != nil {
		return err
	}
	// The policy and its clients share a slot (one DEL); the index is elsewhere, and SREM is
	// idempotent, so a failure between the two is mended by deleting again.
	pipe := l.Rdb.Pipeline()
	del := pipe.Del(ctx, l.Keys.LimiterPolicy(name), l.Keys.LimiterClients(name))
	pipe.SRem(ctx, l.Keys.LimiterIndex(), name)
	if _, err := pipe.Exec(ctx); err != nil {
		return store.OpWriteError("limiters.Limiters.DeletePolicy", err)
	}
	l.policies.Forget(name)
	if del.Val() == 0 {
		return domain.Errorf(domain.ENOTFOUND, "there is no limiter policy %q to delete", name)
	}
	return nil
}

func (l *Limiters) Policies(ctx context.Context) ([]domain.LimitPolicy, error) {
	names, err := l.Rdb.SMembers(ctx, l.Keys.LimiterIndex()).Result()
	if err != nil && !store.IndexOfAnotherType(l.Rdb, l.Keys.LimiterIndex(), err) {
		return nil, store.OpError("limiters.Limiters.Policies", err)
	} else if err == nil {
		store.IndexReadOK(l.Rdb, l.Keys.LimiterIndex())
	}
	for name := range builtins {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	pipe := l.Rdb.Pipeline()
	cmds := make([]*redis.MapStringStringCmd, len(names))
	for i, n := range names {
		cmds[i] = pipe.HGetAll(ctx, l.Keys.LimiterPolicy(n))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, store.OpError("limiters.Limiters.Policies", err)
	}
	out := make([]domain.LimitPolicy, 0, len(names))
	for i, n := range names {
		if p, ok := builtins.decode(n, cmds[i].Val()); ok {
			out = append(out, p)
		}
	}
	return out, nil
}
