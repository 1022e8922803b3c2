package domain

import "context"

// DemoSwitch pauses and resumes the demo traffic. The switch lives in Redis, so the button
// on any instance's page steers the one instance that makes the traffic.
type DemoSwitch interface {
	// Paused says whether the demo traffic is paused. Returns EUNAVAILABLE.
	Paused(ctx context.Context) (bool, error)
	// SetPaused pauses or resumes it. Returns EUNAVAILABLE.
	SetPaused(ctx context.Context, paused bool) error
}
