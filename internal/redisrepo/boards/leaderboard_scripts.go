package boards

import (
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// The leaderboard's Lua scripts. Each touches one key, so each is valid on Redis Cluster; an
// Add that updates several boards (all-time, daily, weekly, monthly) runs the add script once
// per board in one pipelined round trip. The time of a tie-break score is Redis TIME, read
// once inside the script (or an injected clock's ms, in tests), so every instance and every
// service written from the articles stamps one clock.

// luaAddOne defines addOne(key, player, n, max, enc, mode, stamp), one player's add (or set)
// on one board as setScript and addBatchScript make it: unless the result would leave the
// board's exact range, and on a tie-break board with the score re-encoded with the time of
// this write (see domain.TieBreak and its Encode, which this mirrors expression for
// expression), so the time is that of reaching the new total; ZINCRBY cannot do that, as the
// article warns, because it would add the time parts up too.
// Returns {1, new score (string)}, {0, current score (string)} when refused for the range
// (nothing written), or {-1, now ms} when now is outside the encoding's times (nothing written).
const luaAddOne = store.LuaNow + `
local function addOne(key, player, nstr, max, enc, mode, stamp)
  local n = tonumber(nstr)
  local function pointsOf(s)
    if enc == 'first_reached_e10' then
      -- floor(s / 1e10) in doubles can round up by one next to a multiple of 1e10: correct it
      -- with exact integer products (all below 2^53).
      local p = math.floor(s / 1e10)
      if p * 1e10 > s then p = p - 1 elseif (p + 1) * 1e10 <= s then p = p + 1 end
      return p
    end
    return math.floor(s)
  end
  local current = redis.call('ZSCORE', key, player)
  local points = n
  if mode == 'add' then
    points = (current and pointsOf(tonumber(current)) or 0) + n
  end
  if points > max or points < -max then
    return {0, current or '0'}
  end
  if enc == 'none' then
    if mode == 'add' then
      return {1, redis.call('ZINCRBY', key, nstr, player)}
    end
    redis.call('ZADD', key, nstr, player)
    return {1, nstr}
  end
  local now = nowMs(stamp)
  local score
  if enc == 'first_reached' then -- the main article: points + (1.0 - ms / 1e13)
    if now < 1e12 or now >= 1e13 then return {-1, now} end
    score = points + (1.0 - now / 1e13)
  elseif enc == 'first_reached_e10' then -- the second article: points * 10^10 + (max_ts - ts)
    local ts = math.floor(now / 1000)
    if ts > 9999999999 then return {-1, now} end
    score = points * 1e10 + (9999999999 - ts)
  else -- first_reached_wide: points + (2^30 - 1 - s) / 2^30, s seconds since 2025
    local slots = 1073741824
    local s = math.floor(now / 1000) - 1735689600
    if s < 0 or s >= slots then return {-1, now} end
    score = points + (slots - 1 - s) / slots
  end
  score = string.format('%.17g', score)
  redis.call('ZADD', key, score, player)
  return {1, score}
end

-- expireAt gives a period board its expiry when it differs (PEXPIRETIME; always where Redis
-- lacks it): a steady board writes no expiry per add, a changed retention still applies.
local function expireAt(key, at)
  if at == '' then return end
  local cur = redis.pcall('PEXPIRETIME', key)
  if type(cur) ~= 'number' or cur ~= tonumber(at) then
    redis.call('PEXPIREAT', key, at)
  end
end
`

// setScript sets a player's points on the all-time board (addOne's "set"), and returns the
// new score with the player's rank, so the answer describes the state right after this write
// even under concurrent writers. Adds go through addBatchScript, a batch of one or more.
//
// KEYS[1]  the all-time board's ZSET
// ARGV[1]  player id
// ARGV[2]  the new points
// ARGV[3]  the largest allowed |points| on this board
// ARGV[4]  the board's encoding: a domain.TieBreak value
// ARGV[5]  now, epoch ms; "" reads Redis TIME (only tie-break boards need it)
// KEYS[2], ARGV[6], ARGV[7]: the score history, its actor and cap (luaScoreHistory), or none
// Returns  {1, new score (string), 0-based rank from the top}
//
//	{-1, now ms} when now is outside the encoding's range of times; nothing is written.
var setScript = store.NewScript(store.LuaSortedSetGuard + luaAddOne + luaScoreHistory + `
local r = addOne(KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], 'set', ARGV[5])
if r[1] ~= 1 then return r end
recordScore(ARGV[1], ARGV[2], r[2], ARGV[4], 'set', ARGV[5])
return {1, r[2], redis.call('ZREVRANK', KEYS[1], ARGV[1])}
`)

// addBatchScript adds points for one or more players on one board in one call: each
// player's add is addOne (a refused one changes nothing and the others go on), so a batch
// costs one script's overhead rather than one per player. Ranks are read once every add of
// the call is made.
//
// KEYS[1]  the board's ZSET (all-time or one period)
// ARGV[1]  the largest allowed |points| on this board
// ARGV[2]  the board's encoding: a domain.TieBreak value
// ARGV[3]  PEXPIREAT for the key in epoch ms (period boards), "" for none (set when it differs)
// ARGV[4]  now, epoch ms; "" reads Redis TIME
// ARGV[5…] player id, points to add, player id, points to add, …
// KEYS[2] and the last two ARGV: the score history, its actor and cap (luaScoreHistory), given
// for the all-time board only
// Returns  {code, score or now, rank, …} per player: addOne's code and value, and the 0-based
// rank from the top (-1 when refused)
var addBatchScript = store.NewScript(store.LuaSortedSetGuard + luaAddOne + luaScoreHistory + `
local max, out = tonumber(ARGV[1]), {}
for i = 5, #ARGV, 2 do
  local r = addOne(KEYS[1], ARGV[i], ARGV[i + 1], max, ARGV[2], 'add', ARGV[4])
  if r[1] == 1 then recordScore(ARGV[i], ARGV[i + 1], r[2], ARGV[2], 'add', ARGV[4]) end
  out[#out + 1], out[#out + 2], out[#out + 3] = r[1], r[2], -1
end
for j = 1, #out, 3 do
  if out[j] == 1 then out[j + 2] = redis.call('ZREVRANK', KEYS[1], ARGV[5 + (j - 1) / 3 * 2]) end
end
expireAt(KEYS[1], ARGV[3])
return out
`)

// aroundScript returns the players around one, as ZREVRANGE orders them, in one atomic read.
//
// KEYS[1]  the board's ZSET
// ARGV[1]  player id
// ARGV[2]  how many above and below
// Returns  {0-based rank of the first entry, {member, score, member, score, ...}}, or false
// when the player is not on the board.
var aroundScript = store.NewScript(store.LuaSortedSetGuard + `
local rank = redis.call('ZREVRANK', KEYS[1], ARGV[1])
if not rank then return false end
local n = tonumber(ARGV[2])
local first = math.max(0, rank - n)
return {first, redis.call('ZREVRANGE', KEYS[1], first, rank + n, 'WITHSCORES')}
`)

// pageScript returns the page of a board that follows a cursor, in ZREVRANGE order: scores
// descending, equal scores by member descending. The cursor is the last entry of the previous
// page (its score and member), not an offset, so the page starts right after that entry even
// when other scores changed: while the entry keeps its score, at its current rank; otherwise at
// the place (score, member) would have, found by a binary search among the equal scores
// (members compared byte by byte, as Redis orders them, whatever the server's locale).
//
// KEYS[1]  the board's ZSET
// ARGV[1]  the cursor's score ("" for the first page)
// ARGV[2]  the cursor's member
// ARGV[3]  page size
// Returns  {0-based rank of the first entry, {member, score, ...}}
var pageScript = store.NewScript(store.LuaSortedSetGuard + `
local key, limit = KEYS[1], tonumber(ARGV[3])
local start = 0
if ARGV[1] ~= '' then
  local score, member = tonumber(ARGV[1]), ARGV[2]
  local current = redis.call('ZSCORE', key, member)
  if current and tonumber(current) == score then
    start = redis.call('ZREVRANK', key, member) + 1
  else
    local function before(a, b) -- a sorts before b in ZREVRANGE among equal scores: a > b bytewise
      local la, lb = #a, #b
      for i = 1, math.min(la, lb) do
        local x, y = string.byte(a, i), string.byte(b, i)
        if x ~= y then return x > y end
      end
      return la > lb
    end
    local lo = redis.call('ZCOUNT', key, '(' .. ARGV[1], '+inf')
    local hi = lo + redis.call('ZCOUNT', key, ARGV[1], ARGV[1])
    while lo < hi do
      local mid = math.floor((lo + hi) / 2)
      if before(redis.call('ZREVRANGE', key, mid, mid)[1], member) then lo = mid + 1 else hi = mid end
    end
    start = lo
  end
end
return {start, redis.call('ZREVRANGE', key, start, start + limit - 1, 'WITHSCORES')}
`)

// deleteSortedSetScript deletes a board's key (all-time or one period) unless it holds
// another type than a sorted set (another service's data, refused by the guard); a reset of
// the all-time board is recorded in the score history as one event of every player's.
//
// KEYS[1]  the board's ZSET
// KEYS[2], ARGV[1] and the last two ARGV: the score history, now (epoch ms, "" for Redis
// TIME), its actor and cap (luaScoreHistory), or none
// Returns  the keys deleted: 1 or 0
var deleteSortedSetScript = store.NewScript(store.LuaSortedSetGuard + store.LuaNow + luaScoreHistory + `
local n = redis.call('DEL', KEYS[1])
if n == 1 then recordScore('', '0', '0', 'none', 'reset', ARGV[1]) end
return n
`)

// rewriteScoresScript rewrites members' scores (an encoding fix) only where each still has
// the score the caller read: a member written meanwhile keeps that write.
//
// KEYS[1]  the board's ZSET
// ARGV     member, the score read, the new score, member, …
// Returns  {rewritten, changed meanwhile (left as they are)}
var rewriteScoresScript = store.NewScript(store.LuaSortedSetGuard + `
local rewritten, changed = 0, 0
for i = 1, #ARGV, 3 do
  local cur = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if cur and tonumber(cur) == tonumber(ARGV[i + 1]) then
    redis.call('ZADD', KEYS[1], 'XX', ARGV[i + 2], ARGV[i])
    rewritten = rewritten + 1
  else
    changed = changed + 1
  end
end
return {rewritten, changed}
`)
