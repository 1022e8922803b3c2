package sources

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/boards"
	"github.com/zpulse/zpulse/internal/redisrepo/limiters"
	"github.com/zpulse/zpulse/internal/redisrepo/queues"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// Sources is the Redis implementation of domain.SourceService: adopted key layouts, saved in
// one HASH (Keys.Sources) so every instance shows the same, their limiter and lock keys
// Found by the Discovery's sweeps on every master.
type Sources struct {
	rdb    redis.UniversalClient
	keys   store.Keys
	clock  domain.Clock // Local decisions: the current period and window
	script domain.Clock // the limiter scripts' clock; nil: Redis TIME
	found  *store.Discovery
	cache  *store.TTLCache[[]domain.Source]
}

var _ domain.SourceService = (*Sources)(nil)

// sourcesTTL is how long an instance uses the list of sources it read.
const sourcesTTL = time.Second

func NewSources(rdb redis.UniversalClient, keys store.Keys, found *store.Discovery, c store.Clocks) *Sources {
	return &Sources{rdb: rdb, keys: keys, clock: c.Local(), script: c.Script, found: found, cache: store.NewTTLCache[[]domain.Source](sourcesTTL, c.Local())}
}

func (s *Sources) Sources(ctx context.Context) ([]domain.Source, error) {
	return s.cache.Get(ctx, "", func(ctx context.Context) ([]domain.Source, error) {
		h, err := s.rdb.HGetAll(ctx, s.keys.Sources()).Result()
		if err != nil && !store.IndexOfAnotherType(s.rdb, s.keys.Sources(), err) {
			return nil, store.OpError("sources.Sources.Sources", err)
		} else if err == nil {
			store.IndexReadOK(s.rdb, s.keys.Sources())
		}
		out := make([]domain.Source, 0, len(h))
		for _, v := range h {
			if src, ok := store.DecodeSource(v, s.keys.Families()); ok {
				out = append(out, src)
			}
		}
		slices.SortFunc(out, func(a, b domain.Source) int { return cmp.Compare(a.Name, b.Name) })
		return out, nil
	})
}

func (s *Sources) Source(ctx context.Context, name string) (domain.Source, error) {
	if err := domain.ValidateName("source", name); err != nil {
		return domain.Source{}, err
	}
	all, err := s.Sources(ctx)
	if err != nil {
		return domain.Source{}, err
	}
	for _, src := range all {
		if src.Name == name {
			return src, nil
		}
	}
	return domain.Source{}, domain.Errorf(domain.ENOTFOUND, "there is no adopted source %q: add it on /sources or with PUT /api/v1/sources/%s", name, name)
}

func (s *Sources) DeleteSource(ctx context.Context, name string) error {
	if err := domain.ValidateName("source", name); err != nil {
		return err
	}
	n, err := s.rdb.HDel(ctx, s.keys.Sources(), name).Result()
	if err != nil {
		return store.OpWriteError("sources.Sources.DeleteSource", err)
	}
	s.cache.Forget("")
	if n == 0 {
		return domain.Errorf(domain.ENOTFOUND, "there is no adopted source %q", name)
	}
	return nil
}

func (s *Sources) SourceView(ctx context.Context, name string) (domain.SourceView, error) {
	src, err := s.Source(ctx, name)
	if err != nil {
		return domain.SourceView{}, err
	}
	if err := s.found.Warm(ctx); err != nil {
		return domain.SourceView{}, err
	}
	pipe := s.rdb.Pipeline()
	read := PlanSourceView(ctx, pipe, s.keys, s.found, src, s.clock.Now())
	// The keys under a limiter's or a lock's pattern are whatever the service put there: one
	// of another type is left out (a lock: shown without its value), not the whole view.
	if err := store.Exec(ctx, s.rdb, pipe); err != nil && !(redis.HasErrorPrefix(err, "WRONGTYPE") && src.ScanPattern() != "") {
		return domain.SourceView{}, store.OpError("sources.Sources.SourceView", err)
	}
	return read(), nil
}

func (s *Sources) SourceViews(ctx context.Context, kinds ...domain.SourceKind) ([]domain.SourceView, error) {
	all, err := s.Sources(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.found.Warm(ctx); err != nil {
		return nil, err
	}
	pipe := s.rdb.Pipeline()
	now := s.clock.Now()
	var reads []func() domain.SourceView
	for _, src := range all {
		if len(kinds) == 0 || slices.Contains(kinds, src.Kind) {
			reads = append(reads, PlanSourceView(ctx, pipe, s.keys, s.found, src, now))
		}
	}
	if len(reads) == 0 {
		return nil, nil
	}
	// Only an unreachable Redis fails the lists: a key of another type under one source's
	// layout leaves that source's reads empty, as on the live path.
	if err := store.OpError("sources.Sources.SourceViews", store.Exec(ctx, s.rdb, pipe)); domain.ErrorCode(err) == domain.EUNAVAILABLE || ctx.Err() != nil {
		return nil, err
	}
	views := make([]domain.SourceView, len(reads))
	for i, read := range reads {
		views[i] = read()
	}
	return views, nil
}

// PlanSourceView adds a source's reads to pipe (no round trip of its own: the watcher rides
// it on its one pipeline) and returns the decoder. Limiter and lock keys are those the last
// discovery found.
func PlanSourceView(ctx context.Context, pipe redis.Pipeliner, keys store.Keys, found *store.Discovery, src domain.Source, now time.Time) func() domain.SourceView {
	v := domain.SourceView{Source: src}
	switch src.Kind {
	case domain.SourceBoard:
		v.Key = keys.SourceBoard(src, now)
		rng := boards.RangeOf(ctx, pipe, v.Key, src.Order(), 0, domain.SourceShown-1)
		card := pipe.ZCard(ctx, v.Key)
		return func() domain.SourceView {
			v.Count = card.Val()
			for i, z := range rng.Val() {
				m, _ := z.Member.(string)
				v.Entries = append(v.Entries, domain.NewEntry(src.Scores(), int64(i+1), m, z.Score))
			}
			return v
		}
	case domain.SourceQueue:
		v.Key = src.Key
		rng := pipe.ZRangeWithScores(ctx, v.Key, 0, domain.SourceShown-1)
		card := pipe.ZCard(ctx, v.Key)
		return func() domain.SourceView {
			v.Count, v.Jobs = card.Val(), queues.DecodeJobs(rng.Val(), src.Encoding == domain.SourceRunAt)
			return v
		}
	case domain.SourceLimiter:
		type read struct {
			client, key string
			n           *redis.IntCmd
			s           *redis.StringCmd
			h           *redis.SliceCmd
		}
		var reads []read
		for _, key := range found.AdoptedKeys(src.ScanPattern()) {
			client, ws, ok := src.ParseClientKey(key)
			if !ok {
				continue
			}
			r := read{client: client, key: key}
			if src.Encoding == domain.SourceFixedWindow {
				if ws != src.WindowStart(now) {
					continue // a past window's counter, expiring
				}
				r.s = pipe.Get(ctx, key)
			} else if src.Encoding == domain.SourceTokenBucket {
				r.h = pipe.HMGet(ctx, key, src.TokensField, src.TimeField)
			} else {
				r.n = pipe.ZCount(ctx, key, fmt.Sprintf("(%d", now.UnixMilli()-src.WindowMs), "+inf")
			}
			reads = append(reads, r)
		}
		return func() domain.SourceView {
			for _, r := range reads {
				c := domain.SourceClient{Client: r.client, Key: r.key}
				switch {
				case r.s != nil:
					c.Count, _ = strconv.ParseInt(r.s.Val(), 10, 64)
				case r.h != nil:
					if r.h.Err() != nil {
						continue // another type under the pattern: not a bucket
					}
					f := r.h.Val()
					c.Count = int64(src.BucketTokens(fmt.Sprint(f[0]), fmt.Sprint(f[1]), now) + 1e-9)
				default:
					c.Count = r.n.Val()
				}
				if c.Count > 0 || r.h != nil {
					v.Clients = append(v.Clients, c)
				}
			}
			slices.SortFunc(v.Clients, func(a, b domain.SourceClient) int { // busiest first (a bucket: emptiest)
				if r := cmp.Compare(b.Count, a.Count); r != 0 && src.Encoding == domain.SourceTokenBucket {
					return -r
				}
				return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Client, b.Client))
			})
			v.Count = int64(len(v.Clients))
			if len(v.Clients) > domain.SourceShown {
				v.Clients = v.Clients[:domain.SourceShown]
			}
			return v
		}
	case domain.SourceLock:
		keysFound := found.AdoptedKeys(src.ScanPattern())
		if len(keysFound) > domain.SourceShown {
			keysFound = keysFound[:domain.SourceShown]
		}
		gets := make([]*redis.StringCmd, len(keysFound))
		ttls := make([]*redis.DurationCmd, len(keysFound))
		for i, key := range keysFound {
			gets[i] = pipe.Get(ctx, key) // WRONGTYPE for a Redisson hash: shown without a value
			ttls[i] = pipe.PTTL(ctx, key)
		}
		return func() domain.SourceView {
			for i, key := range keysFound {
				if ttls[i].Val() == -2*time.Nanosecond || errors.Is(ttls[i].Err(), redis.Nil) {
					continue // released since the discovery found it
				}
				ttl := ttls[i].Val().Milliseconds()
				if ttls[i].Val() < 0 {
					ttl = -1
				}
				v.Locks = append(v.Locks, domain.SourceHeld{Key: key, Value: gets[i].Val(), TTLMs: ttl})
			}
			v.Count = int64(len(v.Locks))
			return v
		}
	}
	return func() domain.SourceView { return v }
}

// fixedWindowIncrScript is the second article's fixed window, INCR and EXPIRE in one script
// as it recommends ("应合并进 Lua 脚本执行"): the counter of the client's current window grows
// by one, and its first request sets its expiry to the window.
//
// KEYS[1]  the client's counter for this window (the service's layout), a STRING
// Refuses  a key of another type, before writing (typeGuard); a string that is not a count
// Refuses  ("WRONGTYPE notacounter <value>"): another thing's, left as it is
// ARGV[1]  window, seconds
// Returns  the count after this request
var fixedWindowIncrScript = store.NewScript(store.LuaTypeGuard("string") + `
local v = redis.call('GET', KEYS[1])
if v and (not string.match(v, '^%d+$') or #v > 18) then
  return redis.error_reply('WRONGTYPE notacounter ' .. string.sub(v, 1, 40))
end
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n
`)

func (s *Sources) TrySource(ctx context.Context, name, client string) (domain.LimitResult, error) {
	src, err := s.Source(ctx, name)
	if err != nil {
		return domain.LimitResult{}, err
	}
	if src.Kind != domain.SourceLimiter {
		return domain.LimitResult{}, domain.Errorf(domain.EINVALID, "source %q is a %s: only limiters can be tried", name, src.Kind)
	}
	now := s.clock.Now()
	if err := src.ValidateClient(client, now); err != nil {
		return domain.LimitResult{}, err
	}
	key := s.keys.SourceClient(src, client, now)
	if src.Encoding == domain.SourceTokenBucket {
		return s.tryBucket(ctx, src, key)
	}
	policy := domain.LimitPolicy{Name: name, Algorithm: domain.SlidingLog, Limit: src.Limit, WindowMs: src.WindowMs}
	if src.Encoding == domain.SourceFixedWindow {
		policy.Algorithm = domain.FixedWindow
		n, err := fixedWindowIncrScript.Run(ctx, s.rdb, []string{key}, src.WindowMs/1000).Int64()
		if value, ok := strings.CutPrefix(fmt.Sprint(err), "WRONGTYPE notacounter "); ok {
			return domain.LimitResult{}, fmt.Errorf("sources.Sources.TrySource: %w", domain.Errorf(domain.CodeWrongType,
				"the key %q is a string but not a fixed window's counter: it holds %q, not a count, so it is another thing's and zpulse left it as it was; nothing was counted", key, value))
		}
		if err != nil {
			return domain.LimitResult{}, store.ScriptWriteError("sources.Sources.TrySource", key, err)
		}
		end := (src.WindowStart(now) * 1000) + src.WindowMs
		res := domain.LimitResult{Allowed: n <= src.Limit, Limit: src.Limit, Remaining: max(src.Limit-n, 0),
			ResetMs: max(end-now.UnixMilli(), 0), AtMs: now.UnixMilli(), Policy: policy}
		if !res.Allowed {
			res.RetryAfterMs = res.ResetMs
		}
		return res, nil
	}
	at := ""
	if s.script != nil {
		at = strconv.FormatInt(s.script.Now().UnixMilli(), 10)
	}
	vals, err := limiters.AdoptedSlidingLogScript.Run(ctx, s.rdb, []string{key}, at, "1", src.WindowMs, src.Limit, limiters.NewUUID(), src.WindowMs).Int64Slice()
	if member, ok := strings.CutPrefix(fmt.Sprint(err), "WRONGTYPE notalog "); ok {
		return domain.LimitResult{}, fmt.Errorf("sources.Sources.TrySource: %w", domain.Errorf(domain.CodeWrongType,
			"the key %q is a sorted set but not a sliding log: its entry %q is not a request (a UUID, or the request's epoch ms, at a score of epoch ms), so it is another thing's and zpulse left it as it was; nothing was counted", key, member))
	}
	if err != nil {
		return domain.LimitResult{}, store.ScriptWriteError("sources.Sources.TrySource", key, err)
	}
	if len(vals) < 5 {
		return domain.LimitResult{}, fmt.Errorf("sources.Sources.TrySource: unexpected reply %v", vals)
	}
	return domain.LimitResult{Allowed: vals[0] == 1, Limit: src.Limit, Remaining: vals[1], RetryAfterMs: vals[2],
		ResetMs: vals[3], AtMs: vals[4], Policy: policy}, nil
}
