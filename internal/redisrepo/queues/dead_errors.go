package queues

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// A queue's dead jobs grouped by their last error (domain.DeadErrorOps), on Queues.

var _ domain.DeadErrorOps = (*Queues)(nil)

func (q *Queues) DeadErrors(ctx context.Context, queue string) (domain.DeadErrorGroups, error) {
	out := domain.DeadErrorGroups{Queue: queue, Groups: []domain.ErrorGroup{}}
	if err := domain.ValidateKeyName("queue", queue); err != nil { // a read: another service's queue too
		return out, err
	}
	vals, err := deadErrorsScript.Run(ctx, q.Rdb, []string{q.keys.Queue(queue), q.keys.QueueDead(queue), q.keys.QueueErrors(queue)},
		domain.MaxErrorGroupScan).Slice()
	if err != nil {
		return out, store.OpError("queues.Queues.DeadErrors", err)
	}
	if len(vals) != 3 {
		return out, fmt.Errorf("queues.Queues.DeadErrors: unexpected reply %v", vals)
	}
	out.Dead, _ = vals[0].(int64)
	ids, _ := vals[1].([]any)
	errs, _ := vals[2].([]any)
	at := map[string]int{} // shortened error → its group's index
	for i, id := range ids {
		msg := ""
		if i < len(errs) {
			if raw, ok := errs[i].(string); ok {
				msg = domain.ShortError(domain.LastError(decodeAttemptErrors(raw)))
			}
		}
		g, ok := at[msg]
		if !ok { // ids come latest death first: the first of a group is its latest
			g = len(out.Groups)
			at[msg] = g
			out.Groups = append(out.Groups, domain.ErrorGroup{Error: msg, Latest: toString(id)})
		}
		out.Groups[g].Count++
		out.Scanned++
	}
	slices.SortStableFunc(out.Groups, func(a, b domain.ErrorGroup) int { return cmp.Compare(b.Count, a.Count) })
	return out, nil
}
