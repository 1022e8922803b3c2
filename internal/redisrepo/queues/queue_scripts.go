package queues

import (
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// The queue scripts. Every one touches a queue's keys only, all in the queue's Cluster slot
// (see keys.go). Two clocks, as in the article:
//
//   - Scores and due times come from the caller's clock (domain.Clock, the system clock in
//     production), passed as ARGV, exactly as the article's producers use
//     System.currentTimeMillis() and its worker passes Instant now to POP_DUE: zpulse and the
//     article's services then order and schedule jobs alike.
//   - Lease deadlines and their expiry decide correctness across instances (the reaper of one
//     instance returns the job another leased), so they come from one clock: Redis TIME,
//     read inside the script when the "lease now" ARGV is "" (production), or the injected
//     clock's ms in tests. Completions (see lease_scripts.go) use it too: they are compared
//     across instances.

// popDueScript is the article's POP_DUE (section 4.2) after zpulse's pause check
// (luaPaused), its lines as they are but for the answer, which carries the job's run-at
// beside its id: the earliest job whose run-at is at or before now leaves the delayed queue
// in one atomic step, so two workers never get one job, and its payload is handed over only
// when it was bound to that run-at (boundPayload), as every other take does.
//
// KEYS[1]  queue:<name>  KEYS[2]  {queue:<name>}:paused
// ARGV[1]  now, epoch ms (caller's clock)
// Returns  {id, run-at}, or nil when nothing is due or the queue is paused
var popDueScript = store.NewScript(store.LuaSortedSetGuard + luaPaused + `
if paused(KEYS[2]) then return false end
local jobs = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 1)
if #jobs == 0 then return false end
local score = redis.call('ZSCORE', KEYS[1], jobs[1])
redis.call('ZREM', KEYS[1], jobs[1])
return {jobs[1], score}
`)

// enqueueScript adds a job with the score of its queue's kind, unless that id is already
// waiting, in flight or dead (nothing moves then: a second enqueue never pushes a waiting job
// back or forward), or completed within the retention (see luaComplete), which makes an
// enqueue safe to retry after an answer that did not come back. The kind is read here, in the same atomic step, from the settings hash,
// so every instance scores a queue alike the moment its kind changes. The payload is stored
// beside it bound to this enqueue: "@<score>|<payload>" (see boundPayload), and the second's
// enqueue count grows.
//
// KEYS[1]  queue:<name>           KEYS[2]  {queue:<name>}:processing
// KEYS[3]  {queue:<name>}:jobs    KEYS[4]  {queue:<name>}:dead
// KEYS[5]  {queue:<name>}:settings
// KEYS[6]  {queue:<name>}:tput:<minute>
// KEYS[7]  {queue:<name>}:completed  KEYS[8]  {queue:<name>}:acked
// KEYS[9]  {queue:<name>}:leases     KEYS[10] {queue:<name>}:attempts
// KEYS[11] {queue:<name>}:errors    KEYS[12] {queue:<name>}:retry
// KEYS[13] {queue:<name>}:types
// ARGV[1]  job id
// ARGV[2]  the queue's default kind, when its settings hold none
// ARGV[3]  "1" when a priority was given, "0" when not
// ARGV[4]  priority 0..9
// ARGV[5]  run-at, epoch ms, or ""
// ARGV[6]  delay, ms, or ""
// ARGV[7]  now, epoch ms (caller's clock)
// ARGV[8]  payload JSON, or ""
// ARGV[9]  throughput field of this second ("e<second>")
// ARGV[10] throughput hash's TTL, ms
// ARGV[11] lease now, epoch ms, or "" for Redis TIME (the clock of completions)
// ARGV[12] completed retention, ms
// ARGV[13] the job's type, or "" (none: an older type of that id goes)
// Returns  {1, kind, score}; {code, kind} when refused: -1 the id is waiting, -2 in flight,
// -3 dead, -8 scheduled for a retry, -4 a run-at or delay on a priority queue, -5 no priority on a priority queue,
// -6 a priority on a delayed queue; {-7, kind, completed at ms}: that id completed within
// the retention, so this enqueue is taken for a retry of the one that ran
var enqueueScript = store.NewScript(store.LuaSortedSetGuard + store.LuaNow + LuaEnqueueBody)

// LuaEnqueueBody is enqueueScript's body (after its guard and nowMs), also run inside the
// schedules' fire script as a function of its own KEYS and ARGV (schedules.fireScript), so a
// scheduled job is enqueued by exactly the queue's own rules.
const LuaEnqueueBody = `
local kind = redis.call('HGET', KEYS[5], 'kind')
if kind ~= 'priority' and kind ~= 'delayed' then kind = ARGV[2] end
local score
if kind == 'priority' then
  if ARGV[5] ~= '' or ARGV[6] ~= '' then return {-4, kind} end
  if ARGV[3] ~= '1' then return {-5, kind} end
  score = tonumber(ARGV[4]) * 1e13 + tonumber(ARGV[7])
else
  if ARGV[3] == '1' then return {-6, kind} end
  if ARGV[5] ~= '' then
    score = tonumber(ARGV[5])
  elseif ARGV[6] ~= '' then
    score = tonumber(ARGV[7]) + tonumber(ARGV[6])
  else
    score = tonumber(ARGV[7])
  end
end
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return {-1, kind} end
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then return {-2, kind} end
if redis.call('ZSCORE', KEYS[4], ARGV[1]) then return {-3, kind} end
if redis.call('ZSCORE', KEYS[12], ARGV[1]) then return {-8, kind} end
local done = redis.call('ZSCORE', KEYS[7], ARGV[1])
if done and tonumber(done) > nowMs(ARGV[11]) - tonumber(ARGV[12]) then return {-7, kind, tonumber(done)} end
-- A new job under this id: nothing of an earlier one (its completion, a token a foreign
-- consumer left behind, its attempts and errors) carries over.
if done then redis.call('ZREM', KEYS[7], ARGV[1]) end
for i = 8, 11 do redis.call('HDEL', KEYS[i], ARGV[1]) end
redis.call('ZADD', KEYS[1], score, ARGV[1])
if ARGV[8] ~= '' then
  redis.call('HSET', KEYS[3], ARGV[1], '@' .. string.format('%.17g', score) .. '|' .. ARGV[8])
else
  redis.call('HDEL', KEYS[3], ARGV[1])
end
if ARGV[13] ~= '' then
  redis.call('HSET', KEYS[13], ARGV[1], ARGV[13])
else
  redis.call('HDEL', KEYS[13], ARGV[1])
end
-- The hash's expiry is set by the first count of each second, which is the first of the hash.
if redis.call('HINCRBY', KEYS[6], ARGV[9], 1) == 1 then redis.call('PEXPIRE', KEYS[6], ARGV[10]) end
return {1, kind, score}
`

// pollScript is the article's poll (ZPOPMIN: two consumers never get one job) of a priority
// queue, with, in the same step, what zpulse keeps beside the job (see luaTaken): a job
// taken without a lease is complete as far as the queue knows. One round trip per job.
//
// KEYS[1]  queue:<name>
// KEYS[2]  {queue:<name>}:jobs       KEYS[3]  {queue:<name>}:attempts
// KEYS[4]  {queue:<name>}:scores     KEYS[5]  {queue:<name>}:leases
// KEYS[6]  {queue:<name>}:errors     KEYS[7]  {queue:<name>}:completed
// KEYS[8]  {queue:<name>}:acked      KEYS[9]  {queue:<name>}:tput:<minute>
// KEYS[10] {queue:<name>}:paused     KEYS[11] {queue:<name>}:retry (due retries go back first)
// ARGV[1]  lease now, epoch ms, or "" for Redis TIME
// ARGV[2]  completed retention, ms   ARGV[3]  completed ids kept
// ARGV[4]  throughput field of this second ("c<second>")
// ARGV[5]  throughput hash's TTL, ms
// ARGV[6]  now, epoch ms (caller's clock: when retries are due)
// Returns  {id, score, payload or nil}, or nil when the queue is empty or paused
var pollScript = store.NewScript(store.LuaSortedSetGuard + store.LuaNow + luaTaken + luaPaused + luaPromote + `
promote(KEYS[1], KEYS[11], KEYS[4], tonumber(ARGV[6]))
if paused(KEYS[10]) then return false end
local r = redis.call('ZPOPMIN', KEYS[1])
if #r == 0 then return false end
local payload = taken(KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9], r[1],
  nowMs(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], ARGV[5])
return {r[1], r[2], payload}
`)

// requeueScript puts a dead job back in its queue, due now: a priority queue's job keeps its
// priority (from its kept score) and goes to the back of that priority's line. Its attempts
// start again; its payload is bound to the new score (see boundPayload).
//
// KEYS[1]  queue:<name>             KEYS[2]  {queue:<name>}:dead
// KEYS[3]  {queue:<name>}:attempts  KEYS[4]  {queue:<name>}:scores
// KEYS[5]  {queue:<name>}:settings KEYS[6]  {queue:<name>}:leases
// KEYS[7]  {queue:<name>}:jobs
// ARGV[1]  now, epoch ms (caller's clock)
// ARGV[2]  the queue's default kind
// ARGV[3]  job id
// Returns  {1, score} requeued; {0} the job is not dead; {-1} that id is waiting already
var requeueScript = store.NewScript(store.LuaSortedSetGuard + luaRebind + `
if not redis.call('ZSCORE', KEYS[2], ARGV[3]) then return {0} end
if redis.call('ZSCORE', KEYS[1], ARGV[3]) then return {-1} end
local kind = redis.call('HGET', KEYS[5], 'kind')
if kind ~= 'priority' and kind ~= 'delayed' then kind = ARGV[2] end
local score = tonumber(ARGV[1])
if kind == 'priority' then
  local old = tonumber(redis.call('HGET', KEYS[4], ARGV[3]))
  if old and old >= 0 and old < 1e14 then score = math.floor(old / 1e13) * 1e13 + score end
end
redis.call('ZREM', KEYS[2], ARGV[3])
redis.call('ZADD', KEYS[1], score, ARGV[3])
redis.call('HDEL', KEYS[3], ARGV[3])
redis.call('HDEL', KEYS[4], ARGV[3])
redis.call('HDEL', KEYS[6], ARGV[3])
rebind(KEYS[7], ARGV[3], score)
return {1, score}
`)

// pauseScript pauses a queue: the poll scripts take nothing while its paused key is there.
//
// KEYS[1]  queue:<name>  KEYS[2]  {queue:<name>}:paused
// Returns  1
var pauseScript = store.NewScript(store.LuaSortedSetGuard + `
redis.call('SET', KEYS[2], '1')
return 1
`)

// deleteJobScript removes a job from wherever it is, with everything kept beside it.
//
// KEYS[1]  queue:<name>             KEYS[2]  {queue:<name>}:processing
// KEYS[3]  {queue:<name>}:dead      KEYS[4]  {queue:<name>}:jobs
// KEYS[5]  {queue:<name>}:attempts  KEYS[6]  {queue:<name>}:scores
// KEYS[7]  {queue:<name>}:leases    KEYS[8]  {queue:<name>}:errors
// KEYS[9]  {queue:<name>}:retry     KEYS[10] {queue:<name>}:types
// ARGV[1]  job id
// Returns  "waiting", "processing", "dead" or "scheduled" (retrying): where it was; nil when
// nowhere
var deleteJobScript = store.NewScript(store.LuaSortedSetGuard + `
local where = false
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then where = 'waiting'
elseif redis.call('ZREM', KEYS[2], ARGV[1]) == 1 then where = 'processing'
elseif redis.call('ZREM', KEYS[3], ARGV[1]) == 1 then where = 'dead'
elseif redis.call('ZREM', KEYS[9], ARGV[1]) == 1 then where = 'scheduled' end
if not where then return false end
for i = 4, 8 do redis.call('HDEL', KEYS[i], ARGV[1]) end
redis.call('HDEL', KEYS[10], ARGV[1])
return where
`)

// queueSettingsScript merges a change into a queue's settings: the fields given are saved,
// the others kept, in one step (a read in Go then a write would lose a concurrent change).
// The kind may change only while the queue has no waiting and no leased job: their scores
// would mean something else under the other kind (nor one waiting out a retry delay).
//
// KEYS[1]  queue:<name>  KEYS[2]  {queue:<name>}:processing  KEYS[3]  {queue:<name>}:settings
// KEYS[4]  {queue:<name>}:retry
// ARGV[1]  kind, "" to keep  ARGV[2]  max attempts, "" to keep  ARGV[3]  the queue's default kind
// Returns  {1, kind, max attempts} saved, and the fields as saved now ("" when absent); {-1,
// jobs} the kind would change under that many jobs. The script answers with the saved fields
// itself: a read beside it in the pipeline would run before it when Redis did not know the
// Script (exec resends it afterwards) and answer the old settings.
var queueSettingsScript = store.NewScript(store.LuaSortedSetGuard + `
local kind = redis.call('HGET', KEYS[3], 'kind')
if kind ~= 'priority' and kind ~= 'delayed' then kind = ARGV[3] end
if ARGV[1] ~= '' and kind ~= ARGV[1] then
  local n = redis.call('ZCARD', KEYS[1]) + redis.call('ZCARD', KEYS[2]) + redis.call('ZCARD', KEYS[4])
  if n > 0 then return {-1, n} end
end
if ARGV[1] ~= '' then redis.call('HSET', KEYS[3], 'kind', ARGV[1]) end
if ARGV[2] ~= '' then redis.call('HSET', KEYS[3], 'max_attempts', ARGV[2]) end
return {1, redis.call('HGET', KEYS[3], 'kind') or '', redis.call('HGET', KEYS[3], 'max_attempts') or ''}
`)

// queueViewScript reads everything of a queue's page but its settings and throughput: the
// depths, each priority lane's count and oldest job, the due count and next due jobs, the head,
// and the first in-flight and dead jobs with their delivery counts. A read-only script on one
// slot, so the watcher's pipeline sends one command for what took 26 (it still runs those
// reads inside Redis; what it saves is the per-command parsing, replies and client work).
// Both kinds' reads are made, since the kind may be the name's default rather than stored.
//
// KEYS[1]  queue:<name>                KEYS[2]  {queue:<name>}:processing
// KEYS[3]  {queue:<name>}:dead         KEYS[4]  {queue:<name>}:attempts
// KEYS[5]  {queue:<name>}:retry        KEYS[6]  {queue:<name>}:scores
// ARGV[1]  now ms (cut to the second)  ARGV[2]  how many jobs of each list
// ARGV[3]  lanes (MaxPriority+1)       ARGV[4]  domain.PriorityFactor
// Returns  {waiting, processing, dead, due, {count per lane}, {oldest score per lane or ”},
// {id, score, ...} due next, {id, score, ...} head, {id, deadline ms, attempts, ...} in flight
// (soonest first), {id, died ms, attempts, ...} dead (latest first), retrying, {id, returns
// at ms, attempts, kept score or "", ...} retrying (soonest first; see queue_retry.go)}
var queueViewScript = store.NewScript(store.LuaSortedSetGuard + `
local now, n, lanes, f = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local counts, oldest = {}, {}
for p = 0, lanes - 1 do
  local lo, hi = string.format('%d', p * f), string.format('(%d', (p + 1) * f)
  counts[#counts + 1] = redis.call('ZCOUNT', KEYS[1], lo, hi)
  local h = redis.call('ZRANGEBYSCORE', KEYS[1], lo, hi, 'WITHSCORES', 'LIMIT', 0, 1)
  oldest[#oldest + 1] = h[2] or ''
end
local function withAttempts(r, kept)
  local list = {}
  for j = 1, #r, 2 do
    list[#list + 1] = r[j]
    list[#list + 1] = r[j + 1]
    list[#list + 1] = redis.call('HGET', KEYS[4], r[j]) or '0'
    if kept then list[#list + 1] = redis.call('HGET', KEYS[6], r[j]) or '' end
  end
  return list
end
return {
  redis.call('ZCARD', KEYS[1]), redis.call('ZCARD', KEYS[2]), redis.call('ZCARD', KEYS[3]),
  redis.call('ZCOUNT', KEYS[1], '-inf', now), counts, oldest,
  redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf', 'WITHSCORES', 'LIMIT', 0, n),
  redis.call('ZRANGE', KEYS[1], 0, n - 1, 'WITHSCORES'),
  withAttempts(redis.call('ZRANGE', KEYS[2], 0, n - 1, 'WITHSCORES')),
  withAttempts(redis.call('ZREVRANGE', KEYS[3], 0, n - 1, 'WITHSCORES')),
  redis.call('ZCARD', KEYS[5]), withAttempts(redis.call('ZRANGE', KEYS[5], 0, n - 1, 'WITHSCORES'), true)}
`)

// luaRebind defines rebind(jobs key, id, score): a job of ours whose score zpulse itself
// moves (a requeue, a delayed nack) keeps its payload, bound to the new score (see
// bindPayload). Payloads stored before the binding get bound too.
const luaRebind = `
local function rebind(jkey, id, score)
  local payload = redis.call('HGET', jkey, id)
  if payload then
    local body = string.match(payload, '^@[^|]*|(.*)$') or payload
    redis.call('HSET', jkey, id, '@' .. string.format('%.17g', score) .. '|' .. body)
  end
end
`

// orphanSweepScript finds payloads that belong to no job and removes them after a grace
// period. A payload is an orphan when its id is not waiting, in flight or dead (a foreign
// consumer took the job with ZPOPMIN and nothing acks it), or when the waiting job under its
// id has another score than the one the payload was bound to at enqueue (a foreign producer
// re-added the id: a new job, which must not receive the old payload). An orphan is stamped
// in the orphans set when first seen, counted there by the queue page, and removed once it has
// been an orphan for the grace period; a payload whose job comes back (a zpulse re-enqueue
// rebinds it) leaves the set. One HSCAN step of the payloads per call.
//
// KEYS[1]  queue:<name>            KEYS[2]  {queue:<name>}:processing
// KEYS[3]  {queue:<name>}:dead     KEYS[4]  {queue:<name>}:jobs
// KEYS[5]  {queue:<name>}:orphans    KEYS[6]  {queue:<name>}:retry (a retrying job's payload is its own)
// ARGV[1]  now, epoch ms, or "" for Redis TIME (the lease clock)
// ARGV[2]  grace period, ms
// ARGV[3]  HSCAN cursor ("0" to start)
// ARGV[4]  HSCAN COUNT
// Returns  {next cursor ("0" when the pass is over), payloads removed}
var orphanSweepScript = store.NewScript(store.LuaSortedSetGuard + store.LuaNow + `
local now = nowMs(ARGV[1])
local grace = tonumber(ARGV[2])
if ARGV[3] == '0' then -- a new pass: forget orphans whose payload went another way
  for _, id in ipairs(redis.call('ZRANGE', KEYS[5], 0, -1)) do
    if redis.call('HEXISTS', KEYS[4], id) == 0 then redis.call('ZREM', KEYS[5], id) end
  end
end
local r = redis.call('HSCAN', KEYS[4], ARGV[3], 'COUNT', tonumber(ARGV[4]))
local fields, removed = r[2], 0
for i = 1, #fields, 2 do
  local id, v = fields[i], fields[i + 1]
  local orphan = false
  local waiting = redis.call('ZSCORE', KEYS[1], id)
  if waiting then
    local bound = string.match(v, '^@([^|]*)|')
    orphan = bound ~= nil and tonumber(bound) ~= tonumber(waiting)
  else
    orphan = not redis.call('ZSCORE', KEYS[2], id) and not redis.call('ZSCORE', KEYS[3], id)
      and not redis.call('ZSCORE', KEYS[6], id)
  end
  if not orphan then
    redis.call('ZREM', KEYS[5], id)
  else
    local seen = redis.call('ZSCORE', KEYS[5], id)
    if not seen then
      redis.call('ZADD', KEYS[5], now, id)
    elseif now - tonumber(seen) >= grace then
      redis.call('HDEL', KEYS[4], id)
      redis.call('ZREM', KEYS[5], id)
      removed = removed + 1
    end
  end
end
return {r[1], removed}
`)
