package domain

import (
	"encoding/json"
	"time"
	"unicode"
	"unicode/utf8"
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
	// Type says what kind of work the job is (e.g. "email.send"): "" for none, else 1 to
	// MaxJobType characters of printable UTF-8 (ValidateJobType). Kept beside the job
	// (the queue's types hash), never inside the article's encoding.
	Type string
}

// ValidateJobType checks a job's type as field names it: 1 to MaxJobType characters of
// printable UTF-8 (no control or invisible characters). Returns EINVALID naming field.
func ValidateJobType(field, t string) error {
	switch {
	case t == "":
		return FieldErrorf(field, EINVALID, "%s must be 1 to %d characters of printable UTF-8, e.g. email.send (got an empty one; leave it out for none)", field, MaxJobType)
	case !utf8.ValidString(t):
		return FieldErrorf(field, EINVALID, "%s must be 1 to %d characters of printable UTF-8 (got invalid UTF-8)", field, MaxJobType)
	case utf8.RuneCountInString(t) > MaxJobType:
		return FieldErrorf(field, EINVALID, "%s must be 1 to %d characters of printable UTF-8 (got %d)", field, MaxJobType, utf8.RuneCountInString(t))
	}
	for _, r := range t {
		if !unicode.IsPrint(r) {
			return FieldErrorf(field, EINVALID, "%s must be 1 to %d characters of printable UTF-8: control and invisible characters are not allowed (found %U)", field, MaxJobType, r)
		}
	}
	return nil
}

// NewJobFields are the fields of a job to enqueue, in the order their problems are reported.
var NewJobFields = []string{"id", "type", "priority", "delay", "run_at", "payload"}

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
	if j.Type != "" {
		if err := ValidateJobType("type", j.Type); err != nil {
			problems["type"] = err
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
