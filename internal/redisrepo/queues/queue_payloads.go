package queues

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// A payload belongs to one enqueue, not just to a job id: the article's consumers take jobs
// with a bare ZPOPMIN and its producers re-add ids with a new score, and neither knows of the
// payloads hash. So the enqueue script stores a payload as "@<score>|<payload>", the score the
// job was enqueued with (for a priority queue priority×1e13 + ms, unique to the millisecond;
// for a delayed queue its run-at), and a delivery hands the payload over only when the job it
// took has that score. A job re-added under the same id by another service is a new job,
// delivered without the old payload; the old payload is an orphan, removed by the reaper after
// domain.OrphanGrace (orphanSweepScript). Payloads stored before the binding (no "@") are
// handed over as they are.

// boundPayload returns the payload stored as v if it belongs to the job taken with score;
// nil when it was bound to another score. With known false (the take returned no score) the
// payload is handed over as stored.
func boundPayload(v string, score float64, known bool) []byte {
	rest, ok := strings.CutPrefix(v, "@")
	if !ok {
		return []byte(v) // stored before payloads were bound
	}
	bound, body, ok := strings.Cut(rest, "|")
	if !ok {
		return nil
	}
	if known {
		if b, err := strconv.ParseFloat(bound, 64); err != nil || b != score {
			return nil
		}
	}
	if body == "" {
		return nil
	}
	return []byte(body)
}

// orphanSweepCount is the HSCAN COUNT of one sweep step; orphanSweepSteps bounds the steps
// per queue and reaper round, so a huge payloads hash is swept over several rounds.
const (
	orphanSweepCount = 500
	orphanSweepSteps = 20
)

// sweepOrphans runs one bounded pass of orphanSweepScript over each queue's payloads and
// returns how many orphans it removed.
func (q *Queues) sweepOrphans(ctx context.Context, names []string) (int64, error) {
	var removed int64
	for _, name := range names {
		keys := []string{q.keys.Queue(name), q.keys.QueueProcessing(name), q.keys.QueueDead(name), q.keys.QueueJobs(name), q.keys.QueueOrphans(name),
			q.keys.QueueRetry(name)}
		cursor := q.sweepCursor(name)
		for range orphanSweepSteps {
			vals, err := orphanSweepScript.Run(ctx, q.Rdb, keys, q.leaseNow(), domain.OrphanGrace.Milliseconds(), cursor, orphanSweepCount).Slice()
			if err != nil {
				return removed, store.OpError("queues.Queues.sweepOrphans", err)
			}
			if len(vals) != 2 {
				return removed, fmt.Errorf("queues.Queues.sweepOrphans: unexpected reply %v", vals)
			}
			cursor = fmt.Sprint(vals[0])
			n, _ := vals[1].(int64)
			removed += n
			if cursor == "0" {
				break
			}
		}
		q.setSweepCursor(name, cursor)
	}
	return removed, nil
}

// sweepCursor and setSweepCursor keep where an unfinished pass stopped, per queue, in this
// instance. After a reaper handover the new instance starts a pass of its own; nothing is
// lost, because the first-seen stamps are in Redis.
func (q *Queues) sweepCursor(name string) string {
	q.sweepMu.Lock()
	defer q.sweepMu.Unlock()
	if c, ok := q.sweep[name]; ok {
		return c
	}
	return "0"
}

func (q *Queues) setSweepCursor(name, cursor string) {
	q.sweepMu.Lock()
	defer q.sweepMu.Unlock()
	if q.sweep == nil {
		q.sweep = map[string]string{}
	}
	q.sweep[name] = cursor
}
