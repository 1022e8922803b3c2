package sources

import (
	"context"
	"fmt"
	"strconv"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// tokenBucketTryScript is the second article's token bucket (scene 2, scheme 3) on the
// service's own hash and field names: the tokens and the last refill's time, in the
// service's unit, refilled lazily by the time that passed (tokens = min(capacity, tokens +
// elapsed × rate)), one taken when there is one. A missing bucket (or field) is a full one.
// Only an admitted request writes, both fields, as the article's script does; the key's
// expiry is the service's and left alone.
//
// KEYS[1]  the client's bucket (the service's layout), a HASH
// Refuses  a key of another type, before writing (LuaTypeGuard)
// ARGV[1]  now, epoch ms ("" for Redis TIME: store.LuaNow)
// ARGV[2]  the tokens field; ARGV[3] the time field
// ARGV[4]  ms per unit of the time field: 1 (ms) or 1000 (whole seconds)
// ARGV[5]  rate, tokens per ms (a decimal string); ARGV[6] capacity
// Returns  {allowed 1/0, whole tokens left, retry after ms, ms until full, now ms}
var tokenBucketTryScript = store.NewScript(store.LuaTypeGuard("hash") + store.LuaNow + `
local nowms = nowMs(ARGV[1])
local unit, rate, cap = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local now = math.floor(nowms / unit)
local s = redis.call('HMGET', KEYS[1], ARGV[2], ARGV[3])
local tokens, last = tonumber(s[1]), tonumber(s[2])
if not tokens or not last then tokens, last = cap, now end
if now > last then
  tokens = math.min(cap, tokens + (now - last) * unit * rate)
  last = now
end
local allowed = 0
if tokens >= 1 - 1e-9 then
  tokens = math.max(tokens - 1, 0)
  redis.call('HSET', KEYS[1], ARGV[2], tokens, ARGV[3], last)
  allowed = 1
end
local retry = 0
if allowed == 0 then retry = math.ceil((1 - tokens) / rate - 1e-9) end
return {allowed, math.floor(tokens + 1e-9), math.max(retry, 0), math.max(math.ceil((cap - tokens) / rate - 1e-9), 0), nowms}
`)

// tryBucket takes a token from an adopted bucket for the client's key.
func (s *Sources) tryBucket(ctx context.Context, src domain.Source, key string) (domain.LimitResult, error) {
	at := ""
	if s.script != nil {
		at = strconv.FormatInt(s.script.Now().UnixMilli(), 10)
	}
	vals, err := tokenBucketTryScript.Run(ctx, s.rdb, []string{key}, at, src.TokensField, src.TimeField,
		src.UnitMs(), strconv.FormatFloat(src.RatePerS/1000, 'g', -1, 64), src.Limit).Int64Slice()
	if err != nil {
		return domain.LimitResult{}, store.ScriptWriteError("sources.Sources.tryBucket", key, err)
	}
	if len(vals) < 5 {
		return domain.LimitResult{}, fmt.Errorf("sources.Sources.tryBucket: unexpected reply %v", vals)
	}
	policy := domain.LimitPolicy{Name: src.Name, Algorithm: domain.TokenBucket, RatePerS: src.RatePerS, Burst: src.Limit}
	return domain.LimitResult{Allowed: vals[0] == 1, Limit: src.Limit, Remaining: vals[1], RetryAfterMs: vals[2],
		ResetMs: vals[3], AtMs: vals[4], Policy: policy}, nil
}
