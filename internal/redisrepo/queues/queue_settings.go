package queues

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// queueSettingsTTL is how long an instance uses a queue's kind it read before reading it
// again, for polls (enqueue reads it inside its script). The kind of a queue with jobs cannot
// change, so a stale kind only ever meets an empty queue.
const queueSettingsTTL = time.Second

// remember updates the cached kind of a queue from a script's answer.
func (q *Queues) remember(queue string, kind domain.QueueKind) {
	if s, ok := q.settings.Peek(queue); !ok || s.Kind != kind {
		q.settings.Forget(queue)
	}
}

// cachedSettings returns a queue's settings, read at most queueSettingsTTL ago.
func (q *Queues) cachedSettings(ctx context.Context, queue string) (domain.QueueSettings, error) {
	return q.settings.Get(ctx, queue, func(ctx context.Context) (domain.QueueSettings, error) { return q.Settings(ctx, queue) })
}

// decodeQueueSettings reads the settings HASH; missing or damaged fields take their defaults.
func decodeQueueSettings(queue string, h map[string]string) domain.QueueSettings {
	s := domain.DefaultQueueSettings(queue)
	if k := domain.QueueKind(h["kind"]); k == domain.PriorityQueue || k == domain.DelayedQueue {
		s.Kind = k
	}
	if n, err := strconv.Atoi(h["max_attempts"]); err == nil && n >= 1 && n <= domain.MaxMaxAttempts {
		s.MaxAttempts = n
	}
	return s
}

func (q *Queues) Settings(ctx context.Context, queue string) (domain.QueueSettings, error) {
	if err := domain.ValidateKeyName("queue", queue); err != nil {
		return domain.QueueSettings{}, err
	}
	h, err := q.Rdb.HGetAll(ctx, q.keys.QueueSettings(queue)).Result()
	if err != nil {
		return domain.QueueSettings{}, store.OpError("queues.Queues.Settings", err)
	}
	return decodeQueueSettings(queue, h), nil
}

func (q *Queues) UpdateSettings(ctx context.Context, queue string, s domain.QueueSettings) (domain.QueueSettings, error) {
	return q.PatchSettings(ctx, queue, domain.QueueSettingsPatch{Kind: &s.Kind, MaxAttempts: &s.MaxAttempts})
}

func (q *Queues) PatchSettings(ctx context.Context, queue string, p domain.QueueSettingsPatch) (domain.QueueSettings, error) {
	if err := domain.ValidateName("queue", queue); err != nil {
		return domain.QueueSettings{}, err
	}
	// The fields are independent: a patch is valid when it is valid over the defaults.
	if err := p.Apply(domain.DefaultQueueSettings(queue)).Validate(); err != nil {
		return domain.QueueSettings{}, err
	}
	kind, attempts := "", ""
	if p.Kind != nil {
		kind = string(*p.Kind)
	}
	if p.MaxAttempts != nil {
		attempts = strconv.Itoa(*p.MaxAttempts)
	}
	keys := []string{q.keys.Queue(queue), q.keys.QueueProcessing(queue), q.keys.QueueSettings(queue), q.keys.QueueRetry(queue)}
	var cmd *redis.Cmd
	err := store.ReplicaWait{}.Write(ctx, q.Rdb, q.keys.Queue(queue), func(pipe redis.Pipeliner) {
		cmd = queueSettingsScript.Run(ctx, pipe, keys, kind, attempts, string(domain.DefaultQueueKind(queue)))
	}, func(pipe redis.Pipeliner) { pipe.SAdd(ctx, q.keys.QueueIndex(), queue) })
	if err != nil {
		return domain.QueueSettings{}, store.OpWriteError("queues.Queues.PatchSettings", err)
	}
	vals, err := cmd.Slice()
	if err != nil || len(vals) < 2 {
		return domain.QueueSettings{}, fmt.Errorf("queues.Queues.PatchSettings: unexpected reply %v", cmd.Val())
	}
	if status, _ := vals[0].(int64); status < 0 {
		return domain.QueueSettings{}, domain.Errorf(domain.ECONFLICT, "queue %q holds %v waiting or leased jobs scored as a %s queue; empty it before changing its kind", queue, vals[1], otherKind(*p.Kind))
	}
	if len(vals) != 3 {
		return domain.QueueSettings{}, fmt.Errorf("queues.Queues.PatchSettings: unexpected reply %v", cmd.Val())
	}
	kindNow, _ := vals[1].(string)
	attemptsNow, _ := vals[2].(string)
	s := decodeQueueSettings(queue, map[string]string{"kind": kindNow, "max_attempts": attemptsNow})
	q.found.Add(store.KindQueue, queue)
	q.settings.Put(queue, s)
	return s, nil
}

func otherKind(k domain.QueueKind) domain.QueueKind {
	if k == domain.PriorityQueue {
		return domain.DelayedQueue
	}
	return domain.PriorityQueue
}
