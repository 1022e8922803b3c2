package domain

import (
	"context"
	"encoding/json"
	"math"
	"time"
)

// The priority queue's score, exactly the reference article's (section 4.1):
//
//	score = priority × PriorityFactor + enqueue time in epoch ms, priority 0..9
//
// A lower score leaves first, so priority 0 always leaves before priority 1 even when it was
// added later, and jobs of one priority leave in the order they came (FIFO). Epoch ms stay
// below PriorityFactor until the year 2286, and the largest score, about 9.2×10^13, is far
// below 2^53, so every score is an exact integer in a double.
//
// A delayed queue's score is the job's run-at time in epoch ms (the article's 4.2).
const (
	MinPriority    = 0
	MaxPriority    = 9
	PriorityFactor = 10_000_000_000_000 // 1e13
	// MaxEpochMs is the latest enqueue or run-at time a score can hold.
	MaxEpochMs = PriorityFactor - 1
)

// Queue limits.
const (
	MaxPayloadBytes    = 64 << 10 // a job's JSON payload
	MaxDelay           = 365 * 24 * time.Hour
	MinLease           = time.Second // a lease shorter than a reaper round is returned before it can be acked
	MaxLease           = 24 * time.Hour
	DefaultLease       = 30 * time.Second
	MaxTakeWait        = 30 * time.Second // one blocking take, so one HTTP request, waits at most this
	DefaultMaxAttempts = 5                // deliveries with a lease before a job goes to the dead set
	MaxMaxAttempts     = 1000
)

// DelayedQueueDefault is the queue that is a delayed queue without configuration: the
// article's queue:delayed. Every other queue is a priority queue until configured otherwise.
const DelayedQueueDefault = "delayed"

// QueueKind says how a queue scores its jobs.
type QueueKind string

const (
	PriorityQueue QueueKind = "priority" // score = priority*1e13 + enqueue ms; ZPOPMIN order
	DelayedQueue  QueueKind = "delayed"  // score = run-at ms; a job leaves once it is due
)

// DefaultQueueKind is the kind of a queue nobody configured.
func DefaultQueueKind(queue string) QueueKind {
	if queue == DelayedQueueDefault {
		return DelayedQueue
	}
	return PriorityQueue
}

// QueueSettings are a queue's options, kept in Redis so every zpulse instance agrees.
type QueueSettings struct {
	Kind        QueueKind `json:"kind"`
	MaxAttempts int       `json:"max_attempts"` // deliveries with a lease before the dead set
}

// DefaultQueueSettings are the settings of a queue nobody configured.
func DefaultQueueSettings(queue string) QueueSettings {
	return QueueSettings{Kind: DefaultQueueKind(queue), MaxAttempts: DefaultMaxAttempts}
}

// Validate checks the settings. Returns EINVALID.
func (s QueueSettings) Validate() error {
	if s.Kind != PriorityQueue && s.Kind != DelayedQueue {
		return Errorf(EINVALID, `kind must be "priority" or "delayed" (got %q)`, clip(string(s.Kind)))
	}
	if s.MaxAttempts < 1 || s.MaxAttempts > MaxMaxAttempts {
		return Errorf(EINVALID, "max_attempts must be a whole number from 1 to %d (got %d)", MaxMaxAttempts, s.MaxAttempts)
	}
	return nil
}

// QueueSettingsPatch is a partial change of a queue's settings: nil fields keep their saved
// value.
type QueueSettingsPatch struct {
	Kind        *QueueKind
	MaxAttempts *int
}

// Apply returns s changed by the patch's fields.
func (p QueueSettingsPatch) Apply(s QueueSettings) QueueSettings {
	if p.Kind != nil {
		s.Kind = *p.Kind
	}
	if p.MaxAttempts != nil {
		s.MaxAttempts = *p.MaxAttempts
	}
	return s
}

// ValidatePriority checks a priority: 0 (first) to 9. Returns EINVALID.
func ValidatePriority(p int) error {
	if p < MinPriority || p > MaxPriority {
		return FieldErrorf("priority", EINVALID, "priority must be a whole number from %d (first) to %d (last) (got %d)", MinPriority, MaxPriority, p)
	}
	return nil
}

// ScorePriority reads the priority and enqueue time back from a priority queue's score.
// ok is false for a score the encoding does not produce (another service's convention).
func ScorePriority(score float64) (priority int, enqueuedMs int64, ok bool) {
	if score < 0 || score >= (MaxPriority+1)*PriorityFactor || score != math.Trunc(score) {
		return 0, 0, false
	}
	s := int64(score)
	return int(s / PriorityFactor), s % PriorityFactor, true
}

// Enqueued is a job as it was enqueued.
type Enqueued struct {
	ID       string     `json:"id"`
	Queue    string     `json:"queue"`
	Kind     QueueKind  `json:"kind"`
	Priority *int       `json:"priority,omitempty"` // priority queues
	RunAt    *time.Time `json:"run_at,omitempty"`   // delayed queues
	Score    float64    `json:"score"`
	Type     string     `json:"type,omitempty"` // the job's type, when it has one
}

// Delivery is a job handed to a consumer by a poll or a take.
type Delivery struct {
	ID    string `json:"id"`
	Queue string `json:"queue"`
	// Score is the job's score in its queue (a delayed queue's: its run-at, epoch ms).
	Score    float64         `json:"score,omitempty"`
	Priority *int            `json:"priority,omitempty"` // a priority queue's job in the article's encoding
	Payload  json.RawMessage `json:"payload,omitempty"`
	Type     string          `json:"type,omitempty"` // the job's type, "" for none
	// Attempt counts the deliveries with a lease, this one included; 0 without a lease.
	Attempt int `json:"attempt,omitempty"`
	// Token proves the lease: Ack, Extend and Nack need it, so a consumer whose lease ended
	// cannot end the lease of the consumer that has the job now. Random and unguessable;
	// "" without a lease.
	Token string `json:"token,omitempty"`
	// LeaseDeadline is when the lease ends: ack (or extend) before then, or the reaper
	// returns the job to its queue and the token stops working. Nil without a lease.
	LeaseDeadline *time.Time `json:"lease_deadline,omitempty"`
}

// PollOptions say how to take a job.
type PollOptions struct {
	// Lease, when not zero, asks for at-least-once delivery: the job moves atomically to the
	// queue's processing set until it is acked or the lease (MinLease..MaxLease) ends.
	Lease time.Duration
	// Wait, when not zero, blocks up to Wait (whole seconds, at most MaxTakeWait) for a job: BZPOPMIN, on
	// connections of its own. Priority queues only, and not with a lease.
	Wait time.Duration
	// Consumer names who polls (ConsumerID): a poll with a lease records it among the
	// queue's consumers, and its lease as theirs. "": not recorded.
	Consumer string
}

// Validate checks the options for a queue of kind. Returns EINVALID.
func (o PollOptions) Validate(kind QueueKind) error {
	if o.Lease != 0 {
		if err := ValidateLease(o.Lease); err != nil {
			return err
		}
	}
	if o.Wait < 0 || o.Wait > MaxTakeWait || o.Wait%time.Second != 0 {
		return Errorf(EINVALID, "wait_ms must be whole seconds from 0 to %s: 1,000, 2,000, … (got %s)", FormatCount(MaxTakeWait.Milliseconds()), FormatCount(o.Wait.Milliseconds()))
	}
	if o.Wait > 0 && o.Lease > 0 {
		return Errorf(EINVALID, "wait_ms (a blocking take, BZPOPMIN) cannot be combined with lease_ms: poll with a lease instead")
	}
	if o.Wait > 0 && kind == DelayedQueue {
		return Errorf(EINVALID, "wait_ms works on priority queues only: a delayed queue's jobs are polled when due")
	}
	return nil
}

// QueueJob is a job as a queue page lists it. Plain values, so snapshots compare.
type QueueJob struct {
	ID       string
	Score    float64
	Priority int   // -1 when the score is not the article's priority encoding, or on a delayed queue
	AtMs     int64 // enqueued (priority), run-at (delayed), lease deadline (in flight), died (dead)
	Attempts int64
}

// QueueView is a queue as its page shows it (topic QueueTopic). It holds absolute times only
// (the browser shows them as ages and countdowns), so an idle queue's view does not change.
type QueueView struct {
	Queue      string
	Key        string // the queue's sorted set, as the page shows it ("" when it could not be read)
	PayloadKey string // where the jobs' payloads wait for their ack, as the page shows it ("" when unknown)
	Settings   QueueSettings
	Waiting    int64
	ByPriority [MaxPriority + 1]int64 // priority queues
	Other      int64                  // waiting jobs whose score is outside the priority encoding
	Due        int64                  // delayed queues: jobs whose run-at has come
	Scheduled  int64                  // jobs still waiting for their run-at (delayed) or a retry (priority: nacked with a delay, not in Waiting)
	NextDue    []QueueJob             // the next jobs to come due; a priority queue's retries, with their priority and kept Score
	Head       []QueueJob             // the next jobs a poll takes
	OldestAtMs int64                  // when the oldest waiting job was enqueued (due, on a delayed queue); -1: none
	Processing int64
	InFlight   []QueueJob // by lease deadline, soonest first
	Dead       int64
	DeadJobs   []QueueJob // most recent first
	// Orphans counts payloads that belong to no job (taken by a foreign ZPOPMIN, or whose id
	// was re-added by another service): they wait OrphanGrace, then the reaper removes them.
	Orphans int64
	// Paused says polls through zpulse take nothing (JobOps.SetPaused).
	Paused bool
	// Enqueued and Completed are per-second counts of the last ThroughputSeconds, oldest
	// first, ending with the second before the read: jobs enqueued, and jobs acked or taken
	// without a lease, through zpulse (a foreign consumer's ZPOPMIN is not seen).
	Enqueued  []int64
	Completed []int64
	// ThroughputFromSec is the Unix second of Enqueued[0] and Completed[0], 0 when every
	// count is 0. A page draws the series at their absolute seconds and the browser slides
	// them, so a sparkline whose counts did not change renders the same from second to second.
	ThroughputFromSec int64
	// Consumers are those that polled with a lease in the last ConsumerTTL, the latest
	// poll first.
	Consumers []Consumer
	// Unread says the queue could not be read (Redis unavailable): its counts and lists are
	// unknown, not zero, and a page says so.
	Unread bool
}

// OrphanGrace is how long a payload that belongs to no job is kept before the reaper removes
// it: time for a look on the queue page.
const OrphanGrace = 10 * time.Minute

// ThroughputSeconds is how far back a queue's sparkline goes.
const ThroughputSeconds = 180

// QueueShown bounds the jobs of each list a queue view shows.
const QueueShown = 10

// QueueSummary is a queue as the overview lists it.
type QueueSummary struct {
	Queue      string    `json:"queue"`
	Kind       QueueKind `json:"kind"`
	Waiting    int64     `json:"waiting"`
	Due        int64     `json:"due"`
	Processing int64     `json:"processing"`
	Dead       int64     `json:"dead"`
	// Paused says polls through zpulse take nothing (JobOps.SetPaused).
	Paused bool `json:"paused"`
	// WrongType is the Redis type of the queue's key when another service keeps another type
	// than a sorted set there ("list"), shown as domain.NotASortedSet; "" for a queue.
	WrongType string `json:"wrong_type,omitempty"`
}

// QueueStats are a queue's depth stats as the API gives them.
type QueueStats struct {
	Queue       string                 `json:"queue"`
	Kind        QueueKind              `json:"kind"`
	MaxAttempts int                    `json:"max_attempts"`
	Total       int64                  `json:"total"`
	ByPriority  map[string]int64       `json:"by_priority,omitempty"`
	Due         int64                  `json:"due"`
	Scheduled   int64                  `json:"scheduled"`
	NextDue     []ScheduledJobResponse `json:"next_due,omitempty"`
	Processing  int64                  `json:"processing"`
	Dead        int64                  `json:"dead"`
	OldestAgeMs *int64                 `json:"oldest_age_ms"`
	Paused      bool                   `json:"paused"` // polls through zpulse take nothing
}

// ScheduledJobResponse is a delayed job in the API's stats.
type ScheduledJobResponse struct {
	ID    string    `json:"id"`
	RunAt time.Time `json:"run_at"`
}

// Where says which of a queue's sets a job is in.
type Where string

const (
	Waiting    Where = "waiting"
	InFlight   Where = "processing"
	DeadLetter Where = "dead"
	// Retrying is a priority queue's job nacked with a delay: out of the queue until the
	// delay is over, then back at its priority (JobScheduled on its page).
	Retrying Where = "scheduled"
)

// QueueService keeps job queues in sorted sets with the reference article's keys and scores,
// so the article's producers and consumers share them with zpulse.
type QueueService interface {
	JobOps
	ConsumerReader

	// Enqueue adds a job. Priority queues score it priority*1e13 + now ms; delayed queues
	// score it with its run-at ms. Returns ECONFLICT when that id is already waiting, in
	// flight or dead (the waiting job is not moved), or completed less than
	// CompletedRetention ago (so an enqueue retried after EUNKNOWN never runs a job twice);
	// EINVALID for a bad name, id, priority, time or payload, or options that do not fit the
	// queue's kind; EUNAVAILABLE; EUNKNOWN.
	Enqueue(ctx context.Context, queue string, job NewJob) (Enqueued, error)

	// EnqueueBatch is Enqueue for 1..MaxBatchJobs jobs in one call, each its own atomic step
	// with its own Result. Returns EINVALID for a bad name or batch size, EUNAVAILABLE.
	EnqueueBatch(ctx context.Context, queue string, jobs []NewJob) ([]Result[Enqueued], error)

	// Poll takes the job that leaves first: the lowest score (ZPOPMIN) of a priority queue,
	// the earliest due job (the article's POP_DUE) of a delayed queue. Two consumers never get
	// one job. With a lease the job moves atomically into the processing set until Ack; with a
	// wait it blocks (BZPOPMIN) without delaying any other command. ok is false when the queue
	// is empty or nothing is due. Returns EINVALID, EUNAVAILABLE, or ctx's error.
	Poll(ctx context.Context, queue string, opt PollOptions) (d Delivery, ok bool, err error)

	// PollBatch leases up to n (1..MaxBatchPoll) jobs in one call, each as Poll with a lease
	// and each with its own lease token; fewer when fewer are due. Returns EINVALID,
	// EUNAVAILABLE.
	PollBatch(ctx context.Context, queue string, n int, lease time.Duration, consumer string) ([]Delivery, error)

	// Ack completes a leased job: it leaves the processing set with its payload and attempt
	// count, and is remembered as completed for CompletedRetention. token is the lease's
	// (Delivery.Token). An ack repeated with the same token after it succeeded succeeds again
	// (safe to retry). Returns ECONFLICT when the lease of token ended (its deadline passed, or
	// the reaper returned the job) or passed to another consumer, or another consumer's ack
	// completed the job; ENOTFOUND when the job is not in flight at all; EINVALID;
	// EUNAVAILABLE; EUNKNOWN.
	Ack(ctx context.Context, queue, id, token string) error

	// AckBatch is Ack for 1..MaxBatchAcks leased jobs in one call, each its own atomic step;
	// the answer holds each ack's error (nil: acked). Returns EINVALID for a bad name or batch
	// size, EUNAVAILABLE.
	AckBatch(ctx context.Context, queue string, acks []AckItem) ([]error, error)

	// Extend is a heartbeat: the lease of token now ends lease (MinLease..MaxLease) after
	// now, so a worker on a long job keeps it. Returns the new deadline. Errors as Ack.
	Extend(ctx context.Context, queue, id, token string, lease time.Duration) (time.Time, error)

	// Nack gives a leased job back: to its place in its queue at once, or delay (0..MaxDelay)
	// after now: a delayed queue's job is due then; a priority queue's waits out of its queue
	// (no poll, not even a foreign ZPOPMIN, takes it before) and then returns to its place at
	// its priority. Or, when it was delivered MaxAttempts times, to the dead set.
	// The delivery counts as an attempt, and errMsg (at most MaxErrorBytes; may be "") is kept
	// with the job's last AttemptErrorsKept errors. Returns where the job went (Waiting,
	// Retrying or DeadLetter). Errors as Ack.
	Nack(ctx context.Context, queue, id, token string, delay time.Duration, errMsg string) (Where, error)

	// AttemptErrors returns the kept errors of a job's failed attempts, oldest first (none
	// for a job that never failed). Returns EINVALID, EUNAVAILABLE.
	AttemptErrors(ctx context.Context, queue, id string) ([]AttemptError, error)

	// Reap returns every job whose lease ended to its queue with its score, or moves it to the
	// dead set once it was delivered MaxAttempts times, and returns retries whose delay is
	// over to their priority queue (see Nack), in every known queue. It returns how many jobs
	// went back (both kinds) and how many died. Run it in one instance at a time (Singleton),
	// with that term's fencing token: a queue refuses a fence lower than the highest one it
	// has seen, so a reaper that lost its term while paused never reaps beside its successor.
	// Returns ECONFLICT when a newer reaper's fence was seen (the caller's term is over);
	// EUNAVAILABLE.
	Reap(ctx context.Context, fence int64) (returned, died int64, err error)

	// Requeue puts a dead job back in its queue, due now (a priority queue keeps its
	// priority), with its attempts reset. Returns ENOTFOUND when the job is not dead;
	// ECONFLICT when that id is waiting again; EINVALID; EUNAVAILABLE.
	Requeue(ctx context.Context, queue, id string) error

	// Delete removes a job wherever it is (waiting, in flight or dead) with its payload, and
	// says where it was. Returns ENOTFOUND when it is nowhere; EINVALID; EUNAVAILABLE.
	Delete(ctx context.Context, queue, id string) (Where, error)

	// Stats returns a queue's depth. Returns EINVALID, EUNAVAILABLE.
	Stats(ctx context.Context, queue string) (QueueStats, error)

	// Settings returns a queue's settings (the defaults when none were saved).
	// Returns EINVALID, EUNAVAILABLE.
	Settings(ctx context.Context, queue string) (QueueSettings, error)

	// UpdateSettings validates and saves a queue's settings. Changing the kind of a queue that
	// has waiting jobs is refused (their scores mean something else). Returns EINVALID;
	// ECONFLICT; EUNAVAILABLE.
	UpdateSettings(ctx context.Context, queue string, s QueueSettings) (QueueSettings, error)

	// PatchSettings changes the fields the patch gives and keeps the others, atomically in
	// Redis, with UpdateSettings's rule on the kind, and returns the settings as saved.
	// Returns EINVALID; ECONFLICT; EUNAVAILABLE.
	PatchSettings(ctx context.Context, queue string, p QueueSettingsPatch) (QueueSettings, error)

	// Queues lists every queue, those zpulse wrote to and the queue:* sorted sets other
	// services wrote, as last discovered, sorted by name. Returns EUNAVAILABLE.
	Queues(ctx context.Context) ([]string, error)

	// Summaries returns every queue as the queues list shows it (its depths), sorted by name.
	// It reads Redis only: it never changes what the live watcher knows. Returns EUNAVAILABLE.
	Summaries(ctx context.Context) ([]QueueSummary, error)

	// View returns a queue as its page shows it, in one round trip; a queue that does not
	// exist yet is its empty view with the default settings. Returns EINVALID, EUNAVAILABLE.
	View(ctx context.Context, queue string) (QueueView, error)
}

// DrainDue is the article's delayed-queue worker (its @Scheduled method): it polls a queue
// until nothing is due, handing each job to handle, and returns how many it handled. With a
// lease, a job is acked when handle returns nil and nacked with handle's error otherwise (it
// comes back at once, until its attempts run out). A lease that ended meanwhile (ECONFLICT)
// is not an error: the job is someone else's now. It stops at the first Redis error or when
// ctx ends.
func DrainDue(ctx context.Context, q QueueService, queue string, lease time.Duration, handle func(context.Context, Delivery) error) (int, error) {
	n := 0
	for ctx.Err() == nil {
		d, ok, err := q.Poll(ctx, queue, PollOptions{Lease: lease})
		if err != nil || !ok {
			return n, err
		}
		n++
		herr := handle(ctx, d)
		if lease == 0 {
			continue
		}
		if herr == nil {
			err = q.Ack(ctx, queue, d.ID, d.Token)
		} else {
			_, err = q.Nack(ctx, queue, d.ID, d.Token, 0, clipUTF8(herr.Error(), MaxErrorBytes))
		}
		if code := ErrorCode(err); err != nil && code != ECONFLICT && code != ENOTFOUND {
			return n, err
		}
	}
	return n, ctx.Err()
}
