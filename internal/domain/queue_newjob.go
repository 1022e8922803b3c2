package domain

import (
	"encoding/json"
	"time"
)

// ValidateJobID checks a job id: 1..64 bytes of printable UTF-8, like a player id.
// Returns EINVALID.
func ValidateJobID(id string) error { return ValidateMember("job id", id) }

// ValidatePayload checks a job payload: empty, or one JSON value of at most MaxPayloadBytes.
// Returns EINVALID.
func ValidatePayload(p []byte) error {
	switch {
	case len(p) == 0:
		return nil
	case len(p) > MaxPayloadBytes:
		return Errorf(EINVALID, "payload must be at most %d KiB of JSON (got %d bytes)", MaxPayloadBytes>>10, len(p))
	case !json.Valid(p):
		return Errorf(EINVALID, "payload must be valid JSON, e.g. {\"to\":\"ana@example.com\"}")
	}
	return nil
}

// NewJob is a job to enqueue. On a priority queue Priority is required and RunAt/Delay must
// be zero; on a delayed queue the job runs at RunAt, or Delay after now, or now when both are
// zero, and HasPriority must be false.
type NewJob struct {
	ID          string // "" for a generated id
	Priority    int
	HasPriority bool
	RunAt       time.Time
	Delay       time.Duration
	Payload     json.RawMessage // optional JSON, at most MaxPayloadBytes
}

// NewJobFields are the fields of a job to enqueue, in the order their problems are reported.
var NewJobFields = []string{"id", "priority", "delay", "run_at", "payload"}

// Problems checks a job to enqueue as both the page's form and the API give it, before the
// queue's kind is known: its id, priority, delay and payload, and that it does not have both a
// delay and a run-at time. It returns each problem (an EINVALID) by the field of NewJobFields
// it concerns, and nil when there is none. What depends on the queue (its kind) and on the
// time (the run-at range) the queue checks when it enqueues.
func (j NewJob) Problems() map[string]error {
	problems := map[string]error{}
	if j.ID != "" {
		if err := ValidateJobID(j.ID); err != nil {
			problems["id"] = err
		}
	}
	if j.HasPriority {
		if err := ValidatePriority(j.Priority); err != nil {
			problems["priority"] = err
		}
	}
	if j.Delay < 0 || j.Delay > MaxDelay || j.Delay%time.Millisecond != 0 {
		problems["delay"] = FieldErrorf("delay", EINVALID, "delay must be a whole number of milliseconds from 0 to %s (a year) (got %v)", FormatCount(MaxDelay.Milliseconds()), j.Delay)
	}
	if j.Delay != 0 && !j.RunAt.IsZero() {
		problems["run_at"] = FieldErrorf("run_at", EINVALID, "give a delay or a run-at time, not both")
	}
	if err := ValidatePayload(j.Payload); err != nil {
		problems["payload"] = err
	}
	if len(problems) == 0 {
		return nil
	}
	for field, err := range problems {
		if e, ok := err.(*Error); ok && e.Field == "" {
			e.Field = field // the validators shared with other inputs name no field
		}
	}
	return problems
}

// FirstProblem is the first of Problems in the order of NewJobFields, or nil.
func (j NewJob) FirstProblem() error {
	problems := j.Problems()
	for _, field := range NewJobFields {
		if err := problems[field]; err != nil {
			return err
		}
	}
	return nil
}
