package auth

import (
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// The session scripts. A session record holds the generation it was opened in; "sign out
// everywhere" bumps the generation (one INCR, however many sessions there are), and a record
// of an older generation is no longer a session. Both keys share the {sessions} slot.

// createSessionScript records a session in the current generation.
//
// KEYS[1]  zpulse:{sessions}:generation (STRING counter; missing is 0)
// KEYS[2]  zpulse:{sessions}:id:<sha256 of the id>
// ARGV[1]  the admin token's fingerprint
// ARGV[2]  the session's life, ms
// ARGV[3]  its holder: "<role>:<token id>:<name>"
// Returns  1
var createSessionScript = store.NewScript(`
local g = redis.call('GET', KEYS[1]) or '0'
redis.call('SET', KEYS[2], g .. ':' .. ARGV[1] .. ':' .. ARGV[3], 'PX', ARGV[2])
return 1
`)

// checkSessionScript says whether a session record exists, belongs to the current
// generation and was opened with the current admin token.
//
// KEYS[1]  zpulse:{sessions}:generation
// KEYS[2]  zpulse:{sessions}:id:<sha256 of the id>
// ARGV[1]  the admin token's fingerprint
// Returns  the holder ("<role>:<token id>:<name>") of a live session, "" otherwise
var checkSessionScript = store.NewScript(`
local g = redis.call('GET', KEYS[1]) or '0'
local v = redis.call('GET', KEYS[2])
local p = g .. ':' .. ARGV[1] .. ':'
if v and string.sub(v, 1, #p) == p then return string.sub(v, #p + 1) end
return ''
`)

// The personal tokens' scripts. A token's record, its name's entry and the set of ids share
// the {sessions} slot with the sessions.

// createTokenScript records a new token unless its name is taken.
//
// KEYS[1]  zpulse:{sessions}:token-name:<name> (STRING id)
// KEYS[2]  zpulse:{sessions}:token:<id>        (HASH record)
// KEYS[3]  zpulse:{sessions}:tokens            (SET of ids)
// ARGV[1]  id
// ARGV[2]  expires_at, ms since the epoch; 0 never
// ARGV[3..] the record's fields and values
// Returns  1 made, 0 the name is in use
var createTokenScript = store.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], unpack(ARGV, 3))
redis.call('SADD', KEYS[3], ARGV[1])
if tonumber(ARGV[2]) > 0 then
  redis.call('PEXPIREAT', KEYS[1], ARGV[2])
  redis.call('PEXPIREAT', KEYS[2], ARGV[2])
end
return 1
`)

// revokeTokenScript deletes a token, if the name still names the id read before.
//
// KEYS[1]  zpulse:{sessions}:token-name:<name>
// KEYS[2]  zpulse:{sessions}:token:<id>
// KEYS[3]  zpulse:{sessions}:tokens
// ARGV[1]  id
// Returns  1 deleted, 0 the name names no token (or another one now)
var revokeTokenScript = store.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('SREM', KEYS[3], ARGV[1])
return 1
`)

// touchTokenScript records a token's last use, without bringing back a revoked one.
//
// KEYS[1]  zpulse:{sessions}:token:<id>
// ARGV[1]  now, ms since the epoch
// Returns  1 recorded, 0 no such token
var touchTokenScript = store.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'last_used', ARGV[1])
return 1
`)
