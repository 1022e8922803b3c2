package limiters

import (
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// The limiter scripts. Each decides for one client in one atomic script on one key, so
// concurrent requests from every instance are counted exactly, and each is valid on Redis
// Cluster.
//
// One clock. Every script takes the time from ARGV[1]: an epoch ms when a clock is injected
// (tests), or empty, and then the script reads Redis TIME itself, so instances whose own
// Clocks disagree still agree on every window. TIME is read once per script run and that one
// value is used throughout, so a script sees a single instant. (Redis 7 freezes the time it
// uses to expire keys for the length of a script, so a key cannot expire half-way through;
// the TIME command itself still advances inside a script on 7.0, which is why the scripts
// read it once.) Calling TIME before a write needs effects replication: the default since
// Redis 5 and the only mode in 7; redis.replicate_commands() asks for it on older servers
// and is a no-op on new ones. miniredis (the embedded Redis of `make run`) runs these
// scripts too: it answers TIME with the time zpulse keeps setting on it.
//
// Common arguments and answer:
//
//	KEYS[1]  the client's state; a key of another type is refused first (typeGuard)
//	ARGV[1]  now, epoch ms; empty: Redis TIME
//	ARGV[2]  "1" to count this request (Allow), "0" to only look (Peek): nothing is written
//	Returns  {allowed 0|1, remaining, retry_after_ms, reset_ms, now_ms}, whole numbers;
//	         remaining and retry_after_ms describe the next request, reset_ms is the time
//	         until the client has its whole quota again.
const limiterClock = store.LuaNow + `
local now = nowMs(ARGV[1])
local consume = ARGV[2] == '1'
`

// slidingLogScript is the articles' sliding-window log (section 5), unchanged in what it
// writes: ZREMRANGEBYSCORE of what left the window, ZCARD, then under the limit ZADD of the
// request at score now with a random UUID member (two requests in the same ms must not
// replace each other) and PEXPIRE of the window so idle clients vanish. A rejected request
// adds nothing. The articles' own service and zpulse therefore count the same requests on
// rate:<client>. zpulse adds the answer's numbers, read after the decision.
//
// Shared logs. A service with a longer window may keep its log on the same key: trimming to
// zpulse's window would delete requests the service still counts (it would admit more than
// its limit). So the script keeps what the longest window needs: it trims only entries older
// than ARGV[6] (the policy's KeepMs: its window, or the service's stated one), counts its own
// window with ZCOUNT, and never shortens the key's expiry. The expiry tells of writers with a
// longer window: a writer with window W set it to (its write time + W), so when the key's
// PTTL is longer than what zpulse keeps, such a writer exists, its window is at least
// PTTL + (now − the newest entry), and zpulse then trims nothing (the service trims to its
// own window at its next request) and reports that window.
//
// KEYS[1]  the client's log, a ZSET (rate:<client> for the policy "default")
// ARGV[3]  window ms
// ARGV[4]  limit
// ARGV[5]  member for this request: a random UUID
// ARGV[6]  keep ms: entries younger than this stay (≥ the window)
// Clock    ARGV[1] or Redis TIME (see above)
// Returns  the common answer, then the longest window seen of a writer with a longer one
//
//	than keep ms, 0 when none
var SlidingLogScript = store.NewScript(store.LuaTypeGuard("zset") + limiterClock + slidingLog)

// AdoptedSlidingLogScript is SlidingLogScript on another service's log (an adopted source's
// key): before anything is written it refuses, in the same atomic step, a sorted set that is
// not a sliding log, so a layout that names some other sorted set (a board, a queue) is never
// trimmed or given an expiry. A log's entries are requests: the member a UUID (the main
// article's) or the request's time itself (the second article's "score 和 member 都用时间戳"),
// the score the request's epoch ms (from 2001 on: above 10^12). The oldest and the newest
// entries are checked, two O(log n) reads.
//
// KEYS, ARGV, Returns as SlidingLogScript
// Refuses  a key of another type (typeGuard), and a sorted set whose oldest or newest entry
//
//	is not a request: "WRONGTYPE notalog <member>"
var AdoptedSlidingLogScript = store.NewScript(store.LuaTypeGuard("zset") + `
local function request(e)
  if not e[1] then return true end
  local at = tonumber(e[2])
  if not at or at < 1e12 or at >= 1e14 or at ~= math.floor(at) then return false end
  return string.match(e[1], '^%x%x%x%x%x%x%x%x%-%x%x%x%x%-%x%x%x%x%-%x%x%x%x%-%x%x%x%x%x%x%x%x%x%x%x%x$') ~= nil or tonumber(e[1]) == at
end
for _, e in ipairs({redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES'), redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')}) do
  if not request(e) then return redis.error_reply('WRONGTYPE notalog ' .. e[1]) end
end
` + limiterClock + slidingLog)

// slidingLog is the body of the sliding-log scripts, after their guards and clock.
const slidingLog = `
local key    = KEYS[1]
local window = tonumber(ARGV[3])
local limit  = tonumber(ARGV[4])
local keep   = math.max(tonumber(ARGV[6]) or window, window)
local allowed = 0
local count
-- '(' .. bound must print the whole number: Lua's own tostring keeps only 14 digits.
local after = string.format('(%.17g', now - window)
local ttl = redis.call('PTTL', key)
local seen = 0
if ttl > keep then
  local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  seen = ttl + (last[2] and math.max(now - tonumber(last[2]), 0) or 0)
end
if consume then
  if seen == 0 then redis.call('ZREMRANGEBYSCORE', key, 0, now - keep) end
  count = redis.call('ZCOUNT', key, after, '+inf')
  if count < limit then
    redis.call('ZADD', key, now, ARGV[5])
    if redis.call('PTTL', key) < keep then redis.call('PEXPIRE', key, keep) end
    count = count + 1
    allowed = 1
  end
else
  count = redis.call('ZCOUNT', key, after, '+inf')
end
local remaining = math.max(limit - count, 0)
local retry = 0
if remaining == 0 then
  -- the next request fits once the (count-limit+1)-th oldest request has left the window
  local e = redis.call('ZRANGEBYSCORE', key, after, '+inf', 'WITHSCORES', 'LIMIT', count - limit, 1)
  if e[2] then retry = math.max(tonumber(e[2]) + window - now, 0) end
end
local reset = 0
local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
if newest[2] then reset = math.max(tonumber(newest[2]) + window - now, 0) end
return {allowed, remaining, math.ceil(retry), math.ceil(reset), now, seen}
`

// raiseSeenWindowScript records, on a policy's hash, the longest window seen of another
// writer on its keys (LimitPolicy.SeenWindowMs): the field only grows.
//
// KEYS[1]  the policy's HASH
// ARGV[1]  a window seen, ms
// Returns  1 when it grew, else 0
var raiseSeenWindowScript = store.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local old = tonumber(redis.call('HGET', KEYS[1], 'seen_window_ms')) or 0
if tonumber(ARGV[1]) <= old then return 0 end
redis.call('HSET', KEYS[1], 'seen_window_ms', ARGV[1])
return 1
`)

// FixedWindowScript is the Chinese article's fixed window: a counter per window aligned on
// the epoch, INCR (HINCRBY) and PEXPIRE to the window's end in one script so a crash between
// the two cannot leave a counter that never expires. Better than the article's key per window
// (limit:api:user1001:<window start>): the window's start is only known inside the script when
// the time comes from Redis TIME, and a script must not build key names (Redis Cluster), so
// the start is kept in the hash beside the count and a new window resets it. A rejected
// request is not counted, so remaining stays true.
//
// KEYS[1]  rate:fw:<policy>:<client>, a HASH: w = window start epoch ms, n = admitted in it
// ARGV[3]  window ms
// ARGV[4]  limit
// Clock    ARGV[1] or Redis TIME (see above)
// Returns  the common answer (see above)
var FixedWindowScript = store.NewScript(store.LuaTypeGuard("hash") + limiterClock + `
local key    = KEYS[1]
local window = tonumber(ARGV[3])
local limit  = tonumber(ARGV[4])
local start  = now - (now % window)
local s = redis.call('HMGET', key, 'w', 'n')
local n = 0
if tonumber(s[1]) == start then n = tonumber(s[2]) or 0 end
local allowed = 0
if consume and n < limit then
  if tonumber(s[1]) ~= start then redis.call('HSET', key, 'w', start, 'n', 0) end
  n = redis.call('HINCRBY', key, 'n', 1)
  redis.call('PEXPIRE', key, start + window - now)
  allowed = 1
end
local remaining = math.max(limit - n, 0)
local retry, reset = 0, 0
if remaining == 0 then retry = start + window - now end
if n > 0 then reset = start + window - now end
return {allowed, remaining, retry, reset, now}
`)

// SlidingCounterScript is the sliding-window counter the French article recommends for high
// limits: two fixed windows, the previous one weighted by how much of it the sliding window
// still covers. Constant memory (three numbers) whatever the limit; the count is an estimate
// that assumes the previous window's requests were spread evenly. A request is admitted when
// the estimate plus itself stays within the limit; a rejected one is not counted.
//
// KEYS[1]  rate:swc:<policy>:<client>, a HASH: w = current window start epoch ms,
//
//	c = admitted in it, p = admitted in the window before
//
// ARGV[3]  window ms
// ARGV[4]  limit
// Clock    ARGV[1] or Redis TIME (see above)
// Returns  the common answer (see above)
var SlidingCounterScript = store.NewScript(store.LuaTypeGuard("hash") + limiterClock + `
local key    = KEYS[1]
local window = tonumber(ARGV[3])
local limit  = tonumber(ARGV[4])
local start  = now - (now % window)
local s = redis.call('HMGET', key, 'w', 'c', 'p')
local w, c, p = tonumber(s[1]), tonumber(s[2]) or 0, tonumber(s[3]) or 0
if w ~= start then
  if w == start - window then p = c else p = 0 end
  c = 0
end
local weight = (window - (now - start)) / window
local allowed = 0
if consume and p * weight + c + 1 <= limit then
  c = c + 1
  redis.call('HSET', key, 'w', start, 'c', c, 'p', p)
  redis.call('PEXPIRE', key, start + 2 * window - now)
  allowed = 1
end
local remaining = math.max(math.floor(limit - (p * weight + c) + 1e-9), 0)
local retry = 0
if remaining == 0 then
  local at
  if c + 1 <= limit then
    -- later in this window the previous window weighs little enough
    at = start + window * (1 - (limit - c - 1) / p)
  else
    -- in the next window this one becomes the previous
    at = start + window + window * (1 - (limit - 1) / c)
  end
  retry = math.max(math.ceil(at - now), 0)
end
local reset = 0
if c > 0 then reset = start + 2 * window - now elseif p > 0 then reset = start + window - now end
return {allowed, remaining, retry, reset, now}
`)

// TokenBucketScript is the Chinese article's token bucket: a hash with the tokens and the
// time of the last refill, refilled lazily from the time that passed (tokens = min(burst,
// tokens + elapsed*rate)); a request takes one token or is rejected. The hash expires once the
// bucket would be full again, since a missing bucket is a full one. Tokens are fractional and
// stored as the decimal string Redis writes for a Lua number; they never leave the script as
// a number (Redis would truncate them), only as the whole numbers of the answer.
//
// KEYS[1]  rate:tb:<policy>:<client>, a HASH: tokens, ts = last refill epoch ms
// ARGV[3]  rate, tokens per ms (a decimal string)
// ARGV[4]  burst (capacity)
// Clock    ARGV[1] or Redis TIME (see above)
// Returns  the common answer (see above)
var TokenBucketScript = store.NewScript(store.LuaTypeGuard("hash") + limiterClock + `
local key   = KEYS[1]
local rate  = tonumber(ARGV[3])
local burst = tonumber(ARGV[4])
local s = redis.call('HMGET', key, 'tokens', 'ts')
local tokens, ts = tonumber(s[1]), tonumber(s[2])
if not tokens or not ts then tokens, ts = burst, now end
if now > ts then
  tokens = math.min(burst, tokens + (now - ts) * rate)
  ts = now
end
-- 1e-9 absorbs the rounding of (now - ts) * rate, e.g. 10 ms at 0.1 token/ms
local allowed = 0
if consume and tokens >= 1 - 1e-9 then
  tokens = math.max(tokens - 1, 0)
  redis.call('HSET', key, 'tokens', tokens, 'ts', ts)
  redis.call('PEXPIRE', key, math.ceil((burst - tokens) / rate) + 1)
  allowed = 1
end
local remaining = math.floor(tokens + 1e-9)
local retry = 0
if remaining < 1 then retry = math.ceil((1 - tokens) / rate - 1e-9) end
return {allowed, remaining, math.max(retry, 0), math.max(math.ceil((burst - tokens) / rate - 1e-9), 0), now}
`)
