package domain

// Batch limits: how many items one batch call takes.
const (
	MaxBatchScores = 1000 // players in one add-points batch
	MaxBatchJobs   = 1000 // jobs in one enqueue batch
	MaxBatchPoll   = 100  // jobs leased by one poll batch
	MaxBatchAcks   = 1000 // acks in one ack batch
)

// Result is one item's answer in a batch: its value, or the error that item alone met (the
// other items are not affected: each is its own atomic step).
type Result[T any] struct {
	Value T
	Err   error
}

// ValidateBatch checks the size of a batch of n what (1..max). Returns EINVALID.
func ValidateBatch(what string, n, max int) error {
	if n < 1 || n > max {
		return Errorf(EINVALID, "%s must hold 1 to %d items (got %d)", what, max, n)
	}
	return nil
}

// AckItem is one ack of an ack batch: a leased job and its lease's token.
type AckItem struct {
	ID    string `json:"id"`
	Token string `json:"token"`
}

// ScoreAdd is one add of an add-points batch.
type ScoreAdd struct {
	Player string
	Points int64
}
