package domain

import (
	"context"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"
)

// What operators do with many jobs at once and with one dead job before its retry: find jobs
// by what they hold (a bounded scan), act on a selection or on every job a search matches,
// and requeue a dead job with a changed payload, priority or run-at.

// Search limits. A search reads the state's sorted set in list order, at most MaxSearchScan
// members per call, and the payloads of those members in pipelined HMGETs; it answers where
// it stopped, so the client goes on from there.
const (
	MaxSearchScan  = 1000
	MaxSearchBytes = 200 // the search text
)

// JobSearchOptions ask for one step of a search through a queue's jobs in one state.
type JobSearchOptions struct {
	State JobState
	// Text matches a job whose id starts with it (as typed: ids are exact), or whose payload
	// contains it, ignoring case (Unicode simple folding). "" matches every job.
	Text string
	// IDsOnly matches ids only: for a viewer who may not see payloads, a payload match would
	// tell what a payload holds.
	IDsOnly bool
	Limit   int    // matches at most, 1..MaxJobPage
	Cursor  string // "" from the start, else a JobSearchPage's Next
}

// Validate checks the options. Returns EINVALID.
func (o JobSearchOptions) Validate() error {
	if len(o.Text) > MaxSearchBytes || !utf8.ValidString(o.Text) {
		return Errorf(EINVALID, "q must be at most %d bytes of UTF-8 text (got %d bytes)", MaxSearchBytes, len(o.Text))
	}
	return (JobListOptions{State: o.State, Limit: o.Limit, Cursor: o.Cursor}).Validate()
}

// ErrSearchBackwards refuses a list's prev_cursor given to a search.
var ErrSearchBackwards = Errorf(EINVALID, "a search goes forward only: pass its next_cursor back unchanged, or leave cursor out to start again")

// Matches says whether a job of id and payload (nil: none, or not to be searched) matches
// the search text, and by what: "id" or "payload"; "" when it does not.
func (o JobSearchOptions) Matches(id string, payload []byte) string {
	switch {
	case strings.HasPrefix(id, o.Text):
		return "id"
	case !o.IDsOnly && len(payload) > 0 && containsFold(string(payload), o.Text):
		return "payload"
	}
	return ""
}

// containsFold is strings.Contains ignoring case.
func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// JobMatch is a job a search found.
type JobMatch struct {
	JobListItem
	Match string `json:"match"` // "id" or "payload"
	// Excerpt is the payload's text around a payload match, the match marked; nil for an id
	// match, and for a reader who does not see payloads (Audience.JobSearch).
	Excerpt *Excerpt `json:"excerpt,omitempty"`
}

// JobSearchPage is one step of a search: the matches among the jobs it scanned, in list order.
type JobSearchPage struct {
	Queue string     `json:"queue"`
	State JobState   `json:"state"`
	Text  string     `json:"q"`
	Jobs  []JobMatch `json:"jobs"`
	// Scanned counts the jobs this step read (at most MaxSearchScan). Next goes on after the
	// last of them; "" when the state's jobs are all scanned.
	Scanned int64  `json:"scanned"`
	Next    string `json:"next_cursor,omitempty"`
	// PayloadsSearched is false when only ids were matched (JobSearchOptions.IDsOnly).
	PayloadsSearched bool      `json:"payloads_searched"`
	Counts           JobCounts `json:"counts"`
}

// BulkAction is what a bulk call does to each job.
type BulkAction string

const (
	BulkRequeue BulkAction = "requeue" // a dead job back to its queue, as Requeue
	BulkDelete  BulkAction = "delete"  // a job wherever it is, as Delete
	BulkKill    BulkAction = "dead"    // a waiting, scheduled or in-flight job to the dead set
)

// ParseBulkAction reads an action as the API and the page give it. Returns EINVALID.
func ParseBulkAction(s string) (BulkAction, error) {
	switch a := BulkAction(s); a {
	case BulkRequeue, BulkDelete, BulkKill:
		return a, nil
	}
	return "", Errorf(EINVALID, `action must be "requeue", "delete" or "dead" (got %q)`, clip(s))
}

// Bulk limits: ids named in one call, jobs one match call scans, and the failures an answer
// lists (it counts them all). Each batch of at most DeadBatch jobs is one atomic script.
const (
	MaxBulkIDs      = 1000
	MaxBulkScan     = 10 * MaxSearchScan
	MaxBulkFailures = 100
)

// Why a job of a bulk call was not acted on.
const (
	BulkNotFound   = "not_found"   // not waiting, scheduled, in flight or dead
	BulkWrongState = "wrong_state" // the action does not apply to its state (requeue: not dead; dead: dead already)
	BulkConflict   = "conflict"    // a job of the same id is also waiting (requeue), or also dead (dead)
)

// KilledByOperator is the error kept for a job a bulk call moved to the dead set.
const KilledByOperator = "moved to the dead set by an operator"

// BulkRequest names the jobs of a bulk call: IDs, or every job Match finds (its Limit and
// IDsOnly are ignored: a bulk call matches payloads, and acts on every match it scans).
type BulkRequest struct {
	Action BulkAction
	IDs    []string
	Match  *JobSearchOptions
}

// Validate checks the request. Returns EINVALID.
func (r BulkRequest) Validate() error {
	if _, err := ParseBulkAction(string(r.Action)); err != nil {
		return err
	}
	if (r.Match == nil) == (len(r.IDs) == 0) {
		return Errorf(EINVALID, "give ids (1 to %d job ids) or match ({state, q, cursor}), one of them", MaxBulkIDs)
	}
	if r.Match != nil {
		if r.Match.State == JobCompleted {
			return Errorf(EINVALID, "completed jobs are a record of what ran: bulk actions apply to waiting, scheduled, in_flight and dead jobs")
		}
		m := *r.Match
		m.Limit = MaxJobPage
		return m.Validate()
	}
	if err := ValidateBatch("ids", len(r.IDs), MaxBulkIDs); err != nil {
		return err
	}
	for i, id := range r.IDs {
		if err := ValidateJobID(id); err != nil {
			return Errorf(EINVALID, "ids[%d]: %s", i, ErrorMessage(err))
		}
	}
	return nil
}

// BulkFailure is a job a bulk call did not act on, and why.
type BulkFailure struct {
	ID     string   `json:"id"`
	Reason string   `json:"reason"`          // BulkNotFound, BulkWrongState, BulkConflict
	State  JobState `json:"state,omitempty"` // where the job was, when it was somewhere
}

// BulkJobsResult says what a bulk call did.
type BulkJobsResult struct {
	Queue  string     `json:"queue"`
	Action BulkAction `json:"action"`
	Done   int64      `json:"done"`
	Failed int64      `json:"failed"`
	// Failures are the first MaxBulkFailures failed jobs, in the order they were met.
	Failures []BulkFailure `json:"failures"`
	Batches  int           `json:"batches"`
	// Scanned and Next are a match call's: the jobs it read, and where to go on ("": done).
	Scanned int64  `json:"scanned,omitempty"`
	Next    string `json:"next_cursor,omitempty"`
}

// JobRetry is a change to a dead job before it is requeued. Fields left unset keep what the
// job had: its payload, its priority (priority queue), due now (delayed queue).
type JobRetry struct {
	Payload     json.RawMessage // a JSON value; with HasPayload and none, the payload is removed
	HasPayload  bool
	Priority    int
	HasPriority bool
	RunAt       time.Time // zero: due now
}

// Validate checks the change. Returns EINVALID.
func (r JobRetry) Validate() error {
	if r.HasPriority {
		if err := ValidatePriority(r.Priority); err != nil {
			return err
		}
	}
	if r.HasPriority && !r.RunAt.IsZero() {
		return Errorf(EINVALID, "give a priority (priority queue) or a run_at (delayed queue), not both")
	}
	return ValidatePayload(r.Payload)
}

// Retried is a dead job requeued by Retry, and the change recorded in its history.
type Retried struct {
	Enqueued
	// Edit says what changed, as the job's history keeps it (AttemptError.Edit): of the
	// payload, which parts, not their values.
	Edit string `json:"edit"`
	// PayloadChanges are the payload's changes with their values, for whoever requeued it.
	PayloadChanges []PayloadChange `json:"payload_changes,omitempty"`
}

// JobBulkOps are what operators do with many jobs, and with a dead job before its retry.
// Part of JobOps.
type JobBulkOps interface {
	// SearchJobs scans up to MaxSearchScan jobs of one state, in list order from the cursor,
	// and returns those that match (at most opt.Limit; the step stops at the last one).
	// Each job's payload is read after its id (not one atomic read). Returns EINVALID;
	// EUNAVAILABLE.
	SearchJobs(ctx context.Context, queue string, opt JobSearchOptions) (JobSearchPage, error)

	// BulkJobs acts on the jobs named (or matched, scanning up to MaxBulkScan) in atomic
	// batches of DeadBatch, each job in the state it has at its batch's step, and says how
	// many were done and which failed. Returns EINVALID; EUNAVAILABLE (the batches before it
	// stay done: the result says how many).
	BulkJobs(ctx context.Context, queue string, req BulkRequest) (BulkJobsResult, error)

	// Retry requeues a dead job as Requeue does, after the change r, in one atomic step,
	// and keeps what changed in the job's history (its AttemptErrors). Returns ENOTFOUND
	// when the queue does not hold the job; ECONFLICT when it is not dead (waiting,
	// scheduled, in flight or retrying: the message says which) or that id is waiting
	// again; EINVALID (a
	// priority on a delayed queue, a run-at on a priority queue or out of range);
	// EUNAVAILABLE.
	Retry(ctx context.Context, queue, id string, r JobRetry) (Retried, error)
}
