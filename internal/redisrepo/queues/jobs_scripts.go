package queues

import (
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// The scripts of what operators do with jobs: a job's detail, the lists by state (keyset
// pages), dead letters in bulk, and the pause check of the poll scripts. Every one touches one
// queue's keys only, all in the queue's Cluster slot (see keys.go).

// luaPaused is the pause check the poll scripts run before they take anything: in the same
// atomic step as the take, so no poll through zpulse takes a job once the pause is set.
// KEYS[paused] is {queue:<name>}:paused.
const luaPaused = `
local function paused(key) return redis.call('EXISTS', key) == 1 end
`

// luaKeyset defines position(key, score, id, strict): the rank, in key, of the first member
// after (score, id) in Redis's order of a sorted set (by score, then by the member's bytes),
// or, not strict, of the first at or after it. It counts the members of lower score and
// binary-searches those of equal score by rank (ZRANGEBYLEX is defined only on a set whose
// every member has one score, so it cannot serve here). Members are compared byte by byte,
// as Redis does, not with Lua's <, which follows the server's collation locale. Cost:
// O(log N) per probe, at most log2(members of that score) probes.
const luaKeyset = `
local function bytesLess(a, b)
  local n = math.min(#a, #b)
  for i = 1, n do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a < #b
end
local function position(key, score, id, strict)
  local lo = redis.call('ZCOUNT', key, '-inf', '(' .. score)
  local hi = lo + redis.call('ZCOUNT', key, score, score)
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    local m = redis.call('ZRANGE', key, mid, mid)[1]
    local after
    if strict then after = bytesLess(id, m) else after = not bytesLess(m, id) end
    if after then hi = mid else lo = mid + 1 end
  end
  return lo
end
`

// jobPageScript reads one page of a queue's jobs in one state, and the count of every state,
// in one step. A state is a score range of one of the queue's sorted sets (waiting: the
// queue up to now; scheduled: the queue after now; in flight: the processing set; dead: the
// dead set; a priority queue's scheduled jobs: its retry set; completed: the done set since
// the oldest completion kept). The page starts after (up) or before (down) the cursor's (score, id), so a job
// that stays in the set while an operator pages through it is on exactly one page.
//
// KEYS[1]  queue:<name>  KEYS[2]  {queue:<name>}:processing  KEYS[3]  {queue:<name>}:dead
// KEYS[4]  {queue:<name>}:retry  KEYS[5]  {queue:<name>}:done  KEYS[6]  {queue:<name>}:errors
// KEYS[7]  {queue:<name>}:types, or {queue:<name>}:done:types for the completed jobs
// ARGV[1]  which set: 1, 2, 3, 4 or 5 (KEYS' order)
// ARGV[2]  the state's lowest score, as ZRANGEBYSCORE takes it ("-inf", "(123" or "123")
// ARGV[3]  the state's highest score, likewise
// ARGV[4]  "up" (increasing (score, id)) or "down"
// ARGV[5]  "1" when a cursor is given, else "0"
// ARGV[6]  the cursor's score   ARGV[7]  the cursor's id
// ARGV[8]  how many jobs at most
// ARGV[9]  now, epoch ms, when the queue is delayed (due up to now); "" for a priority queue
// ARGV[10] the oldest completion kept, epoch ms (exclusive)
// Returns  {more, waiting, scheduled, in flight, dead, {id, score, id, score, ...}, completed,
// {errors JSON or false per job: dead jobs only, else {}}, {type or false per job}}: the jobs
// in increasing order; more is 1 when the set holds more of the state past the page
var jobPageScript = store.NewScript(store.LuaSortedSetGuard + luaKeyset + `
local key = KEYS[tonumber(ARGV[1])]
local min, max = ARGV[2], ARGV[3]
local low
if min == '-inf' then low = 0
elseif string.sub(min, 1, 1) == '(' then low = redis.call('ZCOUNT', key, '-inf', string.sub(min, 2))
else low = redis.call('ZCOUNT', key, '-inf', '(' .. min) end
local high = redis.call('ZCOUNT', key, '-inf', max)
local limit = tonumber(ARGV[8])
local first, last, more
if ARGV[4] == 'up' then
  first = low
  if ARGV[5] == '1' then first = math.max(position(key, ARGV[6], ARGV[7], true), low) end
  last = math.min(first + limit, high) - 1
  more = first + limit < high
else
  local stop = high
  if ARGV[5] == '1' then stop = math.min(position(key, ARGV[6], ARGV[7], false), high) end
  first = math.max(stop - limit, low)
  last = stop - 1
  more = first > low
end
local jobs = {}
if last >= first then jobs = redis.call('ZRANGE', key, first, last, 'WITHSCORES') end
local waiting = redis.call('ZCARD', KEYS[1])
local scheduled = redis.call('ZCARD', KEYS[4])
if ARGV[9] ~= '' then
  scheduled = redis.call('ZCOUNT', KEYS[1], '(' .. ARGV[9], '+inf')
  waiting = waiting - scheduled
end
local errs = {}
if ARGV[1] == '3' and #jobs > 0 then
  local ids = {}
  for i = 1, #jobs, 2 do ids[#ids + 1] = jobs[i] end
  errs = redis.call('HMGET', KEYS[6], unpack(ids))
end
local types = {}
if #jobs > 0 then
  local ids = {}
  for i = 1, #jobs, 2 do ids[#ids + 1] = jobs[i] end
  types = redis.call('HMGET', KEYS[7], unpack(ids))
end
return {more and 1 or 0, waiting, scheduled, redis.call('ZCARD', KEYS[2]), redis.call('ZCARD', KEYS[3]), jobs,
  redis.call('ZCOUNT', KEYS[5], '(' .. ARGV[10], '+inf'), errs, types}
`)

// jobScript reads everything kept of one job, wherever it is, in one step.
//
// KEYS[1]  queue:<name>             KEYS[2]  {queue:<name>}:processing
// KEYS[3]  {queue:<name>}:dead      KEYS[4]  {queue:<name>}:jobs
// KEYS[5]  {queue:<name>}:attempts  KEYS[6]  {queue:<name>}:scores
// KEYS[7]  {queue:<name>}:leases    KEYS[8]  {queue:<name>}:errors
// KEYS[9]  {queue:<name>}:settings  KEYS[10] {queue:<name>}:paused
// KEYS[11] {queue:<name>}:retry
// KEYS[12] {queue:<name>}:done       KEYS[13] {queue:<name>}:done:info
// KEYS[14] {queue:<name>}:done:payloads
// ARGV[1]  job id
// ARGV[2]  the oldest completion still kept, epoch ms (exclusive)
// ARGV[3]  "1": read a completed job's kept payload
// Returns  {where, score, kept score, payload, attempts, lease token, errors JSON, kind,
// max attempts, paused, completed info}: where is "waiting", "processing", "dead", "retrying"
// (score: when it returns), "completed" (score: when; payload: the kept one; info:
// "<ms>|<attempts>|<consumer>") or "" (nowhere, and the rest then means nothing); a missing
// field is false
var jobScript = store.NewScript(store.LuaSortedSetGuard + `
local id = ARGV[1]
local where, score = '', false
score = redis.call('ZSCORE', KEYS[1], id)
if score then where = 'waiting' else
  score = redis.call('ZSCORE', KEYS[2], id)
  if score then where = 'processing' else
    score = redis.call('ZSCORE', KEYS[3], id)
    if score then where = 'dead' else
      score = redis.call('ZSCORE', KEYS[11], id)
      if score then where = 'retrying' else
        score = redis.call('ZSCORE', KEYS[12], id)
        if score and tonumber(score) > tonumber(ARGV[2]) then where = 'completed' else score = false end
      end
    end
  end
end
if where == 'completed' then
  local payload = false
  if ARGV[3] == '1' then payload = redis.call('HGET', KEYS[14], id) end
  return {where, score, false, payload, false, false, false, redis.call('HGET', KEYS[9], 'kind'),
    redis.call('HGET', KEYS[9], 'max_attempts'), redis.call('EXISTS', KEYS[10]), redis.call('HGET', KEYS[13], id)}
end
return {where, score, redis.call('HGET', KEYS[6], id), redis.call('HGET', KEYS[4], id), redis.call('HGET', KEYS[5], id),
  redis.call('HGET', KEYS[7], id), redis.call('HGET', KEYS[8], id), redis.call('HGET', KEYS[9], 'kind'),
  redis.call('HGET', KEYS[9], 'max_attempts'), redis.call('EXISTS', KEYS[10]), false}
`)

// requeueDeadScript is requeueScript for a batch of dead jobs, the oldest deaths first: each
// goes back to its queue due now (a priority queue's job keeps its priority), its attempts
// and lease forgotten, its payload bound to its new score (see boundPayload). A dead job whose
// id waits again is left dead and skipped. The batch is atomic; the caller runs batches until
// the dead set is done.
//
// KEYS[1]  queue:<name>             KEYS[2]  {queue:<name>}:dead
// KEYS[3]  {queue:<name>}:attempts  KEYS[4]  {queue:<name>}:scores
// KEYS[5]  {queue:<name>}:settings  KEYS[6]  {queue:<name>}:leases
// KEYS[7]  {queue:<name>}:jobs
// ARGV[1]  now, epoch ms (caller's clock)
// ARGV[2]  the queue's default kind
// ARGV[3]  batch size
// ARGV[4]  how many dead jobs earlier batches skipped (they stay first in the dead set)
// Returns  {moved, skipped, read}
var requeueDeadScript = store.NewScript(store.LuaSortedSetGuard + luaRebind + `
local ids = redis.call('ZRANGE', KEYS[2], tonumber(ARGV[4]), tonumber(ARGV[4]) + tonumber(ARGV[3]) - 1)
local kind = redis.call('HGET', KEYS[5], 'kind')
if kind ~= 'priority' and kind ~= 'delayed' then kind = ARGV[2] end
local now = tonumber(ARGV[1])
local moved, skipped = 0, 0
for _, id in ipairs(ids) do
  if redis.call('ZSCORE', KEYS[1], id) then
    skipped = skipped + 1
  else
    local score = now
    if kind == 'priority' then
      local old = tonumber(redis.call('HGET', KEYS[4], id))
      if old and old >= 0 and old < 1e14 then score = math.floor(old / 1e13) * 1e13 + now end
    end
    redis.call('ZREM', KEYS[2], id)
    redis.call('ZADD', KEYS[1], score, id)
    redis.call('HDEL', KEYS[3], id)
    redis.call('HDEL', KEYS[4], id)
    redis.call('HDEL', KEYS[6], id)
    rebind(KEYS[7], id, score)
    moved = moved + 1
  end
end
return {moved, skipped, #ids}
`)

// deleteDeadScript deletes a batch of dead jobs, the oldest deaths first, with everything
// kept beside them (what deleteJobScript removes). A dead job whose id also waits again keeps
// the waiting job's payload and records. The batch is atomic.
//
// KEYS[1]  queue:<name>             KEYS[2]  {queue:<name>}:dead
// KEYS[3]  {queue:<name>}:jobs      KEYS[4]  {queue:<name>}:attempts
// KEYS[5]  {queue:<name>}:scores    KEYS[6]  {queue:<name>}:leases
// KEYS[7]  {queue:<name>}:errors
// ARGV[1]  batch size
// Returns  how many it deleted (fewer than the batch: the dead set is empty now)
var deleteDeadScript = store.NewScript(store.LuaSortedSetGuard + `
local ids = redis.call('ZRANGE', KEYS[2], 0, tonumber(ARGV[1]) - 1)
for _, id in ipairs(ids) do
  redis.call('ZREM', KEYS[2], id)
  if not redis.call('ZSCORE', KEYS[1], id) then
    for i = 3, 7 do redis.call('HDEL', KEYS[i], id) end
  end
end
return #ids
`)

// deadErrorsScript reads the latest deaths of a queue's dead set with their kept errors, for
// grouping by error.
//
// KEYS[1]  queue:<name>  KEYS[2]  {queue:<name>}:dead  KEYS[3]  {queue:<name>}:errors
// ARGV[1]  how many dead jobs at most (the latest deaths)
// Returns  {dead jobs in all, {id, ...} latest death first, {errors JSON or false, ...}}
var deadErrorsScript = store.NewScript(store.LuaSortedSetGuard + `
local ids = redis.call('ZREVRANGE', KEYS[2], 0, tonumber(ARGV[1]) - 1)
local errs = {}
if #ids > 0 then errs = redis.call('HMGET', KEYS[3], unpack(ids)) end
return {redis.call('ZCARD', KEYS[2]), ids, errs}
`)

// giveBackScript returns a job a blocking take (BZPOPMIN, which no script can wrap) popped
// while the queue was paused, to its place, unless it is there again already; the take
// then answers nothing.
//
// KEYS[1]  queue:<name>
// ARGV[1]  score  ARGV[2]  job id
// Returns  1
var giveBackScript = store.NewScript(store.LuaSortedSetGuard + `
redis.call('ZADD', KEYS[1], 'NX', ARGV[1], ARGV[2])
return 1
`)
