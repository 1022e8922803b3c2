package mock

import (
	"context"
	"sync/atomic"

	"github.com/zpulse/zpulse/internal/domain"
)

// Schedules is a fake domain.ScheduleService: each method calls its Fn field.
type Schedules struct {
	CreateScheduleFn      func(context.Context, domain.ScheduleSpec) (domain.Schedule, error)
	CreateScheduleInvoked atomic.Bool
	SchedulesFn           func(context.Context) ([]domain.Schedule, error)
	SchedulesInvoked      atomic.Bool
	ScheduleFn            func(context.Context, string) (domain.Schedule, error)
	ScheduleInvoked       atomic.Bool
	DeleteScheduleFn      func(context.Context, string) error
	DeleteScheduleInvoked atomic.Bool
	PauseScheduleFn       func(context.Context, string) (domain.Schedule, error)
	PauseScheduleInvoked  atomic.Bool
	ResumeScheduleFn      func(context.Context, string) (domain.Schedule, error)
	ResumeScheduleInvoked atomic.Bool
	RunScheduleNowFn      func(context.Context, string) (domain.ScheduleRun, error)
	RunScheduleNowInvoked atomic.Bool
}

var _ domain.ScheduleService = (*Schedules)(nil)

func (s *Schedules) CreateSchedule(ctx context.Context, a1 domain.ScheduleSpec) (r0 domain.Schedule, err error) {
	s.CreateScheduleInvoked.Store(true)
	if s.CreateScheduleFn == nil {
		return
	}
	return s.CreateScheduleFn(ctx, a1)
}

func (s *Schedules) Schedules(ctx context.Context) (r0 []domain.Schedule, err error) {
	s.SchedulesInvoked.Store(true)
	if s.SchedulesFn == nil {
		return
	}
	return s.SchedulesFn(ctx)
}

func (s *Schedules) Schedule(ctx context.Context, a1 string) (r0 domain.Schedule, err error) {
	s.ScheduleInvoked.Store(true)
	if s.ScheduleFn == nil {
		return
	}
	return s.ScheduleFn(ctx, a1)
}

func (s *Schedules) DeleteSchedule(ctx context.Context, a1 string) (err error) {
	s.DeleteScheduleInvoked.Store(true)
	if s.DeleteScheduleFn == nil {
		return
	}
	return s.DeleteScheduleFn(ctx, a1)
}

func (s *Schedules) PauseSchedule(ctx context.Context, a1 string) (r0 domain.Schedule, err error) {
	s.PauseScheduleInvoked.Store(true)
	if s.PauseScheduleFn == nil {
		return
	}
	return s.PauseScheduleFn(ctx, a1)
}

func (s *Schedules) ResumeSchedule(ctx context.Context, a1 string) (r0 domain.Schedule, err error) {
	s.ResumeScheduleInvoked.Store(true)
	if s.ResumeScheduleFn == nil {
		return
	}
	return s.ResumeScheduleFn(ctx, a1)
}

func (s *Schedules) RunScheduleNow(ctx context.Context, a1 string) (r0 domain.ScheduleRun, err error) {
	s.RunScheduleNowInvoked.Store(true)
	if s.RunScheduleNowFn == nil {
		return
	}
	return s.RunScheduleNowFn(ctx, a1)
}
