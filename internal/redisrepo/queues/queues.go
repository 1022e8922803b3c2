package queues

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// queueThroughputTTL keeps a minute's counts for the sparkline and a little more.
const queueThroughputTTL = 10 * time.Minute

// reapBatch bounds the jobs one reap script handles (see reapScript).
const reapBatch = 500

// Queues is the Redis implementation of domain.QueueService.
type Queues struct {
	Rdb       redis.UniversalClient
	blocking  redis.UniversalClient // BZPOPMIN only: a blocked take holds one of these connections
	keys      store.Keys
	Clock     domain.Clock // scores, due times, throughput (the caller's clock, as the article)
	lease     domain.Clock // lease deadlines; nil: Redis TIME
	found     *store.Discovery
	settings  *store.TTLCache[domain.QueueSettings]
	replicas  store.ReplicaWait      // an enqueue waits for replicas (OpenOptions.WaitReplicas)
	bookkept  *store.SeenSet         // queues this process put in the index (QueueIndex) lately
	completed domain.CompletedPolicy // the completed jobs an ack keeps (queue_completed.go)

	sweepMu sync.Mutex
	sweep   map[string]string // queue -> HSCAN cursor of its unfinished orphan sweep

	cursorMu   sync.Mutex
	cursorKey  []byte    // the secret signing job list cursors, as last read (jobCursorKey)
	cursorRead time.Time // when it was read

	resumeMu sync.Mutex
	resumed  chan struct{} // closed when this process resumes a queue (then replaced): wakes paused takes
}

var _ domain.QueueService = (*Queues)(nil)

// NewQueues returns queues kept in rdb under keys, listing those found. Blocking takes
// (BZPOPMIN) run on blocking, a client with connections of its own (newBlockingClient), so a
// Take that waits never delays another command. Scores use the local clock, leases the
// scripts' (Redis TIME unless a clock is given). An ack keeps the completed job as completed
// says (validated by the caller: Open).
func NewQueues(rdb, blocking redis.UniversalClient, keys store.Keys, found *store.Discovery, c store.Clocks, replicas store.ReplicaWait,
	completed domain.CompletedPolicy) *Queues {
	return &Queues{completed: completed, replicas: replicas, Rdb: rdb, blocking: blocking, keys: keys, Clock: c.Local(), lease: c.Script, found: found,
		settings: store.NewTTLCache[domain.QueueSettings](queueSettingsTTL, c.Local()), bookkept: store.NewSeenSet()}
}

// NewBlockingClient returns a client of the same Redis as rdb with a pool of its own, for
// blocking commands: Lettuce's shared connection, which the article warns about, has no Go
// equivalent, but a take that waits 30 s on a connection of the main pool would still keep
// that connection from everyone else, and enough of them would starve the dashboard.
// Cancelling a take's context closes its connection (the wait ends at once).
func NewBlockingClient(rdb redis.UniversalClient, poolSize int) redis.UniversalClient {
	switch c := rdb.(type) {
	case *redis.Client:
		opt := *c.Options()
		opt.PoolSize, opt.MinIdleConns, opt.ContextTimeoutEnabled = poolSize, 0, true
		// Not shared with rdb's (its handlers are registered once per config); maintenance
		// notifications (Redis Enterprise's) matter little to a take that waits 30 s at most.
		opt.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
		return redis.NewClient(&opt)
	case *redis.ClusterClient:
		opt := *c.Options()
		opt.PoolSize, opt.MinIdleConns, opt.ContextTimeoutEnabled = poolSize, 0, true
		return redis.NewClusterClient(&opt)
	default:
		return rdb
	}
}

func (q *Queues) now() time.Time { return q.Clock.Now() }

// leaseNow is the lease clock's ARGV: "" lets the script read Redis TIME.
func (q *Queues) leaseNow() string {
	if q.lease == nil {
		return ""
	}
	return strconv.FormatInt(q.lease.Now().UnixMilli(), 10)
}

// tputField is the throughput hash's field of t's second: "e12" enqueued, "c12" completed,
// "f12" failed (ThroughputField reads it).
func tputField(t time.Time, kind byte) string { return string(kind) + strconv.Itoa(t.UTC().Second()) }

// ThroughputField reads a field of a queue's throughput hash (tputField): what it counts, 0
// enqueued, 1 completed or 2 failed, and its second within the hash's minute.
func ThroughputField(field string) (kind int, sec int64, ok bool) {
	if len(field) < 2 {
		return 0, 0, false
	}
	kind = strings.IndexByte("ecf", field[0])
	sec, err := strconv.ParseInt(field[1:], 10, 64)
	return kind, sec, kind >= 0 && err == nil
}

func (q *Queues) Requeue(ctx context.Context, queue, id string) error {
	if err := validateQueueJob(queue, id); err != nil {
		return err
	}
	keys := []string{q.keys.Queue(queue), q.keys.QueueDead(queue), q.keys.QueueAttempts(queue), q.keys.QueueScores(queue),
		q.keys.QueueSettings(queue), q.keys.QueueLeases(queue), q.keys.QueueJobs(queue)}
	vals, err := requeueScript.Run(ctx, q.Rdb, keys, q.now().UnixMilli(), string(domain.DefaultQueueKind(queue)), id).Int64Slice()
	switch {
	case err != nil:
		return store.OpWriteError("queues.Queues.Requeue", err)
	case len(vals) == 0:
		return fmt.Errorf("queues.Queues.Requeue: empty reply")
	case vals[0] == 0:
		return domain.Errorf(domain.ENOTFOUND, "job %q is not in queue %q's dead set", id, queue)
	case vals[0] < 0:
		return domain.Errorf(domain.ECONFLICT, "job %q is waiting in queue %q already; delete the dead one instead", id, queue)
	}
	return nil
}

func (q *Queues) Delete(ctx context.Context, queue, id string) (domain.Where, error) {
	if err := validateQueueJob(queue, id); err != nil {
		return "", err
	}
	keys := []string{q.keys.Queue(queue), q.keys.QueueProcessing(queue), q.keys.QueueDead(queue), q.keys.QueueJobs(queue),
		q.keys.QueueAttempts(queue), q.keys.QueueScores(queue), q.keys.QueueLeases(queue), q.keys.QueueErrors(queue),
		q.keys.QueueRetry(queue), q.keys.QueueTypes(queue)}
	where, err := deleteJobScript.Run(ctx, q.Rdb, keys, id).Text()
	switch {
	case errors.Is(err, redis.Nil):
		return "", domain.Errorf(domain.ENOTFOUND, "job %q is not in queue %q: not waiting, not in flight, not dead", id, queue)
	case err != nil:
		return "", store.OpWriteError("queues.Queues.Delete", err)
	}
	return domain.Where(where), nil
}

func validateQueueJob(queue, id string) error {
	if err := domain.ValidateName("queue", queue); err != nil {
		return err
	}
	return domain.ValidateJobID(id)
}
