package queues

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// Who is consuming a queue. The lease script records each poll's consumer in the
// queue's consumers set (luaConsumerSeen) and the lease's consumer and start in the holders
// hash; ack and nack count the holder's acks and nacks per minute (luaConsumerCount). All in
// the queue's slot, in the same atomic step as the lease, ack or nack. Memory is bounded: a
// consumer not seen for domain.ConsumerTTL is dropped, at most domain.ConsumersKept are kept,
// and the per-minute counts expire after queueThroughputTTL.

// queueHoldersTTL keeps a queue's holders hash past its longest lease after its last lease.
const queueHoldersTTL = domain.MaxLease + time.Hour

// luaConsumerSeen defines consumerSeen(consumers, consumer, now, ttl, kept): records that
// consumer ("" records nothing) polled at now, drops those not seen for ttl ms and those
// beyond the kept latest, and keeps the set ttl ms after this poll.
const luaConsumerSeen = `
local function consumerSeen(ckey, consumer, now, ttl, kept)
  if consumer == '' then return end
  redis.call('ZADD', ckey, now, consumer)
  redis.call('ZREMRANGEBYSCORE', ckey, '-inf', now - ttl)
  local over = redis.call('ZCARD', ckey) - kept
  if over > 0 then redis.call('ZPOPMIN', ckey, over) end
  redis.call('PEXPIRE', ckey, ttl)
end
`

// luaConsumerCount defines consumerCount(counts, what, consumer, ttl, took): one more ack
// ("a") or nack ("n") of consumer ("" counts nothing) in the minute's hash, which expires ttl
// ms later; an ack's lease-to-ack time took (ms, nil when not known) is added to the
// consumer's "d|" field, so its mean is that sum over its acks.
const luaConsumerCount = `
local function consumerCount(skey, what, consumer, ttl, took)
  if consumer == '' then return end
  redis.call('HINCRBY', skey, what .. '|' .. consumer, 1)
  if took then redis.call('HINCRBY', skey, 'd|' .. consumer, took) end
  redis.call('PEXPIRE', skey, ttl)
end
`

// consumersScript reads a queue's consumers, read-only: those seen after the cutoff, latest
// first, with their leases in flight (counted over the holders of the first in-flight jobs),
// the first of those jobs each holds (soonest deadline first) with their lease starts, and
// their acks, nacks and summed lease-to-ack times of the last and of this minute.
//
// KEYS[1]  {queue:<name>}:consumers   KEYS[2]  {queue:<name>}:processing
// KEYS[3]  {queue:<name>}:holders     KEYS[4]  {queue:<name>}:cstats:<last minute>
// KEYS[5]  {queue:<name>}:cstats:<this minute>
// ARGV[1]  the cutoff, epoch ms (those seen at or before it are left out)
// ARGV[2]  the most consumers     ARGV[3]  the most in-flight jobs to look at
// ARGV[4]  the most jobs listed per consumer
// Returns  {{consumer, last poll ms, leases, acks, nacks, ack ms (last minute), acks,
// nacks, ack ms (this minute), {job id, lease start ms, ...}}, ...}
var consumersScript = store.NewScript(`
local seen = redis.call('ZREVRANGEBYSCORE', KEYS[1], '+inf', '(' .. ARGV[1], 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]))
if #seen == 0 then return {} end
local held, jobs, shown = {}, {}, tonumber(ARGV[4])
local ids = redis.call('ZRANGE', KEYS[2], 0, tonumber(ARGV[3]) - 1)
for i = 1, #ids, 500 do
  local chunk = {}
  for j = i, math.min(i + 499, #ids) do chunk[#chunk + 1] = ids[j] end
  for j, h in ipairs(redis.call('HMGET', KEYS[3], unpack(chunk))) do
    local bar = h and string.find(h, '|', 1, true)
    if bar then
      local c = string.sub(h, bar + 1)
      held[c] = (held[c] or 0) + 1
      if held[c] <= shown then
        jobs[c] = jobs[c] or {}
        local list = jobs[c]
        list[#list + 1] = chunk[j]
        list[#list + 1] = tonumber(string.sub(h, 1, bar - 1)) or 0
      end
    end
  end
end
local out = {}
for i = 1, #seen, 2 do
  local c = seen[i]
  local row = {c, tonumber(seen[i + 1]), held[c] or 0}
  for _, k in ipairs({KEYS[4], KEYS[5]}) do
    for _, v in ipairs(redis.call('HMGET', k, 'a|' .. c, 'n|' .. c, 'd|' .. c)) do
      row[#row + 1] = tonumber(v) or 0
    end
  end
  row[#row + 1] = jobs[c] or {}
  out[#out + 1] = row
end
return out
`)

// planConsumers adds to pipe the read of a queue's consumers (one read-only script) and
// returns the decoder: the latest poll first. The view changes only when a consumer polls,
// takes, acks or nacks a job, when a minute ends, or when one is forgotten (how long a job has
// been held is its lease start, which the page counts from).
func planConsumers(ctx context.Context, pipe redis.Pipeliner, keys store.Keys, queue string, now time.Time) func() []domain.Consumer {
	cmd := consumersScript.Run(ctx, pipe, []string{keys.QueueConsumers(queue), keys.QueueProcessing(queue), keys.QueueHolders(queue),
		keys.QueueConsumerCounts(queue, now.Add(-time.Minute)), keys.QueueConsumerCounts(queue, now)},
		now.Add(-domain.ConsumerTTL).UnixMilli(), domain.ConsumersKept, domain.ConsumerLeaseScan, domain.ConsumerJobsShown)
	return func() []domain.Consumer {
		rows, _ := cmd.Val().([]any)
		var out []domain.Consumer
		for _, r := range rows {
			vals, _ := r.([]any)
			if len(vals) != 10 {
				continue
			}
			id, _ := vals[0].(string)
			name, addr := domain.ParseConsumerID(id)
			c := domain.Consumer{Name: name, Address: addr, LastPollMs: toInt(vals[1]), Leases: toInt(vals[2]),
				AcksLastMinute: toInt(vals[3]), NacksLastMinute: toInt(vals[4]), AckMsLastMinute: toInt(vals[5]),
				AcksThisMinute: toInt(vals[6]), NacksThisMinute: toInt(vals[7]), AckMsThisMinute: toInt(vals[8])}
			held, _ := vals[9].([]any)
			for i := 0; i+2 <= len(held); i += 2 {
				jid, _ := held[i].(string)
				c.Jobs = append(c.Jobs, domain.HeldJob{ID: jid, SinceMs: toInt(held[i+1])})
			}
			out = append(out, c)
		}
		return out
	}
}

// Consumers reads a queue's consumers (domain.ConsumerService) in one round trip.
func (q *Queues) Consumers(ctx context.Context, queue string) ([]domain.Consumer, error) {
	if err := domain.ValidateName("queue", queue); err != nil {
		return nil, err
	}
	pipe := q.Rdb.Pipeline()
	read := planConsumers(ctx, pipe, q.keys, queue, q.now())
	if err := store.Exec(ctx, q.Rdb, pipe); err != nil {
		return nil, store.OpError("queues.Queues.Consumers", err)
	}
	return read(), nil
}

// consumerArgs are the lease script's consumer arguments: the consumer, the TTL of the
// consumers set and of the holders hash (ms), and the consumers kept.
func consumerArgs(consumer string) []any {
	return []any{consumer, domain.ConsumerTTL.Milliseconds(), queueHoldersTTL.Milliseconds(), domain.ConsumersKept}
}
