package queues

import (
	"context"
	"strconv"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// Retries of a priority queue: a job nacked with a delay waits it out in {queue:<name>}:retry
// (Keys.QueueRetry), scored by when it returns, not in queue:<name>: the article's consumers
// ZPOPMIN that set directly, and its priority part, not its time, decides what they take, so
// a job parked there would be taken at once. Its place in line waits in
// {queue:<name>}:scores. Once due, a job goes back by luaPromote: in the same script as every
// zpulse poll or lease of the queue (so zpulse's consumers never wait on the reaper), before a
// blocking take, and every reaper round (for the article's direct consumers).

// luaPromote defines promote(queue, retry, scores, now): moves the jobs of retry due by now
// (epoch ms, caller's clock) back into queue, at most 100 per call so a call stays short, and
// returns {moved, 1 when it stopped at that limit else 0}. A job goes back with the score it
// had in its queue, its priority and its enqueue ms: the article orders one priority's jobs by
// enqueue time, and a nack without a delay gives a job back to that same place, so the delay
// only adds the wait; its enqueue time (the page's age, enqueued_at) stays true, and its
// payload stays bound to that score. A job without a kept score (deleted meanwhile by hand)
// goes back as priority 0 due now. An id waiting again meanwhile (a foreign producer's) keeps
// its place (NX).
const luaPromote = `
local function promote(qkey, rkey, skey, now)
  local ids = redis.call('ZRANGEBYSCORE', rkey, '-inf', now, 'LIMIT', 0, 100)
  for _, id in ipairs(ids) do
    local score = redis.call('HGET', skey, id) or now
    redis.call('ZADD', qkey, 'NX', score, id)
    redis.call('ZREM', rkey, id)
    redis.call('HDEL', skey, id)
  end
  return {#ids, #ids == 100 and 1 or 0}
end
`

// PromoteScript runs luaPromote alone: for the reaper and the blocking take (BZPOPMIN, which
// no script can wrap).
//
// KEYS[1]  queue:<name>  KEYS[2]  {queue:<name>}:retry  KEYS[3]  {queue:<name>}:scores
// ARGV[1]  now, epoch ms (caller's clock)
// Returns  {moved, 1 when more are due (call again) else 0}
var PromoteScript = store.NewScript(store.LuaSortedSetGuard + luaPromote + `
return promote(KEYS[1], KEYS[2], KEYS[3], tonumber(ARGV[1]))
`)

// PromoteKeys are PromoteScript's keys.
func (q *Queues) PromoteKeys(queue string) []string {
	return []string{q.keys.Queue(queue), q.keys.QueueRetry(queue), q.keys.QueueScores(queue)}
}

// promoteRetries moves a queue's due retries back before a blocking take waits on it.
func (q *Queues) promoteRetries(ctx context.Context, queue string) error {
	if err := PromoteScript.Run(ctx, q.Rdb, q.PromoteKeys(queue), q.now().UnixMilli()).Err(); err != nil {
		return store.OpWriteError("queues.Queues.promoteRetries", err)
	}
	return nil
}

// retryJobs reads queueViewScript's list of retries {id, returns at ms, attempts, kept
// score, ...}: each job's priority from its kept score, its return time as AtMs.
func retryJobs(v any) []domain.QueueJob {
	flat, _ := v.([]any)
	out := make([]domain.QueueJob, 0, len(flat)/4)
	for i := 0; i+3 < len(flat); i += 4 {
		j := domain.QueueJob{ID: toString(flat[i]), AtMs: toInt(flat[i+1]), Priority: -1, Attempts: toInt(flat[i+2])}
		if kept, err := strconv.ParseFloat(toString(flat[i+3]), 64); err == nil {
			j.Score = kept
			if p, _, ok := domain.ScorePriority(kept); ok {
				j.Priority = p
			}
		}
		out = append(out, j)
	}
	return out
}
