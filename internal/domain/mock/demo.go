package mock

import (
	"context"

	"github.com/zpulse/zpulse/internal/domain"
)

// Demo is a fake domain.DemoSwitch: each method calls its Fn field.
type Demo struct {
	PausedFn         func(context.Context) (bool, error)
	PausedInvoked    bool
	SetPausedFn      func(context.Context, bool) error
	SetPausedInvoked bool
}

var _ domain.DemoSwitch = (*Demo)(nil)

func (s *Demo) Paused(ctx context.Context) (r0 bool, err error) {
	s.PausedInvoked = true
	if s.PausedFn == nil {
		return
	}
	return s.PausedFn(ctx)
}

func (s *Demo) SetPaused(ctx context.Context, a1 bool) error {
	s.SetPausedInvoked = true
	if s.SetPausedFn == nil {
		return nil
	}
	return s.SetPausedFn(ctx, a1)
}
