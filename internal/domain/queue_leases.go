package domain

import (
	"strings"
	"time"
	"unicode/utf8"
)

// Leased delivery (at-least-once): the limits and records of leases, their tokens, the
// errors of failed attempts, and the completions that make an enqueue safe to retry.

// Lease limits.
const (
	MaxErrorBytes     = 4 << 10 // a nack's error message
	AttemptErrorsKept = 10      // the errors of a job's last attempts that are kept
)

// Completed jobs are remembered so that an enqueue is safe to retry: after a job completed
// (acked, or taken without a lease, through zpulse), an enqueue of the same id within
// CompletedRetention is answered ECONFLICT ("it already ran") instead of running it again.
// A queue remembers at most CompletedKept ids (the oldest are forgotten first), so the
// record stays bounded however fast jobs complete: about 100 bytes per id, 1 MB per queue.
const (
	CompletedRetention = 10 * time.Minute
	CompletedKept      = 10_000
)

// AttemptError is why one delivery of a job failed: the message of a Nack, or the reaper's
// note that the lease ended without an ack.
type AttemptError struct {
	Attempt int       `json:"attempt"`
	At      time.Time `json:"at"`
	Error   string    `json:"error"`
	// DurationMs is how long the attempt held its lease, from the lease to the nack or to
	// the reaper's return; nil when not known (leased before zpulse recorded lease starts).
	DurationMs *int64 `json:"duration_ms,omitempty"`
	// Edit, on an entry that is no failure, says what an operator changed before a retry
	// (JobBulkOps.Retry); Error is "" then.
	Edit string `json:"edit,omitempty"`
}

// LeaseEndedError is the AttemptError message the reaper records for a lease that ended.
const LeaseEndedError = "the lease ended without an ack"

// ValidateLease checks a lease length: whole ms from MinLease to MaxLease. Returns EINVALID.
func ValidateLease(d time.Duration) error {
	if d < MinLease || d > MaxLease || d%time.Millisecond != 0 {
		return Errorf(EINVALID, "lease_ms must be a whole number of milliseconds from %s to %s (got %v)", FormatCount(MinLease.Milliseconds()), FormatCount(MaxLease.Milliseconds()), d)
	}
	return nil
}

// ValidateLeaseToken checks that a lease token was given. Returns EINVALID.
func ValidateLeaseToken(token string) error {
	if token == "" || len(token) > 64 {
		return Errorf(EINVALID, "token must be the lease token the poll answered (1 to 64 bytes)")
	}
	return nil
}

// ValidateAttemptError checks a nack's error message: at most MaxErrorBytes of UTF-8.
// Returns EINVALID.
func ValidateAttemptError(msg string) error {
	if len(msg) > MaxErrorBytes || !utf8.ValidString(msg) {
		return Errorf(EINVALID, "error must be at most %d KiB of UTF-8 text (got %d bytes)", MaxErrorBytes>>10, len(msg))
	}
	return nil
}

// clipUTF8 cuts a worker's own error message to at most n bytes of valid UTF-8, so DrainDue
// can always nack with it.
func clipUTF8(s string, n int) string {
	s = strings.ToValidUTF8(s, "?")
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for !utf8.ValidString(s) { // only the cut rune at the end can be broken
		s = s[:len(s)-1]
	}
	return s
}
