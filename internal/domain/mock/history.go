package mock

import (
	"context"
	"sync/atomic"

	"github.com/zpulse/zpulse/internal/domain"
)

// History is a fake domain.HistoryService: each method calls its Fn field.
type History struct {
	RecordFn      func(context.Context) error
	RecordInvoked atomic.Bool
	RingFn        func(context.Context, domain.HistoryKind, string, domain.HistoryRange) (domain.History, error)
	RingInvoked   atomic.Bool
}

var _ domain.HistoryService = (*History)(nil)

func (s *History) Record(ctx context.Context) error {
	s.RecordInvoked.Store(true)
	if s.RecordFn == nil {
		return nil
	}
	return s.RecordFn(ctx)
}

func (s *History) Ring(ctx context.Context, a1 domain.HistoryKind, a2 string, a3 domain.HistoryRange) (r0 domain.History, err error) {
	s.RingInvoked.Store(true)
	if s.RingFn == nil {
		return
	}
	return s.RingFn(ctx, a1, a2, a3)
}
