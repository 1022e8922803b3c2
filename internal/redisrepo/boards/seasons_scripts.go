package boards

import (
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// endSeasonScript ends a board's current season: the all-time board's sorted set is RENAMEd
// to the season's key (same Cluster slot: the season key's braces hold the board's key), so
// nothing is copied and every add lands either before the rename (in the season) or after
// it (on the new, empty board); the season's start, end, encoding and player count go into
// the seasons hash, and the seasons retention drops are deleted. It ends only the season the
// caller read (ARGV[1]): a concurrent end makes it answer {0, current}, and the caller reads
// again. A scheduled end (ARGV[4] not "") happens only when the season started before the
// boundary, so instances that run it at once end it once; a schedule that finds no recorded
// start, or an empty board, records now as the start instead. While the board's scores are
// being rewritten to another encoding (its rewrite marker runs), no season ends: the season
// would keep scores of two encodings; the end waits for the rewrite. A rewrite just done
// names the encoding kept with the season (instances may still cache the old settings).
//
// KEYS[1]  the board's ZSET (leaderboard:<board>)
// KEYS[2]  the board's seasons HASH
// KEYS[3]  the ZSET the ended season becomes ({leaderboard:<board>}:season:<n>)
// KEYS[4]  the board's encoding rewrite HASH ({leaderboard:<board>}:rewrite)
// KEYS[5…] the ZSETs of older seasons to delete (retention); then, last, the board's score
//
//	history (luaScoreHistory), which records the end as one event of every player's
//
// (given: ARGV holds three more than KEYS: its own ARGV[5], and the actor and the cap at its end)
// ARGV[1]  n, the current season's number as the caller read it
// ARGV[2]  now, epoch ms; "" reads Redis TIME
// ARGV[3]  the board's encoding, kept with the season
// ARGV[4]  the boundary, epoch ms, for a scheduled end; "" ends now whatever the start
// ARGV[5]  the board's order (a domain.SortOrder), kept with the season
// ARGV[6…] the numbers of the seasons of KEYS[5…]
// Returns  {1, n, started ms or "", ended ms, players, encoding kept} when ended; {0, current} when the
// season is no longer n; {2} when a scheduled end is not due; {-2} when the season's key
// already exists (never overwritten); {3} while the board's scores are being rewritten
var endSeasonScript = store.NewScript(store.LuaSortedSetGuard + store.LuaNow +
	luaScoreHistory("#ARGV == #KEYS + 2 and KEYS[#KEYS] or nil") + `
local cur = tonumber(redis.call('HGET', KEYS[2], 'current') or '1')
if cur ~= tonumber(ARGV[1]) then return {0, cur} end
local rw = redis.call('HMGET', KEYS[4], 'to', 'state')
if rw[2] == 'running' then return {3} end
local ties = rw[1] or ARGV[3]
local now = nowMs(ARGV[2])
local started = redis.call('HGET', KEYS[2], 'started')
local players = redis.call('ZCARD', KEYS[1])
if ARGV[4] ~= '' then
  if not started or players == 0 then
    redis.call('HSET', KEYS[2], 'started', now)
    return {2}
  end
  if tonumber(started) >= tonumber(ARGV[4]) then return {2} end
end
if redis.call('EXISTS', KEYS[3]) == 1 then return {-2} end
if players > 0 then redis.call('RENAME', KEYS[1], KEYS[3]) end
local n = tostring(cur)
if started then redis.call('HSET', KEYS[2], n .. ':started', started) end
redis.call('HSET', KEYS[2], n .. ':ended', now, n .. ':ties', ties, n .. ':order', ARGV[5], n .. ':players', players,
  'current', cur + 1, 'started', now)
if players > 0 then recordScore('', '0', '0', ties, 'season_end', ARGV[2]) end
local dropped = 0
for i = 5, #KEYS - (historyKey and 1 or 0) do
  local m = ARGV[i + 1]
  redis.call('DEL', KEYS[i])
  dropped = dropped + redis.call('HDEL', KEYS[2], m .. ':ended')
  redis.call('HDEL', KEYS[2], m .. ':started', m .. ':ties', m .. ':order', m .. ':players')
end
if dropped > 0 then redis.call('HINCRBY', KEYS[2], 'dropped', dropped) end
return {1, cur, started or '', now, players, ties}
`)
