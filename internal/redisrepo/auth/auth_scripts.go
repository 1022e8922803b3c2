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
// Returns  1
var createSessionScript = store.NewScript(`
local g = redis.call('GET', KEYS[1]) or '0'
redis.call('SET', KEYS[2], g .. ':' .. ARGV[1], 'PX', ARGV[2])
return 1
`)

// checkSessionScript says whether a session record exists, belongs to the current
// generation and was opened with the current admin token.
//
// KEYS[1]  zpulse:{sessions}:generation
// KEYS[2]  zpulse:{sessions}:id:<sha256 of the id>
// ARGV[1]  the admin token's fingerprint
// Returns  1 for a live session, 0 otherwise
var checkSessionScript = store.NewScript(`
local g = redis.call('GET', KEYS[1]) or '0'
if redis.call('GET', KEYS[2]) == g .. ':' .. ARGV[1] then return 1 end
return 0
`)
