package compat

import "github.com/redis/go-redis/v9"

// SlidingWindow is the main article's SlidingWindowRateLimiter script (section 5), as
// written: KEYS[1] the client's log (rate:<customerId>), ARGV now ms, window ms, limit and a
// unique member. Returns 1 when the request is admitted (and logged), 0 when the window is
// full. It is here, not in a test file, so that zpulse's limiter tests run the same script as
// the compatibility suite.
var SlidingWindow = redis.NewScript(`
local key    = KEYS[1]
local now    = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit  = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', key, 0, now - window)
if redis.call('ZCARD', key) < limit then
    redis.call('ZADD', key, now, ARGV[4])
    redis.call('PEXPIRE', key, window)
    return 1
end
return 0
`)
