package locks

import (
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// Every lock script uses the same three keys, all in the lock's Cluster slot (see keys.go):
//
// KEYS[1]  lock:<name>            STRING, the holder's token, PX lease (the article's key)
// KEYS[2]  {lock:<name>}:meta     HASH owner, holds, ttl_ms, watchdog, reentrant, fence; same PX
// KEYS[3]  {lock:<name>}:fence    STRING fencing counter, no expiry
//
// Clock: Redis's own. Leases are PX expiries that Redis counts down, so every instance
// agrees on when a lock ends whatever its machine's clock says; the only TIME read seeds the
// fencing counter. GET on a lock key of another type (a Redisson hash) would abort a script,
// hence redis.pcall where a foreign key may sit: a pcall error never equals a token.

// acquireLockScript takes a lock: the article's SET NX PX, plus, in the same atomic step,
// the next fencing token and zpulse's meta hash. A reentrant owner that already holds the
// lock takes it once more (holds + 1, lease renewed, same fence).
//
// The fencing counter starts, when absent, at Redis's TIME in microseconds (about 1.8e15,
// exact in a double and in JavaScript) rather than 0: if Redis loses its data (a restart
// without persistence, a failover to a replica that missed the INCR), the counter restarts
// above every token it gave before, as long as Redis's clock moved forward and fewer than
// one acquisition per microsecond happened, which Redis cannot serve anyway. A plain INCR
// from 0 would hand out token 1 again and a protected resource would refuse every new
// holder, or worse, accept two holders with equal tokens.
//
// The fencing counter is checked before the lock is set: a counter of another type, or one
// INCR cannot raise (not a whole number, or already 2^63-1), is refused with nothing written,
// so no lock is left set with a token nobody received.
//
// ARGV[1]  token (the owner for a reentrant lock)
// ARGV[2]  lease, ms
// ARGV[3]  "1" reentrant, "0" plain
// ARGV[4]  "1" renewed by a watchdog, "0" not (shown on the page)
// Returns  {1, fence, holds} when taken; {0, PTTL of the holder's lock} when held by another
// Refuses  a fencing counter of another type ("WRONGTYPE want=string type=<type> key=<key>"),
//
//	or that INCR cannot raise ("BADFENCE <value>"), before anything is written
var acquireLockScript = store.NewScript(`
local ft = redis.call('TYPE', KEYS[3])['ok']
if ft ~= 'none' and ft ~= 'string' then
  return redis.error_reply('WRONGTYPE want=string type=' .. ft .. ' key=' .. KEYS[3])
end
if ft == 'string' then
  local f = redis.call('GET', KEYS[3])
  local digits = string.match(f, '^%-?(%d+)$')
  if not digits or #digits > 19 or (#digits == 19 and string.sub(f, 1, 1) ~= '-' and digits >= '9223372036854775807')
     or (#digits == 19 and string.sub(f, 1, 1) == '-' and digits > '9223372036854775808') then
    return redis.error_reply('BADFENCE ' .. string.sub(f, 1, 40))
  end
end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  if redis.call('EXISTS', KEYS[3]) == 0 then
    local t = redis.call('TIME')
    redis.call('SET', KEYS[3], t[1] .. string.format('%06d', tonumber(t[2])))
  end
  local fence = redis.call('INCR', KEYS[3])
  redis.call('DEL', KEYS[2])
  redis.call('HSET', KEYS[2], 'owner', ARGV[1], 'holds', 1, 'ttl_ms', ARGV[2], 'watchdog', ARGV[4], 'reentrant', ARGV[3], 'fence', fence)
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
  return {1, fence, 1}
end
if ARGV[3] == '1' and redis.pcall('GET', KEYS[1]) == ARGV[1]
   and redis.call('HGET', KEYS[2], 'owner') == ARGV[1] and redis.call('HGET', KEYS[2], 'reentrant') == '1' then
  local holds = redis.call('HINCRBY', KEYS[2], 'holds', 1)
  redis.call('HSET', KEYS[2], 'ttl_ms', ARGV[2])
  if ARGV[4] == '1' then redis.call('HSET', KEYS[2], 'watchdog', '1') end
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
  return {1, tonumber(redis.call('HGET', KEYS[2], 'fence')), holds}
end
return {0, redis.call('PTTL', KEYS[1])}
`)

// releaseLockScript is the article's compare-and-delete: only the holder's token frees the
// lock. A reentrant owner holding it more than once gives one hold back instead.
//
// ARGV[1]  token
// Returns  the holds left (0: the lock is free); -1 when ARGV[1] is not the holder's token
// (nothing changes).
var releaseLockScript = store.NewScript(`
if redis.pcall('GET', KEYS[1]) ~= ARGV[1] then
  return -1
end
if redis.call('HGET', KEYS[2], 'owner') == ARGV[1] then
  local holds = tonumber(redis.call('HGET', KEYS[2], 'holds')) or 1
  if holds > 1 then
    return redis.call('HINCRBY', KEYS[2], 'holds', -1)
  end
end
redis.call('DEL', KEYS[1], KEYS[2])
return 0
`)

// ExtendLockScript renews the holder's lease: compare-and-PEXPIRE, so a holder whose lease
// ran out can never extend the lock of the owner who took it next. The watchdog sends one
// per held lock, many in one pipeline.
//
// ARGV[1]  token
// ARGV[2]  new lease, ms from now
// Returns  {1, fence, holds} (0 and 1 for a lock taken by another service); {0} when
// ARGV[1] is not the holder's token (nothing changes)
var ExtendLockScript = store.NewScript(`
if redis.pcall('GET', KEYS[1]) ~= ARGV[1] then
  return {0}
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if redis.call('HGET', KEYS[2], 'owner') == ARGV[1] then
  redis.call('HSET', KEYS[2], 'ttl_ms', ARGV[2])
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
  return {1, tonumber(redis.call('HGET', KEYS[2], 'fence')), tonumber(redis.call('HGET', KEYS[2], 'holds'))}
end
return {1, 0, 1}
`)

// forceReleaseLockScript deletes a lock whoever holds it (an admin's act), or only when
// ARGV[1] is still the holder's token. The fencing counter stays: the next holder's token is
// still higher than the one whose lock was taken away.
//
// ARGV[1]  the token the admin saw, or "" for any holder
// Returns  1 deleted; 0 not held; -1 held by another token than ARGV[1]
var forceReleaseLockScript = store.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
if ARGV[1] ~= '' and redis.pcall('GET', KEYS[1]) ~= ARGV[1] then
  return -1
end
redis.call('DEL', KEYS[1], KEYS[2])
return 1
`)
