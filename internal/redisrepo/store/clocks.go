package store

import "github.com/zpulse/zpulse/internal/domain"

// Clocks is the one clock setting of every store, from OpenOptions.Clock. script nil (the
// default) makes scripts read Redis TIME, so every instance agrees on leases and limiter
// windows whatever its machine's clock says; a test's ManualClock is passed to the scripts
// and used for local decisions alike.
type Clocks struct {
	Script domain.Clock // nil: Redis TIME inside scripts
}

// Local is the clock of decisions made in Go: scores, period boards, watchdog schedules.
func (c Clocks) Local() domain.Clock {
	if c.Script == nil {
		return domain.SystemClock{}
	}
	return c.Script
}
