package domain

import "time"

// Completed jobs kept for operators: an ack keeps the job, per queue, newest first, with
// when it completed, how long its lease ran, the consumer that polled it and its attempts,
// so "did this job run, when, where and how long did it take?" has an answer. Apart from
// the shorter record of CompletedRetention, which only makes an enqueue safe to retry.

// CompletedPolicy is how many completed jobs each queue keeps and for how long
// (--completed-keep, --completed-max-age, --keep-completed-payloads).
type CompletedPolicy struct {
	// Keep is the most completed jobs kept per queue, the newest; 0 keeps none.
	Keep int
	// MaxAge is how long a completed job is kept.
	MaxAge time.Duration
	// Payloads keeps each completed job's payload too (shown under the same rules as a
	// waiting job's: Audience.JobPayloads).
	Payloads bool
}

// Completed jobs' defaults and bounds.
const (
	DefaultCompletedKeep   = 1_000
	MaxCompletedKeep       = 100_000
	DefaultCompletedMaxAge = 24 * time.Hour
	MinCompletedMaxAge     = time.Minute
	MaxCompletedMaxAge     = 30 * 24 * time.Hour
)

// DefaultCompletedPolicy is what zpulse keeps without flags: 1,000 jobs a queue, a day,
// no payloads.
var DefaultCompletedPolicy = CompletedPolicy{Keep: DefaultCompletedKeep, MaxAge: DefaultCompletedMaxAge}

// Validate checks the policy. Returns EINVALID naming the flag.
func (p CompletedPolicy) Validate() error {
	if p.Keep < 0 || p.Keep > MaxCompletedKeep {
		return Errorf(EINVALID, "completed-keep must be a whole number from 0 (keep none) to %d (got %d)", MaxCompletedKeep, p.Keep)
	}
	if p.MaxAge < MinCompletedMaxAge || p.MaxAge > MaxCompletedMaxAge || p.MaxAge%time.Millisecond != 0 {
		return Errorf(EINVALID, "completed-max-age must be a duration from 1m to 720h (30 days), in whole milliseconds (got %v)", p.MaxAge)
	}
	return nil
}
