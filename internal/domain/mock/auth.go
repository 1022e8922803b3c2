package mock

import (
	"context"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
)

// Auth is a fake domain.AuthStore: each method calls its Fn field.
type Auth struct {
	AttemptFn             func(context.Context, string, bool) (domain.LimitResult, error)
	AttemptInvoked        bool
	CreateSessionFn       func(context.Context, time.Duration, string, domain.SessionHolder) (string, error)
	CreateSessionInvoked  bool
	SessionFn             func(context.Context, string, string) (domain.SessionHolder, bool, error)
	SessionInvoked        bool
	EndSessionFn          func(context.Context, string) error
	EndSessionInvoked     bool
	EndAllSessionsFn      func(context.Context) error
	EndAllSessionsInvoked bool
}

var _ domain.AuthStore = (*Auth)(nil)

func (s *Auth) Attempt(ctx context.Context, a1 string, a2 bool) (r0 domain.LimitResult, err error) {
	s.AttemptInvoked = true
	if s.AttemptFn == nil {
		return
	}
	return s.AttemptFn(ctx, a1, a2)
}

func (s *Auth) CreateSession(ctx context.Context, a1 time.Duration, a2 string, a3 domain.SessionHolder) (r0 string, err error) {
	s.CreateSessionInvoked = true
	if s.CreateSessionFn == nil {
		return
	}
	return s.CreateSessionFn(ctx, a1, a2, a3)
}

func (s *Auth) Session(ctx context.Context, a1 string, a2 string) (r0 domain.SessionHolder, ok bool, err error) {
	s.SessionInvoked = true
	if s.SessionFn == nil {
		return
	}
	return s.SessionFn(ctx, a1, a2)
}

func (s *Auth) EndSession(ctx context.Context, a1 string) error {
	s.EndSessionInvoked = true
	if s.EndSessionFn == nil {
		return nil
	}
	return s.EndSessionFn(ctx, a1)
}

func (s *Auth) EndAllSessions(ctx context.Context) error {
	s.EndAllSessionsInvoked = true
	if s.EndAllSessionsFn == nil {
		return nil
	}
	return s.EndAllSessionsFn(ctx)
}
