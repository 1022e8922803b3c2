package mock

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
)

// Locks is a fake domain.LockService: each method calls its Fn field.
type Locks struct {
	AcquireFn           func(context.Context, string, domain.LockOptions) (domain.Lease, error)
	AcquireInvoked      atomic.Bool
	ReleaseFn           func(context.Context, string, string) (int64, error)
	ReleaseInvoked      atomic.Bool
	ExtendFn            func(context.Context, string, string, time.Duration) (domain.Lease, error)
	ExtendInvoked       atomic.Bool
	ForceReleaseFn      func(context.Context, string, string) error
	ForceReleaseInvoked atomic.Bool
	ListFn              func(context.Context) (domain.HeldLocks, error)
	ListInvoked         atomic.Bool
	InspectFn           func(context.Context, string) (domain.LockInfo, error)
	InspectInvoked      atomic.Bool
}

var _ domain.LockService = (*Locks)(nil)

func (s *Locks) Acquire(ctx context.Context, a1 string, a2 domain.LockOptions) (r0 domain.Lease, err error) {
	s.AcquireInvoked.Store(true)
	if s.AcquireFn == nil {
		return
	}
	return s.AcquireFn(ctx, a1, a2)
}

func (s *Locks) Release(ctx context.Context, a1 string, a2 string) (r0 int64, err error) {
	s.ReleaseInvoked.Store(true)
	if s.ReleaseFn == nil {
		return
	}
	return s.ReleaseFn(ctx, a1, a2)
}

func (s *Locks) Extend(ctx context.Context, a1 string, a2 string, a3 time.Duration) (r0 domain.Lease, err error) {
	s.ExtendInvoked.Store(true)
	if s.ExtendFn == nil {
		return
	}
	return s.ExtendFn(ctx, a1, a2, a3)
}

func (s *Locks) ForceRelease(ctx context.Context, a1 string, a2 string) error {
	s.ForceReleaseInvoked.Store(true)
	if s.ForceReleaseFn == nil {
		return nil
	}
	return s.ForceReleaseFn(ctx, a1, a2)
}

func (s *Locks) List(ctx context.Context) (r0 domain.HeldLocks, err error) {
	s.ListInvoked.Store(true)
	if s.ListFn == nil {
		return
	}
	return s.ListFn(ctx)
}

func (s *Locks) Inspect(ctx context.Context, a1 string) (r0 domain.LockInfo, err error) {
	s.InspectInvoked.Store(true)
	if s.InspectFn == nil {
		return
	}
	return s.InspectFn(ctx, a1)
}
