package compat

import (
	"cmp"
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// DailyRank is the second article's leaderboard (scene 1): one key per day,
// game:rank:<yyyymmdd>, with the tie-break score points × 10^10 + (max_ts − ts).
type DailyRank struct {
	RDB    redis.UniversalClient
	Prefix string // "game:rank:", or hash-tagged as the article advises for a Cluster: "{game}:rank:"
	// Zone is the time zone the service dates its days in (nil: UTC); MaxTS its max_ts (0:
	// MaxTS): the article fixes neither.
	Zone  *time.Location
	MaxTS int64
}

// MaxTS is the max_ts of the article's encoding as zpulse reads it: the largest ten-digit
// number of seconds, so max_ts − ts fits the low ten digits.
const MaxTS = 9_999_999_999

// Key is the day's key: game:rank:20260725.
func (d DailyRank) Key(day time.Time) string {
	zone := d.Zone
	if zone == nil {
		zone = time.UTC
	}
	return d.Prefix + day.In(zone).Format("20060102")
}

// SetTieBreak is the article's "score = 真实分数 * 10^10 + (最大时间戳 - 当前时间戳)" with ZADD.
func (d DailyRank) SetTieBreak(ctx context.Context, day time.Time, member string, points int64, at time.Time) error {
	maxTS := int64(MaxTS)
	if d.MaxTS != 0 {
		maxTS = d.MaxTS
	}
	score := float64(points*10_000_000_000 + (maxTS - at.Unix()))
	return d.RDB.ZAdd(ctx, d.Key(day), redis.Z{Score: score, Member: member}).Err()
}

// MyRank is the article's "我的排名与分数(一次 pipeline 减少 RTT)": ZREVRANK and ZSCORE in one
// pipeline, the rank shown 1-based (-1 when absent).
func (d DailyRank) MyRank(ctx context.Context, day time.Time, member string) (int64, float64, error) {
	pipe := d.RDB.Pipeline()
	rank := pipe.ZRevRank(ctx, d.Key(day), member)
	score := pipe.ZScore(ctx, d.Key(day), member)
	if _, err := pipe.Exec(ctx); errors.Is(err, redis.Nil) {
		return -1, 0, nil
	} else if err != nil {
		return 0, 0, err
	}
	return rank.Val() + 1, score.Val(), nil
}

// E10Points reads an encoded score back: the high digits, in integer arithmetic.
func E10Points(score float64) int64 {
	n := int64(score)
	p := n / 10_000_000_000
	if n%10_000_000_000 < 0 {
		p--
	}
	return p
}

// fixedWindowLua is the article's fixed window, INCR and EXPIRE merged in Lua as it says.
var fixedWindowLua = redis.NewScript(`
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n
`)

// FixedWindow is the article's scene 2, scheme 1: limit:api:<client>:<window start seconds>.
type FixedWindow struct {
	RDB    redis.UniversalClient
	Limit  int64
	Window time.Duration
}

// Key is the client's counter for the window holding now.
func (f FixedWindow) Key(client string, now time.Time) string {
	w := int64(f.Window / time.Second)
	return "limit:api:" + client + ":" + strconv.FormatInt(now.Unix()/w*w, 10)
}

// Allow counts a request and says whether it is within the limit.
func (f FixedWindow) Allow(ctx context.Context, client string, now time.Time) (bool, error) {
	n, err := fixedWindowLua.Run(ctx, f.RDB, []string{f.Key(client, now)}, int64(f.Window/time.Second)).Int64()
	return n <= f.Limit, err
}

// tokenBucketLua is the article's scene 2, scheme 3, from its pseudo-code: lazy refill of
// (now − lastRefill) × rate, tokens = min(capacity, tokens + refill), take one if ≥ 1. The
// article leaves the hash's field names open; a service sharing zpulse's bucket uses zpulse's
// (tokens, ts in ms).
var tokenBucketLua = redis.NewScript(`
local s = redis.call('HMGET', KEYS[1], ARGV[4], ARGV[5])
local now, rate, capacity = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local tokens, last = tonumber(s[1]) or capacity, tonumber(s[2]) or now
tokens = math.min(capacity, tokens + math.max(now - last, 0) * rate)
if tokens >= 1 then
  redis.call('HSET', KEYS[1], ARGV[4], tokens - 1, ARGV[5], now)
  return 1
end
redis.call('HSET', KEYS[1], ARGV[4], tokens, ARGV[5], now)
return 0
`)

// TokenBucket is the article's token bucket on a key of the caller's choice, its hash holding
// "当前令牌数" and "上次填充时间" in fields the service names (zpulse's own: tokens, ts in ms).
type TokenBucket struct {
	RDB       redis.UniversalClient
	Key       string
	RatePerMs float64
	Capacity  int64
	// TokensField and TimeField name the fields ("" : tokens, ts); Seconds keeps the time in
	// whole seconds rather than ms.
	TokensField, TimeField string
	Seconds                bool
}

// Allow takes a token at now.
func (b TokenBucket) Allow(ctx context.Context, now time.Time) (bool, error) {
	tokens, ts, at, rate := cmp.Or(b.TokensField, "tokens"), cmp.Or(b.TimeField, "ts"), now.UnixMilli(), b.RatePerMs
	if b.Seconds {
		at, rate = now.Unix(), rate*1000
	}
	n, err := tokenBucketLua.Run(ctx, b.RDB, []string{b.Key}, at, rate, b.Capacity, tokens, ts).Int64()
	return n == 1, err
}

// unlockLua is the article's release: compare the token, then DEL, atomically.
var unlockLua = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
else
  return 0
end
`)

// Lock is the article's scene 3: SET key token NX EX ttl; compare-and-delete release.
type Lock struct {
	RDB redis.UniversalClient
}

// TryLock is SET key token NX EX ttl.
func (l Lock) TryLock(ctx context.Context, key, token string, ttl time.Duration) (bool, error) {
	err := l.RDB.SetArgs(ctx, key, token, redis.SetArgs{Mode: "NX", TTL: ttl}).Err()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	return err == nil, err
}

// Unlock runs the compare-and-delete script; true when it deleted the lock.
func (l Lock) Unlock(ctx context.Context, key, token string) (bool, error) {
	n, err := unlockLua.Run(ctx, l.RDB, []string{key}, token).Int64()
	return n == 1, err
}
