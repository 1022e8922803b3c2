package audit

import "github.com/zpulse/zpulse/internal/redisrepo/store"

// recordScript appends one entry to the audit trail and trims it, by count and by age, in
// one step. The entry's id is Redis's time (XADD *), so the age cut is Redis's time too.
//
// KEYS[1]  zpulse:{audit} (STREAM)
// ARGV[1]  the most entries kept (MAXLEN ~)
// ARGV[2]  the oldest entry kept, ms before now (XTRIM MINID)
// ARGV[3…] the entry's field, value pairs
// Returns  the new entry's id
var recordScript = store.NewScript(store.LuaNow + `
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', unpack(ARGV, 3))
redis.call('XTRIM', KEYS[1], 'MINID', nowMs('') - tonumber(ARGV[2]))
return id
`)
