package queues

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

func (q *Queues) Reap(ctx context.Context, fence int64) (returned, died int64, err error) {
	names, err := q.found.NamesWarm(ctx, store.KindQueue)
	if err != nil {
		return 0, 0, err
	}
	for len(names) > 0 {
		pipe := q.Rdb.Pipeline()
		cmds := make([]*redis.Cmd, len(names))
		promoted := make([]*redis.Cmd, len(names)) // due retries back, for the article's direct consumers
		now := q.now()
		for i, name := range names {
			keys := []string{q.keys.Queue(name), q.keys.QueueProcessing(name), q.keys.QueueAttempts(name), q.keys.QueueScores(name),
				q.keys.QueueDead(name), q.keys.QueueSettings(name), q.keys.QueueErrors(name), q.keys.QueueReaperFence(name),
				q.keys.QueueThroughput(name, now), q.keys.QueueHolders(name)}
			cmds[i] = reapScript.Run(ctx, pipe, keys, q.leaseNow(), domain.DefaultMaxAttempts, reapBatch,
				domain.AttemptErrorsKept, domain.LeaseEndedError, fence, tputField(now, 'f'), queueThroughputTTL.Milliseconds())
			promoted[i] = PromoteScript.Run(ctx, pipe, q.PromoteKeys(name), now.UnixMilli())
		}
		if err := store.Exec(ctx, q.Rdb, pipe); err != nil {
			return returned, died, store.OpWriteError("queues.Queues.Reap", err)
		}
		var again []string
		for i, cmd := range cmds {
			vals, err := cmd.Int64Slice()
			if err == nil && len(vals) == 2 && vals[0] == -1 {
				return returned, died, domain.Errorf(domain.ECONFLICT, "queue %q was reaped by a newer reaper (fencing token %d, this one's is %d): this reaper's term is over", names[i], vals[1], fence)
			}
			if err != nil || len(vals) != 3 {
				return returned, died, fmt.Errorf("queues.Queues.Reap: unexpected reply %v", cmd.Val())
			}
			returned, died = returned+vals[0], died+vals[1]
			moved, _ := promoted[i].Int64Slice()
			if len(moved) == 2 {
				returned += moved[0]
			}
			if vals[2] == 1 || len(moved) == 2 && moved[1] == 1 {
				again = append(again, names[i])
			}
		}
		names = again
	}
	all, _ := q.found.NamesWarm(ctx, store.KindQueue)
	if _, err := q.sweepOrphans(ctx, all); err != nil {
		return returned, died, err
	}
	return returned, died, nil
}

// RunReaper reaps every interval until ctx ends, with fence, the fencing token of the
// domain.Singleton term it runs in (one instance reaps at a time). after, when not nil, is
// told what each round did (the watcher's nudge). Redis errors wait for the next round; a
// newer reaper's fence ends the loop with an error wrapping domain.ErrLockLost (the term is
// over: Singletons campaigns again) and the ECONFLICT.
func (q *Queues) RunReaper(ctx context.Context, every time.Duration, fence int64, after func(returned, died int64)) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		r, d, err := q.Reap(ctx, fence)
		switch {
		case domain.ErrorCode(err) == domain.ECONFLICT:
			return fmt.Errorf("queues.Queues.RunReaper: %w: %w", domain.ErrLockLost, err)
		case err == nil && (r > 0 || d > 0) && after != nil:
			after(r, d)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
