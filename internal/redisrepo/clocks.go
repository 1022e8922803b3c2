package redisrepo

import "github.com/zpulse/zpulse/internal/domain"

// clocks is the one clock setting of every store, from OpenOptions.Clock. script nil (the
// default) makes scripts read Redis TIME, so every instance agrees on leases and limiter
// windows whatever its machine's clock says; a test's ManualClock is passed to the scripts
// and used for local decisions alike.
type clocks struct {
	script domain.Clock // nil: Redis TIME inside scripts
}

// local is the clock of decisions made in Go: scores, period boards, watchdog schedules.
func (c clocks) local() domain.Clock {
	if c.script == nil {
		return domain.SystemClock{}
	}
	return c.script
}
