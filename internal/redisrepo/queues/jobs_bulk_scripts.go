package queues

import "github.com/zpulse/zpulse/internal/redisrepo/store"

// The scripts of what operators do with many jobs at once (bulk actions) and with a dead job
// before its retry. Each touches one queue's keys only, all in the queue's Cluster slot (see
// keys.go), and checks the queue's key type first (store.LuaSortedSetGuard).

// luaRequeueOne defines requeueOne(queue, dead, attempts, scores, leases, jobs, id, score):
// a dead job goes back to its queue at score, its attempts, kept score and lease forgotten,
// its payload bound to the new score (luaRebind); and keptPriority(scores, id): the priority
// of the queue score a dead job keeps, or nil when it keeps none in the article's encoding.
const luaRequeueOne = luaRebind + `
local function keptPriority(skey, id)
  local old = tonumber(redis.call('HGET', skey, id))
  if old and old >= 0 and old < 1e14 then return math.floor(old / 1e13) end
  return nil
end
local function requeueOne(qkey, dkey, atkey, skey, lkey, jkey, id, score)
  redis.call('ZREM', dkey, id)
  redis.call('ZADD', qkey, score, id)
  for _, k in ipairs({atkey, skey, lkey}) do redis.call('HDEL', k, id) end
  rebind(jkey, id, score)
end
`

// bulkJobsScript does one action to a batch of jobs, each in the state it has now, in one
// atomic step (see domain.BulkAction):
//
//   - requeue: a dead job back to its queue due now, as requeueScript (a priority queue's job
//     keeps its priority); a job that is not dead fails wrong_state, a dead job whose id
//     also waits fails conflict.
//   - delete: a job wherever it is, with everything kept beside it, as deleteJobScript.
//   - dead: a waiting (or scheduled) or in-flight job to the dead set, died now by the lease
//     clock (as the reaper's deaths); it keeps its queue score (a requeue restores its
//     priority), a leased job loses its lease (its consumer's ack then fails), and ARGV[6] is
//     kept as the error of that attempt; a dead job fails wrong_state (conflict when its id
//     also waits or is in flight).
//
// A job that is nowhere fails not_found.
//
// KEYS[1]  queue:<name>             KEYS[2]  {queue:<name>}:processing
// KEYS[3]  {queue:<name>}:dead      KEYS[4]  {queue:<name>}:jobs
// KEYS[5]  {queue:<name>}:attempts  KEYS[6]  {queue:<name>}:scores
// KEYS[7]  {queue:<name>}:leases    KEYS[8]  {queue:<name>}:errors
// KEYS[9]  {queue:<name>}:settings
// ARGV[1]  "requeue", "delete" or "dead"
// ARGV[2]  now, epoch ms (caller's clock: requeued scores)
// ARGV[3]  the queue's default kind
// ARGV[4]  lease now, epoch ms, or "" for Redis TIME (time of death)
// ARGV[5]  errors kept per job
// ARGV[6]  the error kept for a job moved to the dead set
// ARGV[7…] job ids
// Returns  {done, kind, {id, reason, where, score, ...}}: the failed jobs, where being
// "waiting", "processing", "dead" or "" and score the waiting score or ""
var bulkJobsScript = store.NewScript(store.LuaSortedSetGuard + store.LuaNow + luaAddError + luaRequeueOne + `
local kind = redis.call('HGET', KEYS[9], 'kind')
if kind ~= 'priority' and kind ~= 'delayed' then kind = ARGV[3] end
local action, now, kept = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[5])
local died = nil
local done, failed = 0, {}
local function fail(id, reason, where, score)
  for _, v in ipairs({id, reason, where, score or ''}) do failed[#failed + 1] = v end
end
for i = 7, #ARGV do
  local id = ARGV[i]
  local ws = redis.call('ZSCORE', KEYS[1], id)
  local ps = redis.call('ZSCORE', KEYS[2], id)
  local ds = redis.call('ZSCORE', KEYS[3], id)
  local where = (ws and 'waiting') or (ps and 'processing') or (ds and 'dead') or ''
  if where == '' then
    fail(id, 'not_found', '')
  elseif action == 'delete' then
    redis.call('ZREM', KEYS[({waiting = 1, processing = 2, dead = 3})[where]], id)
    for k = 4, 8 do redis.call('HDEL', KEYS[k], id) end
    done = done + 1
  elseif action == 'requeue' then
    if not ds then
      fail(id, 'wrong_state', where, ws)
    elseif ws then
      fail(id, 'conflict', 'dead')
    else
      local score = now + (kind == 'priority' and (keptPriority(KEYS[6], id) or 0) * 1e13 or 0)
      requeueOne(KEYS[1], KEYS[3], KEYS[5], KEYS[6], KEYS[7], KEYS[4], id, score)
      done = done + 1
    end
  elseif ds then
    fail(id, (ws or ps) and 'conflict' or 'wrong_state', 'dead')
  else
    if ws then
      redis.call('ZREM', KEYS[1], id)
      redis.call('HSET', KEYS[6], id, ws)
    else
      redis.call('ZREM', KEYS[2], id)
      redis.call('HDEL', KEYS[7], id)
    end
    died = died or nowMs(ARGV[4])
    redis.call('ZADD', KEYS[3], died, id)
    addError(KEYS[8], id, tonumber(redis.call('HGET', KEYS[5], id)) or 0, died, ARGV[6], kept)
    done = done + 1
  end
end
return {done, kind, failed}
`)

// retryScript requeues a dead job as requeueScript does, after an operator's change: a new
// payload (or none), a new priority (priority queue), a run-at (delayed queue; due now
// otherwise). What changed is kept in the job's history: an entry of its errors list with
// the attempt it died at, the time, no error and the edit.
//
// KEYS[1]  queue:<name>             KEYS[2]  {queue:<name>}:dead
// KEYS[3]  {queue:<name>}:attempts  KEYS[4]  {queue:<name>}:scores
// KEYS[5]  {queue:<name>}:settings  KEYS[6]  {queue:<name>}:leases
// KEYS[7]  {queue:<name>}:jobs      KEYS[8]  {queue:<name>}:errors
// KEYS[9]  {queue:<name>}:processing KEYS[10] {queue:<name>}:retry
// ARGV[1]  now, epoch ms (caller's clock)
// ARGV[2]  the queue's default kind
// ARGV[3]  job id
// ARGV[4]  new priority, or "" to keep it
// ARGV[5]  run-at, epoch ms, or "" for due now    ARGV[6]  the run-at as the history says it
// ARGV[7]  "1" when a payload is given            ARGV[8]  the payload JSON ("" for none)
// ARGV[9]  lease now, epoch ms, or "" for Redis TIME (the history's time)
// ARGV[10] errors kept per job
// ARGV[11] with a payload, what changed in it (domain.SummarizePayloadChanges; "" if nothing)
// ARGV[12] "1" when the job had a stored payload as ARGV[13] when that summary was made
// ARGV[13] that stored payload ("@<score>|<payload>", as the jobs hash holds it)
// Returns  {1, kind, score, edit}; {0} the job is not in the queue at all; {-1} that id
// waits again beside its dead one; {-2, state} the job is not dead but "waiting" (or
// scheduled), "in_flight" or "retrying"; {-4, kind} a run-at on a priority queue; {-6, kind}
// a priority on a delayed queue; {-7} the stored payload is no longer the one compared
var retryScript = store.NewScript(store.LuaSortedSetGuard + store.LuaNow + luaAddError + luaRequeueOne + `
local id = ARGV[3]
if not redis.call('ZSCORE', KEYS[2], id) then
  if redis.call('ZSCORE', KEYS[1], id) then return {-2, 'waiting'} end
  if redis.call('ZSCORE', KEYS[9], id) then return {-2, 'in_flight'} end
  if redis.call('ZSCORE', KEYS[10], id) then return {-2, 'retrying'} end
  return {0}
end
if redis.call('ZSCORE', KEYS[1], id) then return {-1} end
if ARGV[7] == '1' then
  local stored = redis.call('HGET', KEYS[7], id)
  if (stored and (ARGV[12] ~= '1' or stored ~= ARGV[13])) or (not stored and ARGV[12] == '1') then return {-7} end
end
local kind = redis.call('HGET', KEYS[5], 'kind')
if kind ~= 'priority' and kind ~= 'delayed' then kind = ARGV[2] end
local changes = {}
local score = tonumber(ARGV[1])
if kind == 'priority' then
  if ARGV[5] ~= '' then return {-4, kind} end
  local old = keptPriority(KEYS[4], id)
  local p = tonumber(ARGV[4]) or old or 0
  if ARGV[4] ~= '' then changes[#changes + 1] = 'priority ' .. p .. ' (was ' .. (old or 'unknown') .. ')' end
  score = p * 1e13 + score
else
  if ARGV[4] ~= '' then return {-6, kind} end
  if ARGV[5] ~= '' then
    score = tonumber(ARGV[5])
    changes[#changes + 1] = 'run at ' .. ARGV[6]
  end
end
local attempts = tonumber(redis.call('HGET', KEYS[3], id)) or 0
requeueOne(KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[6], KEYS[7], id, score)
if ARGV[7] == '1' then
  local old = redis.call('HGET', KEYS[7], id)
  local was = old and #(string.match(old, '^@[^|]*|(.*)$') or old) or 0
  if ARGV[8] == '' then
    redis.call('HDEL', KEYS[7], id)
    changes[#changes + 1] = 'no payload (was ' .. was .. ' bytes)'
  else
    redis.call('HSET', KEYS[7], id, '@' .. string.format('%.17g', score) .. '|' .. ARGV[8])
    if ARGV[11] ~= '' then
      changes[#changes + 1] = 'payload: ' .. ARGV[11] .. ' (' .. #ARGV[8] .. ' bytes, was ' .. was .. ')'
    end
  end
end
local edit = 'requeued by an operator, unchanged'
if #changes > 0 then edit = 'requeued by an operator with ' .. table.concat(changes, ', ') end
addError(KEYS[8], id, attempts, nowMs(ARGV[9]), '', tonumber(ARGV[10]))
local list = cjson.decode(redis.call('HGET', KEYS[8], id))
list[#list].edit = edit
redis.call('HSET', KEYS[8], id, cjson.encode(list))
return {1, kind, score, edit}
`)
