package queues

import (
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// The scripts of leased delivery (at-least-once): lease, ack, extend, nack, reap, and the
// completion record that makes an enqueue safe to retry. Every one touches one queue's keys
// only, all in the queue's Cluster slot (see keys.go); lease times come from the lease clock
// (see queue_scripts.go).
//
// A lease is a job id in the processing set, scored by its deadline, and a random token in
// the leases hash. Ack, extend and nack must show the token: a consumer whose lease ended
// (deadline passed, the reaper gave the job back, or it went to another consumer) cannot end
// or stretch the lease of the consumer that has the job now. Model: asynq's lease set and
// ExtendLease (internal/rdb), with a token per lease because zpulse's consumers are anyone
// with the API, not one server process that owns its workers.

// The Lua functions below are shared by several scripts: each script's source is the
// functions it uses followed by its body, so each is written once.

// luaLeaseCheck defines leaseCheck(processing, leases, completed, acked, id, token, now,
// retention): nil when token holds a live lease on id, else the refusal, nothing changed:
//
//	{0}            the job is not in flight and nothing is known of token
//	{-1, deadline} the job is in flight under another token (the lease passed on)
//	{-2, deadline} token's lease ended at deadline; the reaper has not given the job back yet
//	{-3}           token's lease ended and the job was given back (reaper or nack)
//	{-4, at}       the job was completed at `at` by another consumer
//	{-5, at}       the job was completed at `at` by the ack of this very token
const luaLeaseCheck = `
local function leaseCheck(pkey, lkey, ckey, akey, id, token, now, retention)
  local deadline = redis.call('ZSCORE', pkey, id)
  local held = redis.call('HGET', lkey, id)
  if deadline then
    deadline = tonumber(deadline)
    if held ~= token then return {-1, deadline} end
    if deadline <= now then return {-2, deadline} end
    return nil
  end
  local done = redis.call('ZSCORE', ckey, id)
  if done and tonumber(done) > now - retention then
    if redis.call('HGET', akey, id) == token then return {-5, tonumber(done)} end
    return {-4, tonumber(done)}
  end
  if held == token then return {-3} end
  return {0}
end
`

// luaComplete defines complete(completed, acked, id, token, now, retention, kept): records id
// as completed at now by token ("" without a lease: no token is recorded), then trims the record to what completed
// within retention and to its newest kept ids. Each call removes at most 100 of each, so a
// call stays short; every completion trims, so the record never outgrows kept by more than
// one. Each key expires retention after its last write: what it holds is older.
const luaComplete = `
local function complete(ckey, akey, id, token, now, retention, kept)
  redis.call('ZADD', ckey, now, id)
  if token ~= '' then redis.call('HSET', akey, id, token) end
  for _, old in ipairs(redis.call('ZRANGEBYSCORE', ckey, '-inf', now - retention, 'LIMIT', 0, 100)) do
    redis.call('ZREM', ckey, old)
    redis.call('HDEL', akey, old)
  end
  local over = redis.call('ZCARD', ckey) - kept
  if over > 0 then
    local popped = redis.call('ZPOPMIN', ckey, math.min(over, 100))
    for i = 1, #popped, 2 do redis.call('HDEL', akey, popped[i]) end
  end
  redis.call('PEXPIRE', ckey, retention)
  if token ~= '' then redis.call('PEXPIRE', akey, retention) end -- every token it holds is older
end
`

// luaKeepDone defines keepDone(done, info, payloads, types, id, now, info, withPayload,
// payload, type, keep, maxAge): keeps id as completed at now for operators
// (domain.CompletedPolicy), with its info ("<ms>|<attempts>|<consumer>"), its type (only a
// typed job's, kept in the done types hash; an untyped one's clears any older one of that
// id) and, withPayload, its payload (none: any older one of that id goes), then trims the record to its keep newest and to what completed within
// maxAge. The trim is bounded: the count trim pops what is over (1 once the record is full; at most 100 a call),
// the age trim at most 100 ids a call (every ack makes one, so the record never lags);
// each key expires maxAge after the last ack, when all it holds is older.
const luaKeepDone = `
local function keepDone(dkey, ikey, pkey, tkey, id, now, info, withPayload, payload, jobType, keep, maxAge)
  redis.call('ZADD', dkey, now, id)
  redis.call('HSET', ikey, id, info)
  if jobType then
    redis.call('HSET', tkey, id, jobType)
    redis.call('PEXPIRE', tkey, maxAge)
  else
    redis.call('HDEL', tkey, id)
  end
  if withPayload then
    if payload then redis.call('HSET', pkey, id, payload) else redis.call('HDEL', pkey, id) end
  end
  local gone = redis.call('ZRANGEBYSCORE', dkey, '-inf', now - maxAge, 'LIMIT', 0, 100)
  local over = redis.call('ZCARD', dkey) - #gone - keep
  if #gone > 0 then redis.call('ZREM', dkey, unpack(gone)) end
  if over > 0 then
    local popped = redis.call('ZPOPMIN', dkey, math.min(over, 100))
    for i = 1, #popped, 2 do gone[#gone + 1] = popped[i] end
  end
  if #gone > 0 then
    redis.call('HDEL', ikey, unpack(gone))
    redis.call('HDEL', tkey, unpack(gone))
    if withPayload then redis.call('HDEL', pkey, unpack(gone)) end
  end
  redis.call('PEXPIRE', dkey, maxAge)
  redis.call('PEXPIRE', ikey, maxAge)
  if withPayload then redis.call('PEXPIRE', pkey, maxAge) end
end
`

// luaAddError defines addError(errors, id, attempt, at, msg, kept, duration): appends
// {attempt, at, error, duration_ms} to the job's JSON list of attempt errors, keeping the
// last kept (duration_ms, the attempt's ms from its lease, is left out when nil). A damaged
// list starts again.
const luaAddError = `
local function addError(ekey, id, attempt, at, msg, kept, duration)
  local list = {}
  local ok, old = pcall(cjson.decode, redis.call('HGET', ekey, id) or '[]')
  if ok and type(old) == 'table' then list = old end
  local entry = {attempt = attempt, at = at, error = msg}
  if type(duration) == 'number' then entry.duration_ms = duration end
  list[#list + 1] = entry
  while #list > kept do table.remove(list, 1) end
  redis.call('HSET', ekey, id, cjson.encode(list))
end
`

// luaTaken defines taken(jobs, attempts, scores, leases, errors, completed, acked, tput, id,
// now, retention, kept, field, ttl): what follows a take without a lease (the job is
// complete as far as the queue knows): everything kept beside the job leaves with it and its
// payload is returned, the job is recorded as completed, and the second's completed count
// grows.
const luaTaken = luaComplete + `
local function taken(jkey, atkey, skey, lkey, ekey, ckey, akey, tkey, id, now, retention, kept, field, ttl)
  local payload = redis.call('HGET', jkey, id)
  for _, k in ipairs({jkey, atkey, skey, lkey, ekey}) do redis.call('HDEL', k, id) end
  complete(ckey, akey, id, '', now, retention, kept)
  if redis.call('HINCRBY', tkey, field, 1) == 1 then redis.call('PEXPIRE', tkey, ttl) end -- a new second (maybe a new hash)
  return payload
end
`

// leaseScript closes the gap the article warns about ("after the pop the job has left Redis;
// if the worker dies half-way, the job is lost"): the job leaves the queue and enters the
// processing set, scored by its lease deadline, in one atomic step, so at every instant it is
// in one of the two. Its queue score is kept (to return it to its place), its delivery count
// grows, and the lease's token replaces any earlier one.
//
// KEYS[1]  queue:<name>             KEYS[2]  {queue:<name>}:processing
// KEYS[3]  {queue:<name>}:jobs      KEYS[4]  {queue:<name>}:attempts
// KEYS[5]  {queue:<name>}:scores    KEYS[6]  {queue:<name>}:leases
// KEYS[7]  {queue:<name>}:paused    KEYS[8]  {queue:<name>}:retry (due retries go back first)
// KEYS[9]  {queue:<name>}:holders   KEYS[10] {queue:<name>}:consumers
// KEYS[11] {queue:<name>}:types
// ARGV[1]  "" for a priority queue (the lowest score, as ZPOPMIN); for a delayed queue, now
// in epoch ms (caller's clock): the earliest job due by then, as POP_DUE
// ARGV[2]  lease now, epoch ms, or "" for Redis TIME
// ARGV[3]  lease, ms
// ARGV[4]  the lease's token
// ARGV[5]  now, epoch ms (caller's clock: when retries are due)
// ARGV[6]  the consumer (domain.ConsumerID; "" records none)
// ARGV[7]  consumers' TTL, ms        ARGV[8]  holders' TTL, ms
// ARGV[9]  consumers kept
// Returns  {id, score, deadline ms, attempt, payload or nil, type or nil}, or nil when no job is there or
// due, or the queue is paused (the consumer's poll is recorded either way)
var leaseScript = store.NewScript(store.LuaSortedSetGuard + store.LuaNow + luaPaused + luaPromote + luaConsumerSeen + `
promote(KEYS[1], KEYS[8], KEYS[5], tonumber(ARGV[5]))
local now = nowMs(ARGV[2])
consumerSeen(KEYS[10], ARGV[6], now, tonumber(ARGV[7]), tonumber(ARGV[9]))
if paused(KEYS[7]) then return false end
local id, score
if ARGV[1] == '' then
  local r = redis.call('ZPOPMIN', KEYS[1])
  if #r == 0 then return false end
  id, score = r[1], r[2]
else
  local r = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, 1)
  if #r == 0 then return false end
  redis.call('ZREM', KEYS[1], r[1])
  id, score = r[1], r[2]
end
local deadline = now + tonumber(ARGV[3])
redis.call('ZADD', KEYS[2], deadline, id)
redis.call('HSET', KEYS[5], id, score)
redis.call('HSET', KEYS[6], id, ARGV[4])
redis.call('HSET', KEYS[9], id, now .. '|' .. ARGV[6])
redis.call('PEXPIRE', KEYS[9], ARGV[8])
local attempt = redis.call('HINCRBY', KEYS[4], id, 1)
return {id, score, deadline, attempt, redis.call('HGET', KEYS[3], id), redis.call('HGET', KEYS[11], id)}
`)

// ackScript completes a leased job when token holds its live lease: it leaves the processing
// set with everything kept beside it, is recorded as completed (see luaComplete), and the
// second's completed count grows; its lease-to-ack time is counted (luaRecordDuration) and
// the ack counted for the lease's consumer (luaConsumerCount).
//
// KEYS[1]  {queue:<name>}:processing KEYS[2]  {queue:<name>}:jobs
// KEYS[3]  {queue:<name>}:attempts   KEYS[4]  {queue:<name>}:scores
// KEYS[5]  {queue:<name>}:leases     KEYS[6]  {queue:<name>}:errors
// KEYS[7]  {queue:<name>}:completed  KEYS[8]  {queue:<name>}:acked
// KEYS[9]  {queue:<name>}:tput:<minute>
// ARGV[1]  job id                    ARGV[2]  token
// ARGV[3]  lease now, epoch ms, or "" for Redis TIME
// ARGV[4]  completed retention, ms   ARGV[5]  completed ids kept
// ARGV[6]  throughput field of this second ("c<second>")
// ARGV[7]  throughput hash's TTL, ms (also the minute's durations' and consumer counts')
// KEYS[10] {queue:<name>}:holders    KEYS[11] {queue:<name>}:dur:<minute>
// KEYS[12] {queue:<name>}:dur        KEYS[13] {queue:<name>}:cstats:<minute>
// ARGV[8]  the 10 s part of the minute (0..5)
// KEYS[14] {queue:<name>}:done       KEYS[15] {queue:<name>}:done:info
// KEYS[16] {queue:<name>}:done:payloads
// KEYS[17] {queue:<name>}:types      KEYS[18] {queue:<name>}:done:types
// ARGV[9]  completed jobs kept (domain.CompletedPolicy.Keep; 0: none)
// ARGV[10] their max age, ms         ARGV[11] "1": keep their payloads
// The job is also kept as completed for operators (luaKeepDone): its attempts, lease-to-ack
// time, consumer, type (moved from the types hash to the done one) and, with ARGV[11], its
// payload.
// Returns  {1} acked; a leaseCheck refusal otherwise ({-5, at}: acked before by this token)
var ackScript = store.NewScript(store.LuaNow + luaLeaseCheck + luaComplete + luaHolder + luaRecordDuration + luaConsumerCount + luaKeepDone + `
local now = nowMs(ARGV[3])
local refused = leaseCheck(KEYS[1], KEYS[5], KEYS[7], KEYS[8], ARGV[1], ARGV[2], now, tonumber(ARGV[4]))
if refused then return refused end
local keep, attempts, payload = tonumber(ARGV[9]), false, false
if keep > 0 then
  attempts = redis.call('HGET', KEYS[3], ARGV[1])
  if ARGV[11] == '1' then payload = redis.call('HGET', KEYS[2], ARGV[1]) end
end
redis.call('ZREM', KEYS[1], ARGV[1])
for i = 2, 6 do redis.call('HDEL', KEYS[i], ARGV[1]) end
local jobType = redis.call('HGET', KEYS[17], ARGV[1])
if jobType then redis.call('HDEL', KEYS[17], ARGV[1]) end
complete(KEYS[7], KEYS[8], ARGV[1], ARGV[2], now, tonumber(ARGV[4]), tonumber(ARGV[5]))
if redis.call('HINCRBY', KEYS[9], ARGV[6], 1) == 1 then redis.call('PEXPIRE', KEYS[9], ARGV[7]) end
local start, consumer = releaseHolder(KEYS[10], ARGV[1])
local took = start and math.max(now - start, 0)
if took then recordDuration(KEYS[11], KEYS[12], took, ARGV[8], ARGV[7]) end
consumerCount(KEYS[13], 'a', consumer, ARGV[7], took)
if keep > 0 then
  keepDone(KEYS[14], KEYS[15], KEYS[16], KEYS[18], ARGV[1], now, (took or '') .. '|' .. (attempts or '') .. '|' .. consumer,
    ARGV[11] == '1', payload, jobType, keep, tonumber(ARGV[10]))
end
return {1}
`)

// extendScript is the heartbeat: when token holds a live lease, its deadline becomes now +
// lease (asynq's ExtendLease, for one job and its token).
//
// KEYS[1]  {queue:<name>}:processing KEYS[2]  {queue:<name>}:leases
// KEYS[3]  {queue:<name>}:completed  KEYS[4]  {queue:<name>}:acked
// ARGV[1]  job id                    ARGV[2]  token
// ARGV[3]  lease now, epoch ms, or "" for Redis TIME
// ARGV[4]  lease, ms                 ARGV[5]  completed retention, ms
// Returns  {1, new deadline ms}; a leaseCheck refusal otherwise
var extendScript = store.NewScript(store.LuaNow + luaLeaseCheck + `
local now = nowMs(ARGV[3])
local refused = leaseCheck(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1], ARGV[2], now, tonumber(ARGV[5]))
if refused then return refused end
local deadline = now + tonumber(ARGV[4])
redis.call('ZADD', KEYS[1], 'XX', deadline, ARGV[1])
return {1, deadline}
`)

// nackScript gives a leased job back when token holds its live lease: the delivery counts as
// an attempt (the lease counted it) and its error is kept; then, once the job was delivered
// max_attempts times, it goes to the dead set (as the reaper does); else back into its queue
// with the score it had (first in line again), or, with a delay, due delay after now: on a
// delayed queue that is its new score; a priority queue's job waits in the retry set until
// then, its score kept (see queue_retry.go). The token stays in the leases hash, so using it
// again is told the lease ended. The second's failed count grows (the history's "failed").
//
// KEYS[1]  queue:<name>              KEYS[2]  {queue:<name>}:processing
// KEYS[3]  {queue:<name>}:attempts   KEYS[4]  {queue:<name>}:scores
// KEYS[5]  {queue:<name>}:leases     KEYS[6]  {queue:<name>}:errors
// KEYS[7]  {queue:<name>}:completed  KEYS[8]  {queue:<name>}:acked
// KEYS[9]  {queue:<name>}:dead       KEYS[10] {queue:<name>}:settings
// KEYS[11] {queue:<name>}:tput:<minute>
// KEYS[12] {queue:<name>}:jobs (a delay moves the score: the payload is bound to the new one)
// KEYS[13] {queue:<name>}:retry
// ARGV[1]  job id                    ARGV[2]  token
// ARGV[3]  lease now, epoch ms, or "" for Redis TIME
// ARGV[4]  completed retention, ms
// ARGV[5]  delay, ms (0: none)       ARGV[6]  now, epoch ms (caller's clock, for scores)
// ARGV[7]  error message             ARGV[8]  max attempts when the settings hold none
// ARGV[9]  attempt errors kept       ARGV[10] the queue's default kind
// ARGV[11] throughput field of this second ("f<second>")
// ARGV[12] throughput hash's TTL, ms (also the minute's consumer counts')
// KEYS[14] {queue:<name>}:holders    KEYS[15] {queue:<name>}:cstats:<minute>
// The attempt's error keeps its duration from the lease; the nack counts for the lease's
// consumer.
// Returns  {1, attempts, score} back in the queue; {3, attempts, returns at ms} in the retry
// set; {2, attempts} dead; a leaseCheck refusal otherwise
var nackScript = store.NewScript(store.LuaSortedSetGuard + store.LuaNow + luaLeaseCheck + luaAddError + luaRebind + luaHolder + luaConsumerCount + `
local kind = redis.call('HGET', KEYS[10], 'kind')
if kind ~= 'priority' and kind ~= 'delayed' then kind = ARGV[10] end
local delay = tonumber(ARGV[5])
local now = nowMs(ARGV[3])
local refused = leaseCheck(KEYS[2], KEYS[5], KEYS[7], KEYS[8], ARGV[1], ARGV[2], now, tonumber(ARGV[4]))
if refused then return refused end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HINCRBY', KEYS[11], ARGV[11], 1)
redis.call('PEXPIRE', KEYS[11], ARGV[12])
local attempts = tonumber(redis.call('HGET', KEYS[3], ARGV[1])) or 0
local start, consumer = releaseHolder(KEYS[14], ARGV[1])
consumerCount(KEYS[15], 'n', consumer, ARGV[12], nil)
addError(KEYS[6], ARGV[1], attempts, now, ARGV[7], tonumber(ARGV[9]), start and math.max(now - start, 0))
local max = tonumber(redis.call('HGET', KEYS[10], 'max_attempts')) or tonumber(ARGV[8])
if attempts >= max then
  redis.call('ZADD', KEYS[9], now, ARGV[1])
  return {2, attempts}
end
local score = tonumber(redis.call('HGET', KEYS[4], ARGV[1])) or tonumber(ARGV[6])
if delay > 0 and kind == 'priority' then
  local due = tonumber(ARGV[6]) + delay
  redis.call('HSET', KEYS[4], ARGV[1], score)
  redis.call('ZADD', KEYS[13], due, ARGV[1])
  return {3, attempts, due}
end
if delay > 0 then
  score = tonumber(ARGV[6]) + delay
  rebind(KEYS[12], ARGV[1], score)
end
redis.call('ZADD', KEYS[1], 'NX', score, ARGV[1])
redis.call('HDEL', KEYS[4], ARGV[1])
return {1, attempts, score}
`)

// reapScript returns a queue's jobs whose lease ended: back into the queue with the score
// they had (a job first in line is first again), or, once delivered max_attempts times, into
// the dead set; either way the attempt's error says the lease ended. A job that another
// service leased without keeping its score goes back due now. The tokens stay in the leases
// hash, so a late ack is told its lease ended. At most ARGV[3] jobs per call, so one call
// never holds Redis for long. Each job whose lease ended counts as failed in the second's
// throughput (the history's "failed").
//
// KEYS[1]  queue:<name>             KEYS[2]  {queue:<name>}:processing
// KEYS[3]  {queue:<name>}:attempts  KEYS[4]  {queue:<name>}:scores
// KEYS[5]  {queue:<name>}:dead      KEYS[6]  {queue:<name>}:settings
// KEYS[7]  {queue:<name>}:errors
// KEYS[8]  {queue:<name>}:reaper    the highest reaper fence seen
// KEYS[9]  {queue:<name>}:tput:<minute>
// ARGV[1]  now, epoch ms, or "" for Redis TIME (the lease clock)
// ARGV[2]  max attempts when the settings hold none
// ARGV[3]  the most jobs to handle
// ARGV[4]  attempt errors kept       ARGV[5]  the error of an attempt whose lease ended
// ARGV[6]  the reaper's fencing token (its singleton lock's); a lower one than KEYS[8]
// holds is refused, so two reapers never reap one queue in turn after a handover
// ARGV[7]  throughput field of this second ("f<second>")
// ARGV[8]  throughput hash's TTL, ms
// KEYS[10] {queue:<name>}:holders: the attempt's error keeps its duration from the lease
// Returns  {returned, died, 1 when it stopped at the limit (call again) else 0};
// {-1, the fence seen} when ARGV[6] is stale (nothing changes)
var reapScript = store.NewScript(store.LuaSortedSetGuard + store.LuaNow + luaAddError + luaHolder + `
local fence, seen = tonumber(ARGV[6]), tonumber(redis.call('GET', KEYS[8]) or '0')
if fence < seen then return {-1, seen} end
if fence > seen then redis.call('SET', KEYS[8], ARGV[6]) end
local now = nowMs(ARGV[1])
local max = tonumber(redis.call('HGET', KEYS[6], 'max_attempts')) or tonumber(ARGV[2])
local ids = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))
local back, died = 0, 0
for _, id in ipairs(ids) do
  redis.call('ZREM', KEYS[2], id)
  local attempts = tonumber(redis.call('HGET', KEYS[3], id)) or 0
  local start = releaseHolder(KEYS[10], id)
  addError(KEYS[7], id, attempts, now, ARGV[5], tonumber(ARGV[4]), start and math.max(now - start, 0))
  if attempts >= max then
    redis.call('ZADD', KEYS[5], now, id)
    died = died + 1
  else
    local score = redis.call('HGET', KEYS[4], id) or now
    redis.call('ZADD', KEYS[1], 'NX', score, id)
    redis.call('HDEL', KEYS[4], id)
    back = back + 1
  end
end
if #ids > 0 then
  redis.call('HINCRBY', KEYS[9], ARGV[7], #ids)
  redis.call('PEXPIRE', KEYS[9], ARGV[8])
end
local more = 0
if #ids == tonumber(ARGV[3]) then more = 1 end
return {back, died, more}
`)

// takenScript finishes a take without a lease that a plain command made (POP_DUE, BZPOPMIN):
// see luaTaken. The job is the caller's alone already, so this second step changes nothing
// for anyone else.
//
// KEYS[1]  {queue:<name>}:jobs       KEYS[2]  {queue:<name>}:attempts
// KEYS[3]  {queue:<name>}:scores     KEYS[4]  {queue:<name>}:leases
// KEYS[5]  {queue:<name>}:errors     KEYS[6]  {queue:<name>}:completed
// KEYS[7]  {queue:<name>}:acked      KEYS[8]  {queue:<name>}:tput:<minute>
// ARGV[1]  job id
// ARGV[2]  lease now, epoch ms, or "" for Redis TIME
// ARGV[3]  completed retention, ms   ARGV[4]  completed ids kept
// ARGV[5]  throughput field of this second ("c<second>")
// ARGV[6]  throughput hash's TTL, ms
// Returns  the payload, or nil when none
var takenScript = store.NewScript(store.LuaNow + luaTaken + `
return taken(KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], ARGV[1],
  nowMs(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5], ARGV[6])
`)
