package schedules

import (
	"github.com/zpulse/zpulse/internal/redisrepo/queues"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// claimScript names a schedule's queue in the index, unless the name is another queue's.
//
// KEYS[1]  zpulse:index:schedules (HASH name -> queue)
// ARGV[1]  the schedule's name   ARGV[2]  its queue
// Returns  1 claimed; 2 already this queue's (a create retried after a crash goes on);
// 0 the name is another queue's schedule
var claimScript = store.NewScript(`
local q = redis.call('HGET', KEYS[1], ARGV[1])
if not q then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  return 1
end
if q == ARGV[2] then return 2 end
return 0
`)

// unclaimScript removes a schedule's name from the index if it still names that queue.
//
// KEYS[1]  zpulse:index:schedules
// ARGV[1]  the schedule's name   ARGV[2]  its queue
// Returns  1 removed, 0 not (absent, or another queue's)
var unclaimScript = store.NewScript(`
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  return redis.call('HDEL', KEYS[1], ARGV[1])
end
return 0
`)

// createScript saves a new schedule's HASH unless it exists.
//
// KEYS[1]  {queue:<queue>}:schedule:<name> (HASH)
// ARGV     field, value pairs of the spec and its first state (next_ms, paused "0", …)
// Returns  1 created, 0 it exists
var createScript = store.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
`)

// pauseScript pauses or resumes a schedule. A resume starts again at the next period after
// now (ARGV[2]): the periods while it was paused do not run.
//
// KEYS[1]  {queue:<queue>}:schedule:<name>
// ARGV[1]  "1" pause, "0" resume   ARGV[2]  the next period's start, epoch ms (resume)
// Returns  1 done (or already so), 0 no such schedule
var pauseScript = store.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[1] == '1' then
  redis.call('HSET', KEYS[1], 'paused', '1')
elseif redis.call('HGET', KEYS[1], 'paused') == '1' then
  redis.call('HSET', KEYS[1], 'paused', '0', 'next_ms', ARGV[2])
end
return 1
`)

// fireScript runs a schedule once, in one step on its queue's slot: it checks the schedule
// (for a period: not paused, and its next period still the one the caller read, a
// compare-and-set, so two instances, or a term that lost its singleton, never run one period
// twice), enqueues the job with the queue's own enqueue (queues.LuaEnqueueBody, as a function
// of the queue's keys and arguments; the job's id is the schedule's and the period's, so the
// queue refuses it if it is there already) and records the run: last_ms, last_job, last_error,
// and for a period next_ms, the first period after now (a schedule that missed several periods
// runs the last one once).
//
// KEYS[1]  {queue:<queue>}:schedule:<name>
// KEYS[2…] enqueueScript's keys (queues.Queues.EnqueueStep), all on the queue's slot
// ARGV[1]  "period", or "now" (run now: no check of paused or next_ms, next_ms kept)
// ARGV[2]  the next_ms the caller read (period)
// ARGV[3]  the period's start (or now), epoch ms: last_ms
// ARGV[4]  the next period's start, epoch ms (period)
// ARGV[5…] enqueueScript's arguments (ARGV[5] is the job's id)
// Returns  {1, <enqueueScript's reply…>} ran (the job enqueued, or refused as already there or
// by the queue's kind: last_error says so); {-10} no such schedule; {-11} paused; {-12,
// next_ms} another run advanced it first
var fireScript = store.NewScript(store.LuaNow + `
local function enqueue(KEYS, ARGV)
` + store.LuaSortedSetGuard + queues.LuaEnqueueBody + `
end
if redis.call('EXISTS', KEYS[1]) == 0 then return {-10} end
if ARGV[1] == 'period' then
  if redis.call('HGET', KEYS[1], 'paused') == '1' then return {-11} end
  local nx = redis.call('HGET', KEYS[1], 'next_ms')
  if nx ~= ARGV[2] then return {-12, nx} end
end
local r = enqueue({unpack(KEYS, 2)}, {unpack(ARGV, 5)})
if r.err then return r end
local failed = ''
if r[1] == -4 or r[1] == -5 or r[1] == -6 then
  failed = 'the queue refused the job: its kind changed since the schedule was made (a priority queue takes a priority, a delayed queue none)'
end
if failed == '' then redis.call('HSET', KEYS[1], 'last_job', ARGV[5]) end
redis.call('HSET', KEYS[1], 'last_ms', ARGV[3], 'last_error', failed)
if ARGV[1] == 'period' then redis.call('HSET', KEYS[1], 'next_ms', ARGV[4]) end
table.insert(r, 1, 1)
return r
`)
