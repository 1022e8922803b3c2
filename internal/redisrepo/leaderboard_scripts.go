package redisrepo

// The leaderboard's Lua scripts. Each touches one key, so each is valid on Redis Cluster; an
// add that updates several boards (all-time, daily, weekly, monthly) runs the add script once
// per board in one pipelined round trip. Time comes from the caller's domain.Clock as ARGV:
// the tie-break resolution is one second, far coarser than the skew between instances.

// addScript adds points to (or sets) a player's score on one board, unless the result would
// leave the board's exact range, and returns the new score with the player's rank, so the
// answer describes the state right after this write even under concurrent writers.
// On a tie-break board the score is re-encoded as points + (2^30 − 1 − slot) / 2^30 (see
// domain.TieBreakScore), so the time is that of reaching the new total; ZINCRBY cannot do
// that, as the article warns, because it would add the fractions up too.
//
// KEYS[1]  the board's ZSET (all-time or one period)
// ARGV[1]  player id
// ARGV[2]  points: an integer to add, or the new points with ARGV[6] = "set"
// ARGV[3]  the largest allowed |points| on this board
// ARGV[4]  tie-break time slot (seconds since domain.TieBreakEpoch), "" for a plain board
// ARGV[5]  PEXPIREAT for the key in epoch ms (period boards), "" for none; sent only when the
//
//	key's expiry differs (PEXPIRETIME, or always where Redis lacks it), so a steady board
//	writes no expiry per add while a changed retention still applies at the next add
//
// ARGV[6]  "add" or "set"
// Returns  {1, new score (string), 0-based rank from the top}
//
//	{0, current score (string)} when the result would leave ±ARGV[3]; nothing is written.
var addScript = newScript(`
local key, player = KEYS[1], ARGV[1]
local n, max, slot = tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local current = redis.call('ZSCORE', key, player)
local points = n
if ARGV[6] == 'add' then
  points = (current and math.floor(tonumber(current)) or 0) + n
end
if points > max or points < -max then
  return {0, current or '0'}
end
local score
if slot ~= '' then
  local slots = 1073741824
  score = string.format('%.17g', points + (slots - 1 - tonumber(slot)) / slots)
  redis.call('ZADD', key, score, player)
elseif ARGV[6] == 'add' then
  score = redis.call('ZINCRBY', key, ARGV[2], player)
else
  redis.call('ZADD', key, ARGV[2], player)
  score = ARGV[2]
end
if ARGV[5] ~= '' then
  local at = redis.pcall('PEXPIRETIME', key)
  if type(at) ~= 'number' or at ~= tonumber(ARGV[5]) then
    redis.call('PEXPIREAT', key, ARGV[5])
  end
end
return {1, score, redis.call('ZREVRANK', key, player)}
`)

// addBatchScript is addScript's add for many players on one board in one call: each player's
// change is checked and made as addScript's is (a refused one changes nothing and the others
// go on), so a batch costs one script's overhead rather than one per player.
//
// KEYS[1]  the board's ZSET (all-time or one period)
// ARGV[1]  the largest allowed |points| on this board
// ARGV[2]  tie-break time slot (seconds since domain.TieBreakEpoch), "" for a plain board
// ARGV[3]  PEXPIREAT for the key in epoch ms (period boards), "" for none: as addScript's
// ARGV[4…] player id, points to add, player id, points to add, …
// Returns  {ok, score (string), rank, ok, score, rank, …}: per player 1, the new score and its
// 0-based rank from the top; or 0, the current score (unchanged) and -1 when refused
var addBatchScript = newScript(`
local key, max, slot = KEYS[1], tonumber(ARGV[1]), ARGV[2]
local out = {}
for i = 4, #ARGV, 2 do
  local player, n = ARGV[i], tonumber(ARGV[i + 1])
  local current = redis.call('ZSCORE', key, player)
  local points = (current and math.floor(tonumber(current)) or 0) + n
  if points > max or points < -max then
    out[#out + 1], out[#out + 2], out[#out + 3] = 0, current or '0', -1
  else
    local score
    if slot ~= '' then
      local slots = 1073741824
      score = string.format('%.17g', points + (slots - 1 - tonumber(slot)) / slots)
      redis.call('ZADD', key, score, player)
    else
      score = redis.call('ZINCRBY', key, ARGV[i + 1], player)
    end
    out[#out + 1], out[#out + 2], out[#out + 3] = 1, score, -1
  end
end
for i = 1, #out, 3 do
  if out[i] == 1 then
    out[i + 2] = redis.call('ZREVRANK', key, ARGV[4 + (i - 1) / 3 * 2])
  end
end
if ARGV[3] ~= '' then
  local at = redis.pcall('PEXPIRETIME', key)
  if type(at) ~= 'number' or at ~= tonumber(ARGV[3]) then
    redis.call('PEXPIREAT', key, ARGV[3])
  end
end
return out
`)

// aroundScript returns the players around one, as ZREVRANGE orders them, in one atomic read.
//
// KEYS[1]  the board's ZSET
// ARGV[1]  player id
// ARGV[2]  how many above and below
// Returns  {0-based rank of the first entry, {member, score, member, score, ...}}, or false
// when the player is not on the board.
var aroundScript = newScript(`
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
var pageScript = newScript(`
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
