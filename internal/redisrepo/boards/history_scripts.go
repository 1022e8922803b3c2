package boards

import (
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// luaScoreHistory is the score history's part of a script that changes scores on a board's
// all-time ZSET: composed after store.LuaNow, it defines recordScore(player, points, score,
// enc, action, stamp), which appends one entry to the board's history stream (see
// store.Keys.BoardHistory) when the script was given it, and nothing otherwise (period
// boards, history off). key is the Lua expression of the stream's key, nil when not given:
// "KEYS[3]" for a script of two keys of its own. The caller then appends two ARGV at the very
// end, the actor and the stream's cap, which this takes off ARGV before the script's body
// reads it, so the body's own ARGV stay as they were.
func luaScoreHistory(key string) string {
	return "\nlocal historyKey = " + key + luaRecordScore
}

const luaRecordScore = `
local historyActor, historyCap = nil, nil
if historyKey then
  historyCap = table.remove(ARGV)
  historyActor = table.remove(ARGV)
end
local function recordScore(player, points, score, enc, action, stamp)
  if not historyKey then return end
  redis.call('XADD', historyKey, 'MAXLEN', '~', historyCap, '*', 'p', player, 'd', points, 's', score, 'e', enc,
    'a', historyActor, 'k', action, 't', nowMs(stamp))
end
`

// removeScript removes a player from a board's all-time ZSET and, when the player was there,
// records the removal in the score history (d: the score removed, as stored).
//
// KEYS[1]  the all-time board's ZSET
// KEYS[2], the last two ARGV: the score history, its actor and cap (luaScoreHistory), or none
// ARGV[1]  player id
// ARGV[2]  the board's encoding: a domain.TieBreak value
// ARGV[3]  now, epoch ms; "" reads Redis TIME
// Returns  1 removed, 0 when the player was not there
var removeScript = store.NewScript(store.LuaSortedSetGuard + store.LuaNow + luaScoreHistory("KEYS[2]") + `
local old = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not old then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
recordScore(ARGV[1], old, '0', ARGV[2], 'remove', ARGV[3])
return 1
`)
