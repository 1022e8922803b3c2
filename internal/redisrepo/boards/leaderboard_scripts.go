package boards

import (
	"fmt"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// The leaderboard's Lua scripts. Each touches one key, so each is valid on Redis Cluster; an
// Add that updates several boards (all-time, daily, weekly, monthly) runs the add script once
// per board in one pipelined round trip. The time of a tie-break score is Redis TIME, read
// once inside the script (or an injected clock's ms, in tests), so every instance and every
// service written from the articles stamps one clock.

// luaRewriteOf defines rewriteOf(marker), the encoding rewrite a board key is under (its
// store.Keys.ScoreRewrite HASH, read in the same script as the key's scores, so no write
// ever reads a score in another encoding than the one it was written in): nil without one,
// else {from, to, running, marker}. While a rewrite runs, a player's score is in "to" once
// the player is marked done ("m:<player>"), in "from" until then; once it is done (the
// marker lingers for rewriteLinger), every score is in "to", whatever encoding the caller's
// settings (cached for up to SettingsTTL by each instance) said.
const luaRewriteOf = `
local function rewriteOf(marker)
  local m = redis.call('HMGET', marker, 'from', 'to', 'state')
  if not m[1] or not m[2] then return nil end
  return {from = m[1], to = m[2], running = m[3] == 'running', marker = marker}
end
`

// luaAddOne defines addOne(key, player, n, max, enc, mode, stamp, rw, asc), one player's add
// (or set) on one board as setScript and addBatchScript make it. mode is 'add' (the incr
// operator: points added), 'set' (an admin's set: the points written, stamped now), 'best'
// (the best operator: the points written only when better than the player's, the lower when
// asc is true, the higher otherwise) or 'latest' (the set operator: the points written unless
// the player has them already); a best or latest write that keeps the player's points keeps
// their score too, time and all, so the first to reach a score keeps ranking first. asc says
// the board ranks the lowest first: a timed encoding's time part is then reversed (see
// domain.TieBreak.EncodeFor), earlier times lower.
// The write is made unless the result would leave the board's exact range, and on a tie-break board with the score re-encoded with the time
// of this write (see domain.TieBreak and its Encode, which this mirrors expression for
// expression), so the time is that of reaching the new total; ZINCRBY cannot do that, as the
// article warns, because it would add the time parts up too. rw is the key's rewrite
// (rewriteOf): under one, the player's score is read in the encoding it was written in and
// written in the rewrite's new one (whose range bounds the points too), and a running
// rewrite marks the player done, so the rewrite leaves it alone.
// Returns {1, new score (string)}, {2, the score kept (string)} when a best or latest write
// kept the player's score, {0, current points (string)} when refused for the range
// (nothing written), or {-1, now ms} when now is outside the encoding's times (nothing written).
var luaAddOne = store.LuaNow + luaRewriteOf + fmt.Sprintf(`
local maxPoints = {none = %d, first_reached = %d, first_reached_e10 = %d, first_reached_wide = %d}
local function addOne(key, player, nstr, max, enc, mode, stamp, rw, asc)
  local n = tonumber(nstr)
  local readEnc, writeEnc = enc, enc
  if rw then
    readEnc, writeEnc = rw.to, rw.to
    if rw.running and redis.call('HEXISTS', rw.marker, 'm:' .. player) == 0 then readEnc = rw.from end
    max = math.min(max, maxPoints[writeEnc] or max)
  end
  local function pointsOf(s)
    if readEnc == 'first_reached_e10' then
      -- floor(s / 1e10) in doubles can round up by one next to a multiple of 1e10: correct it
      -- with exact integer products (all below 2^53).
      local p = math.floor(s / 1e10)
      if p * 1e10 > s then p = p - 1 elseif (p + 1) * 1e10 <= s then p = p + 1 end
      return p
    end
    return math.floor(s)
  end
  local current = redis.call('ZSCORE', key, player)
  local had = current and pointsOf(tonumber(current)) or 0
  local points = n
  if mode == 'add' then
    points = had + n
  end
  if points > max or points < -max then
    return {0, string.format('%%.17g', had)}
  end
  if current and (mode == 'best' or mode == 'latest') then
    local keep = points == had
    if mode == 'best' then
      if asc then keep = points >= had else keep = points <= had end
    end
    if keep then return {2, current} end
  end
  local function done(r)
    if rw and rw.running then redis.call('HSET', rw.marker, 'm:' .. player, 1) end
    return r
  end
  if writeEnc == 'none' then
    if mode == 'add' and readEnc == 'none' then
      return done({1, redis.call('ZINCRBY', key, nstr, player)})
    end
    local score = string.format('%%d', points)
    redis.call('ZADD', key, score, player)
    return done({1, score})
  end
  local now = nowMs(stamp)
  local score
  if writeEnc == 'first_reached' then -- the main article: points + (1.0 - ms / 1e13)
    if now < 1e12 or now >= 1e13 then return {-1, now} end
    if asc then score = points + now / 1e13 else score = points + (1.0 - now / 1e13) end
  elseif writeEnc == 'first_reached_e10' then -- the second article: points * 10^10 + (max_ts - ts)
    local ts = math.floor(now / 1000)
    if ts > 9999999999 then return {-1, now} end
    if asc then score = points * 1e10 + ts else score = points * 1e10 + (9999999999 - ts) end
  else -- first_reached_wide: points + (2^30 - 1 - s) / 2^30, s seconds since 2025
    local slots = 1073741824
    local s = math.floor(now / 1000) - 1735689600
    if s < 0 or s >= slots then return {-1, now} end
    if asc then score = points + s / slots else score = points + (slots - 1 - s) / slots end
  end
  score = string.format('%%.17g', score)
  redis.call('ZADD', key, score, player)
  return done({1, score})
end
`, int64(domain.MaxSafeScore), domain.FirstReachedMaxPoints, domain.E10MaxPoints, domain.WideMaxPoints) + `
-- rankOf is a member's 0-based rank from the top of a board: ZRANK on an ascending one.
local function rankOf(key, member, asc)
  if asc then return redis.call('ZRANK', key, member) end
  return redis.call('ZREVRANK', key, member)
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
// KEYS[2]  its encoding rewrite's HASH (store.Keys.ScoreRewrite)
// ARGV[1]  player id
// ARGV[2]  the new points
// ARGV[3]  the largest allowed |points| on this board
// ARGV[4]  the board's encoding: a domain.TieBreak value (a rewrite's marker overrides it)
// ARGV[5]  now, epoch ms; "" reads Redis TIME (only tie-break boards need it)
// ARGV[6]  the board's order: a domain.SortOrder value ("asc": lowest first)
// KEYS[2]  the board key's encoding rewrite HASH (store.Keys.ScoreRewrite), read when it exists
// KEYS[3], ARGV[7], ARGV[8]: the score history, its actor and cap (luaScoreHistory), or none
// Returns  {1, new score (string), 0-based rank from the top, the encoding written}
//
//	{0, current points} when the new points are outside the encoding's range;
//	{-1, now ms} when now is outside the encoding's range of times; nothing is written.
var setScript = store.NewScript(store.LuaSortedSetGuard + luaAddOne + luaScoreHistory("KEYS[3]") + `
local rw = rewriteOf(KEYS[2])
local asc = ARGV[6] == 'asc'
local r = addOne(KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], 'set', ARGV[5], rw, asc)
if r[1] ~= 1 then return r end
local enc = rw and rw.to or ARGV[4]
recordScore(ARGV[1], ARGV[2], r[2], enc, 'set', ARGV[5])
return {1, r[2], rankOf(KEYS[1], ARGV[1], asc), enc}
`)

// addBatchScript adds points for one or more players on one board in one call: each
// player's add is addOne (a refused one changes nothing and the others go on), so a batch
// costs one script's overhead rather than one per player. Ranks are read once every add of
// the call is made.
//
// KEYS[1]  the board's ZSET (all-time or one period)
// KEYS[2]  its encoding rewrite's HASH (store.Keys.ScoreRewrite)
// ARGV[1]  the largest allowed |points| on this board
// ARGV[2]  the board's encoding: a domain.TieBreak value (a rewrite's marker overrides it)
// ARGV[3]  PEXPIREAT for the key in epoch ms (period boards), "" for none (set when it differs)
// ARGV[4]  now, epoch ms; "" reads Redis TIME
// ARGV[5]  the board's order: a domain.SortOrder value ("asc": lowest first, ZRANK)
// ARGV[6]  addOne's mode for the board's operator: "add" (incr), "best" or "latest" (set)
// ARGV[7…] player id, points to add (or submitted), player id, points, …
// KEYS[3] and the last two ARGV: the score history, its actor and cap (luaScoreHistory), given
// for the all-time board only
// Returns  {code, score or now or current points, rank, …} per player: addOne's code and
// value, and the 0-based rank from the top (-1 when refused); then the encoding written.
// A kept score (code 2) is not in the score history: nothing changed.
var addBatchScript = store.NewScript(store.LuaSortedSetGuard + luaAddOne + luaScoreHistory("KEYS[3]") + `
local max, out = tonumber(ARGV[1]), {}
local rw = rewriteOf(KEYS[2])
local asc, mode = ARGV[5] == 'asc', ARGV[6]
for i = 7, #ARGV, 2 do
  local r = addOne(KEYS[1], ARGV[i], ARGV[i + 1], max, ARGV[2], mode, ARGV[4], rw, asc)
  if r[1] == 1 then recordScore(ARGV[i], ARGV[i + 1], r[2], rw and rw.to or ARGV[2], mode == 'add' and 'add' or 'set', ARGV[4]) end
  out[#out + 1], out[#out + 2], out[#out + 3] = r[1], r[2], -1
end
for j = 1, #out, 3 do
  if out[j] >= 1 then out[j + 2] = rankOf(KEYS[1], ARGV[7 + (j - 1) / 3 * 2], asc) end
end
expireAt(KEYS[1], ARGV[3])
out[#out + 1] = rw and rw.to or ARGV[2]
return out
`)

// aroundScript returns the players around one, in the board's order (ZREVRANGE, or ZRANGE
// on an ascending board), in one atomic read.
//
// KEYS[1]  the board's ZSET
// ARGV[1]  player id
// ARGV[2]  how many above and below
// ARGV[3]  the board's order: a domain.SortOrder value ("asc": lowest first)
// Returns  {0-based rank of the first entry, {member, score, member, score, ...}}, or false
// when the player is not on the board.
var aroundScript = store.NewScript(store.LuaSortedSetGuard + `
local asc = ARGV[3] == 'asc'
local rank
if asc then rank = redis.call('ZRANK', KEYS[1], ARGV[1]) else rank = redis.call('ZREVRANK', KEYS[1], ARGV[1]) end
if not rank then return false end
local n = tonumber(ARGV[2])
local first = math.max(0, rank - n)
return {first, redis.call(asc and 'ZRANGE' or 'ZREVRANGE', KEYS[1], first, rank + n, 'WITHSCORES')}
`)

// pageScript returns the page of a board that follows a cursor, in the board's order:
// ZREVRANGE's (scores descending, equal scores by member descending), or on an ascending
// board ZRANGE's (scores ascending, equal scores by member ascending). The cursor is the last entry of the previous
// page (its score and member), not an offset, so the page starts right after that entry even
// when other scores changed: while the entry keeps its score, at its current rank; otherwise at
// the place (score, member) would have, found by a binary search among the equal scores
// (members compared byte by byte, as Redis orders them, whatever the server's locale).
//
// KEYS[1]  the board's ZSET
// ARGV[1]  the cursor's score ("" for the first page)
// ARGV[2]  the cursor's member
// ARGV[3]  page size
// ARGV[4]  the board's order: a domain.SortOrder value ("asc": lowest first)
// Returns  {0-based rank of the first entry, {member, score, ...}}
var pageScript = store.NewScript(store.LuaSortedSetGuard + `
local key, limit, asc = KEYS[1], tonumber(ARGV[3]), ARGV[4] == 'asc'
local rangeCmd = asc and 'ZRANGE' or 'ZREVRANGE'
local start = 0
if ARGV[1] ~= '' then
  local score, member = tonumber(ARGV[1]), ARGV[2]
  local current = redis.call('ZSCORE', key, member)
  if current and tonumber(current) == score then
    start = redis.call(asc and 'ZRANK' or 'ZREVRANK', key, member) + 1
  else
    local function before(a, b) -- a sorts before b among equal scores: a > b bytewise (a < b when asc)
      local la, lb = #a, #b
      for i = 1, math.min(la, lb) do
        local x, y = string.byte(a, i), string.byte(b, i)
        if x ~= y then
          if asc then return x < y end
          return x > y
        end
      end
      if asc then return la < lb end
      return la > lb
    end
    local lo
    if asc then lo = redis.call('ZCOUNT', key, '-inf', '(' .. ARGV[1]) else lo = redis.call('ZCOUNT', key, '(' .. ARGV[1], '+inf') end
    local hi = lo + redis.call('ZCOUNT', key, ARGV[1], ARGV[1])
    while lo < hi do
      local mid = math.floor((lo + hi) / 2)
      if before(redis.call(rangeCmd, key, mid, mid)[1], member) then lo = mid + 1 else hi = mid end
    end
    start = lo
  end
end
return {start, redis.call(rangeCmd, key, start, start + limit - 1, 'WITHSCORES')}
`)

// deleteSortedSetScript deletes a board's key (all-time or one period) unless it holds
// another type than a sorted set (another service's data, refused by the guard); a reset of
// the all-time board is recorded in the score history as one event of every player's.
//
// KEYS[1]  the board's ZSET
// KEYS[2], ARGV[1] and the last two ARGV: the score history, now (epoch ms, "" for Redis
// TIME), its actor and cap (luaScoreHistory), or none
// Returns  the keys deleted: 1 or 0
var deleteSortedSetScript = store.NewScript(store.LuaSortedSetGuard + store.LuaNow + luaScoreHistory("KEYS[2]") + `
local n = redis.call('DEL', KEYS[1])
if n == 1 then recordScore('', '0', '0', 'none', 'reset', ARGV[1]) end
return n
`)

// rewriteScoresScript rewrites members' scores (a step of an encoding fix) only where each
// still has the score the caller read and no write converted it meanwhile, and marks each
// member it rewrote (or found already in the new encoding: new score = the score read) done
// in the rewrite's HASH, so from then on writes read the member's score in the new encoding.
// A member a write converted meanwhile (marked done by addOne) keeps that write.
//
// KEYS[1]  the board's ZSET
// KEYS[2]  its encoding rewrite's HASH (store.Keys.ScoreRewrite), running
// ARGV     member, the score read, the new score, member, …
// Returns  {rewritten (score changed), changed meanwhile (left as written)}, or {-1} when the
// rewrite is no longer running (nothing written)
var rewriteScoresScript = store.NewScript(store.LuaSortedSetGuard + `
if redis.call('HGET', KEYS[2], 'state') ~= 'running' then return {-1} end
local rewritten, changed = 0, 0
for i = 1, #ARGV, 3 do
  local done = 'm:' .. ARGV[i]
  local cur = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if redis.call('HEXISTS', KEYS[2], done) == 0 and cur and tonumber(cur) == tonumber(ARGV[i + 1]) then
    if ARGV[i + 2] ~= ARGV[i + 1] then
      redis.call('ZADD', KEYS[1], 'XX', ARGV[i + 2], ARGV[i])
      rewritten = rewritten + 1
    end
    redis.call('HSET', KEYS[2], done, 1)
  else
    changed = changed + 1
  end
end
return {rewritten, changed}
`)

// startRewriteScript starts (or resumes) the encoding rewrite of one board key: a rewrite
// running to the same encoding is resumed with its own old encoding and the members it has
// done, so a fix that stopped half way is finished by the next; one running to another
// encoding is left alone, and the caller refuses. A done marker is replaced.
//
// KEYS[1]  the key's encoding rewrite HASH (store.Keys.ScoreRewrite)
// ARGV[1]  the old encoding (the key's scores' now)
// ARGV[2]  the new encoding
// Returns  {1, the old encoding of the rewrite}, or {0, the new encoding of the running one}
var startRewriteScript = store.NewScript(`
local m = redis.call('HMGET', KEYS[1], 'from', 'to', 'state')
if m[3] == 'running' and m[1] and m[2] then
  if m[2] == ARGV[2] then return {1, m[1]} end
  return {0, m[2]}
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'from', ARGV[1], 'to', ARGV[2], 'state', 'running')
return {1, ARGV[1]}
`)

// finishRewriteScript ends a key's running encoding rewrite: the marker's done members go,
// and it stays as done (every score in the new encoding) for a while, so an instance whose
// settings were read before the fix still writes the new encoding.
//
// KEYS[1]  the key's encoding rewrite HASH
// ARGV[1]  the new encoding the caller rewrote to
// ARGV[2]  how long the done marker stays, ms
// Returns  1 when finished, 0 when no rewrite to ARGV[1] was running
var finishRewriteScript = store.NewScript(`
local m = redis.call('HMGET', KEYS[1], 'from', 'to', 'state')
if m[3] ~= 'running' or m[2] ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'from', m[1], 'to', m[2], 'state', 'done')
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`)

// settleRewriteScript readies a key's rewrite marker for an encoding saved without a fix: a
// rewrite running to another encoding is named (the caller refuses the save), a finished one
// naming another encoding is deleted.
//
// KEYS[1]  the key's encoding rewrite HASH
// ARGV[1]  the encoding being saved
// Returns  "" when the save may go on, else the encoding the running rewrite writes
var settleRewriteScript = store.NewScript(`
local m = redis.call('HMGET', KEYS[1], 'to', 'state')
if not m[1] or m[1] == ARGV[1] then return '' end
if m[2] == 'running' then return m[1] end
redis.call('DEL', KEYS[1])
return ''
`)
