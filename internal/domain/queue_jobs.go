package domain

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
)

// What operators do with one job and with a queue's dead set: a job's detail, the lists of a
// queue's jobs by state (paged with a keyset cursor), dead letters in bulk, and pausing a
// queue.

// JobState is where a job is, as the job lists and the job page name it.
type JobState string

const (
	JobWaiting   JobState = "waiting"   // in the queue and due: a poll may take it now
	JobScheduled JobState = "scheduled" // in a delayed queue, its run-at still to come; or a priority queue's job nacked with a delay, until it returns
	JobInFlight  JobState = "in_flight" // leased, not acked yet
	JobDead      JobState = "dead"      // out of attempts
	JobCompleted JobState = "completed" // acked, kept as CompletedPolicy says
)

// JobStates are the states in the order pages show them.
var JobStates = []JobState{JobWaiting, JobScheduled, JobInFlight, JobDead, JobCompleted}

// ParseJobState reads a state as the API's ?state= gives it. Returns EINVALID.
func ParseJobState(s string) (JobState, error) {
	for _, st := range JobStates {
		if string(st) == s {
			return st, nil
		}
	}
	return "", Errorf(EINVALID, "state must be one of waiting, scheduled, in_flight, dead, completed (got %q)", clip(s))
}

// Job list limits.
const (
	DefaultJobPage = 50
	MaxJobPage     = 500
)

// JobDetail is one job as its page and GET /api/v1/queues/:queue/jobs/:id show it (topic
// JobTopic). Plain values, so two reads of one state are equal and the live path pushes only
// changes.
type JobDetail struct {
	Queue string    `json:"queue"`
	ID    string    `json:"id"`
	Kind  QueueKind `json:"kind"`
	State JobState  `json:"state"`
	// Type is the job's type as enqueued ("" for none), kept through every move.
	Type string `json:"type,omitempty"`
	// Score is the job's score in its queue: now while waiting or scheduled, the one it had
	// (and goes back with) while in flight, dead or waiting out a retry delay (RetryAt); 0 when not known (taken by a foreign
	// consumer's ZPOPMIN and leased by nobody).
	Score float64 `json:"score"`
	// Priority and EnqueuedAt are read from a priority queue's score; RunAt is a delayed
	// queue's. Nil when the score does not hold them.
	Priority   *int       `json:"priority,omitempty"`
	EnqueuedAt *time.Time `json:"enqueued_at,omitempty"`
	RunAt      *time.Time `json:"run_at,omitempty"`
	// RetryAt is when a priority queue's job nacked with a delay returns to its queue, at
	// Priority, to the place Score holds (state scheduled); nil otherwise.
	RetryAt *time.Time `json:"retry_at,omitempty"`
	// Payload is the job's JSON as enqueued; nil when it has none.
	Payload json.RawMessage `json:"payload,omitempty"`
	// PayloadHidden says Payload was withheld: the reader's Audience does not see JobPayloads.
	PayloadHidden bool `json:"payload_hidden,omitempty"`
	// Attempts counts the deliveries with a lease so far; MaxAttempts is when it dies.
	Attempts    int `json:"attempts"`
	MaxAttempts int `json:"max_attempts"`
	// LeaseHolder names the lease of a job in flight: a fingerprint of its token (never the
	// token, which would let a reader ack someone else's job). LeaseDeadline is when it ends.
	LeaseHolder   string     `json:"lease_holder,omitempty"`
	LeaseDeadline *time.Time `json:"lease_deadline,omitempty"`
	// LeasedAt is when the lease of a job in flight began (its attempt's start); nil when
	// not known.
	LeasedAt *time.Time `json:"leased_at,omitempty"`
	DiedAt   *time.Time `json:"died_at,omitempty"`
	// CompletedAt, DurationMs and Consumer are a completed job's: when it was acked, how
	// long from its lease to the ack (nil when not known), and the consumer that polled it
	// ("" when it gave no name).
	CompletedAt *time.Time `json:"completed_at,omitempty"`
	DurationMs  *int64     `json:"duration_ms,omitempty"`
	Consumer    string     `json:"consumer,omitempty"`
	// Errors are the kept errors of its failed attempts, oldest first.
	Errors []AttemptError `json:"errors"`
	// Paused says the queue is paused: polls through zpulse take nothing.
	Paused bool `json:"queue_paused"`
}

// JobListItem is one job of a list by state.
type JobListItem struct {
	ID    string    `json:"id"`
	Type  string    `json:"type,omitempty"` // the job's type, "" for none
	Score float64   `json:"score"`
	At    time.Time `json:"at"` // enqueued (priority), run-at (delayed), lease deadline (in flight), died (dead), completed
	// Priority is a waiting job's priority on a priority queue; nil otherwise.
	Priority *int `json:"priority,omitempty"`
	// LastError is a dead job's last error, shortened (ShortError; the whole one is on the
	// job's page); "" otherwise.
	LastError string `json:"last_error,omitempty"`
}

// JobCounts are a queue's jobs per state.
type JobCounts struct {
	Waiting   int64 `json:"waiting"`
	Scheduled int64 `json:"scheduled"`
	InFlight  int64 `json:"in_flight"`
	Dead      int64 `json:"dead"`
	Completed int64 `json:"completed"`
}

// Of returns the count of one state.
func (c JobCounts) Of(s JobState) int64 {
	switch s {
	case JobWaiting:
		return c.Waiting
	case JobScheduled:
		return c.Scheduled
	case JobInFlight:
		return c.InFlight
	case JobCompleted:
		return c.Completed
	default:
		return c.Dead
	}
}

// JobPage is one page of a list by state. Next and Prev are opaque cursors ("" at either end).
type JobPage struct {
	Queue  string        `json:"queue"`
	State  JobState      `json:"state"`
	Jobs   []JobListItem `json:"jobs"`
	Next   string        `json:"next_cursor,omitempty"`
	Prev   string        `json:"prev_cursor,omitempty"`
	Counts JobCounts     `json:"counts"`
}

// JobListOptions ask for one page of a list by state.
type JobListOptions struct {
	State  JobState
	Limit  int    // 1..MaxJobPage
	Cursor string // "" for the first page, else a JobPage's Next or Prev
}

// JobOrderDescending says a list by state is in decreasing (score, id) order: dead jobs,
// latest death first. Waiting and scheduled jobs are listed in the order they leave, jobs in
// flight by lease deadline; completed jobs newest first.
func JobOrderDescending(s JobState) bool { return s == JobDead || s == JobCompleted }

// JobCursor is a position in a list by state, between two jobs: the list continues after
// (or, Back, before) the job of score Score and id ID. Lists are ordered by (score, id) as
// Redis orders a sorted set, so a cursor names one place however the set changes: a job
// present the whole time is seen exactly once. Encoded as opaque base64url text signed with
// an HMAC of the queue's name and the position, so a hand-edited cursor, or one of another
// queue, is refused rather than read.
type JobCursor struct {
	State JobState
	Back  bool
	Score float64
	ID    string
}

var b64 = base64.RawURLEncoding

// jobCursorMACBytes is the length of a cursor's signature: 128 bits.
const jobCursorMACBytes = 16

// Encode returns the cursor's opaque text for a list of queue, signed with key.
func (c JobCursor) Encode(key []byte, queue string) string {
	dir := "n"
	if c.Back {
		dir = "p"
	}
	raw := "j1|" + string(c.State) + "|" + dir + "|" + strconv.FormatFloat(c.Score, 'g', -1, 64) + "|" + c.ID
	return b64.EncodeToString([]byte(raw)) + "." + b64.EncodeToString(jobCursorMAC(key, queue, raw))
}

func jobCursorMAC(key []byte, queue, raw string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(queue))
	m.Write([]byte{0})
	m.Write([]byte(raw))
	return m.Sum(nil)[:jobCursorMACBytes]
}

// ParseJobCursor reads a cursor of queue's list of state, signed with key. A cursor that is
// not one zpulse made (or was changed), or was made for another queue or state, is EINVALID.
func ParseJobCursor(s string, state JobState, key []byte, queue string) (JobCursor, error) {
	bad := Errorf(EINVALID, "cursor is not one this list gave (it was changed, or belongs to another list): pass next_cursor or prev_cursor back unchanged, or leave it out for the first page")
	if len(s) > 250 {
		return JobCursor{}, bad
	}
	body, sig, _ := strings.Cut(s, ".")
	raw, err := b64.DecodeString(body)
	mac, merr := b64.DecodeString(sig)
	if err != nil || merr != nil || !hmac.Equal(mac, jobCursorMAC(key, queue, string(raw))) {
		return JobCursor{}, bad
	}
	parts := strings.SplitN(string(raw), "|", 5)
	if len(parts) != 5 || parts[0] != "j1" || parts[1] != string(state) || (parts[2] != "n" && parts[2] != "p") {
		return JobCursor{}, bad
	}
	score, err := strconv.ParseFloat(parts[3], 64)
	if err != nil || math.IsNaN(score) || math.IsInf(score, 0) || ValidateJobID(parts[4]) != nil {
		return JobCursor{}, bad
	}
	return JobCursor{State: state, Back: parts[2] == "p", Score: score, ID: parts[4]}, nil
}

// Validate checks the options. Returns EINVALID.
func (o JobListOptions) Validate() error {
	if _, err := ParseJobState(string(o.State)); err != nil {
		return err
	}
	if o.Limit < 1 || o.Limit > MaxJobPage {
		return Errorf(EINVALID, "limit must be a whole number from 1 to %d (got %d)", MaxJobPage, o.Limit)
	}
	return nil // the cursor is checked by the list, which holds the key it was signed with
}

// JobPrefixNote says why a list is not filtered by id prefix, and what to use: said once, for
// the API and the page.
const JobPrefixNote = "A list is not filtered by id prefix: a queue's sorted sets order jobs by score " +
	"(priority and time, lease deadline, time of death), so a prefix filter would read the whole set. " +
	"Search instead (q=): it matches id prefixes and payload text, scanning at most 1,000 jobs a step and saying where to go on."

// DeadBatch bounds the dead jobs one bulk script moves or deletes: each batch is atomic, and
// no script runs long enough to hold other clients up.
const DeadBatch = 500

// BulkResult says what a bulk action on the dead set did.
type BulkResult struct {
	Queue string `json:"queue"`
	// Moved counts the jobs requeued or deleted.
	Moved int64 `json:"moved"`
	// Skipped counts the dead jobs a requeue left dead because a job of the same id waits
	// again.
	Skipped int64 `json:"skipped"`
	Batches int   `json:"batches"`
}

// JobOps are what operators do with one job, a list of jobs and the dead set. Part of the
// queues' implementation (redisrepo/queues.Queues).
type JobOps interface {
	JobBulkOps
	DeadErrorOps

	// Job returns one job wherever it is. Returns ENOTFOUND when it is not waiting,
	// scheduled, in flight or dead; EINVALID; EUNAVAILABLE.
	Job(ctx context.Context, queue, id string) (JobDetail, error)

	// Jobs returns one page of a queue's jobs in one state, with the count of each state.
	// Returns EINVALID (bad state, limit or cursor); EUNAVAILABLE.
	Jobs(ctx context.Context, queue string, opt JobListOptions) (JobPage, error)

	// RequeueDead puts every dead job back in its queue as Requeue does, in atomic batches
	// of DeadBatch, and says how many moved. Returns EINVALID; EUNAVAILABLE (the batches
	// before it stay done: BulkResult says how many).
	RequeueDead(ctx context.Context, queue string) (BulkResult, error)

	// DeleteDead deletes every dead job with what is kept beside it, in atomic batches of
	// DeadBatch. Errors as RequeueDead.
	DeleteDead(ctx context.Context, queue string) (BulkResult, error)

	// EachDead calls fn with every dead job, latest death first, reading DeadBatch at a time
	// with a keyset cursor (for the CSV export); it stops at fn's first error.
	// Returns EINVALID; EUNAVAILABLE; fn's error.
	EachDead(ctx context.Context, queue string, fn func(JobDetail) error) error

	// SetPaused pauses (true) or resumes a queue: while it is paused, polls and takes
	// through zpulse answer nothing. Consumers that read Redis directly are not stopped.
	// Returns EINVALID; EUNAVAILABLE.
	SetPaused(ctx context.Context, queue string, paused bool) error

	// Paused says whether a queue is paused (SetPaused). Returns EINVALID; EUNAVAILABLE.
	Paused(ctx context.Context, queue string) (bool, error)
}
