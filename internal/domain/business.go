package domain

import "context"

// Business is what /metrics reports about the data zpulse watches (not about zpulse itself),
// read from Redis at scrape time. Each list is cut at the scrape's cap; Dropped says how many
// of each kind were left out.
type Business struct {
	Queues    []QueueCounts
	Limiters  []LimiterCounts
	Boards    []BoardCounts
	LocksHeld int64
	Dropped   map[HistoryKind]int
}

// QueueCounts are a queue's jobs by state, as the queue's API reports them (QueueStats:
// waiting is Due, scheduled is Scheduled), and its totals since history recording began.
type QueueCounts struct {
	Queue              string
	Waiting, Scheduled int64
	InFlight, Dead     int64
	OldestWaitingMs    int64 // -1: nothing is waiting
	Completed, Failed  int64
	Enqueued           int64
	Paused             bool
	// Durations are its lease-to-ack times since zpulse first counted them.
	Durations DurationHistogram
}

// LimiterCounts are a policy's checks since history recording began.
type LimiterCounts struct {
	Limiter           string
	Allowed, Rejected int64
}

// BoardCounts is a board's size.
type BoardCounts struct {
	Board   string
	Players int64
}

// BusinessReader reads Business in one round trip, at most limit entities of each kind.
type BusinessReader interface {
	Snapshot(ctx context.Context, limit int) (Business, error)
}
