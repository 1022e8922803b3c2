package mock

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
)

// Queues is a fake domain.QueueService: each method calls its Fn field.
type Queues struct {
	JobFn                 func(context.Context, string, string) (domain.JobDetail, error)
	JobInvoked            atomic.Bool
	JobsFn                func(context.Context, string, domain.JobListOptions) (domain.JobPage, error)
	JobsInvoked           atomic.Bool
	DeadErrorsFn          func(context.Context, string) (domain.DeadErrorGroups, error)
	DeadErrorsInvoked     atomic.Bool
	RequeueDeadFn         func(context.Context, string) (domain.BulkResult, error)
	RequeueDeadInvoked    atomic.Bool
	DeleteDeadFn          func(context.Context, string) (domain.BulkResult, error)
	DeleteDeadInvoked     atomic.Bool
	EachDeadFn            func(context.Context, string, func(domain.JobDetail) error) error
	EachDeadInvoked       atomic.Bool
	SetPausedFn           func(context.Context, string, bool) error
	SetPausedInvoked      atomic.Bool
	PausedFn              func(context.Context, string) (bool, error)
	PausedInvoked         atomic.Bool
	EnqueueFn             func(context.Context, string, domain.NewJob) (domain.Enqueued, error)
	EnqueueInvoked        atomic.Bool
	EnqueueBatchFn        func(context.Context, string, []domain.NewJob) ([]domain.Result[domain.Enqueued], error)
	EnqueueBatchInvoked   atomic.Bool
	PollFn                func(context.Context, string, domain.PollOptions) (domain.Delivery, bool, error)
	PollInvoked           atomic.Bool
	PollBatchFn           func(context.Context, string, int, time.Duration, string) ([]domain.Delivery, error)
	PollBatchInvoked      atomic.Bool
	AckFn                 func(context.Context, string, string, string) error
	AckInvoked            atomic.Bool
	AckBatchFn            func(context.Context, string, []domain.AckItem) ([]error, error)
	AckBatchInvoked       atomic.Bool
	ExtendFn              func(context.Context, string, string, string, time.Duration) (time.Time, error)
	ExtendInvoked         atomic.Bool
	NackFn                func(context.Context, string, string, string, time.Duration, string) (domain.Where, error)
	NackInvoked           atomic.Bool
	AttemptErrorsFn       func(context.Context, string, string) ([]domain.AttemptError, error)
	AttemptErrorsInvoked  atomic.Bool
	ReapFn                func(context.Context, int64) (int64, int64, error)
	ReapInvoked           atomic.Bool
	RequeueFn             func(context.Context, string, string) error
	RequeueInvoked        atomic.Bool
	DeleteFn              func(context.Context, string, string) (domain.Where, error)
	DeleteInvoked         atomic.Bool
	StatsFn               func(context.Context, string) (domain.QueueStats, error)
	StatsInvoked          atomic.Bool
	SettingsFn            func(context.Context, string) (domain.QueueSettings, error)
	SettingsInvoked       atomic.Bool
	UpdateSettingsFn      func(context.Context, string, domain.QueueSettings) (domain.QueueSettings, error)
	UpdateSettingsInvoked atomic.Bool
	PatchSettingsFn       func(context.Context, string, domain.QueueSettingsPatch) (domain.QueueSettings, error)
	PatchSettingsInvoked  atomic.Bool
	QueuesFn              func(context.Context) ([]string, error)
	QueuesInvoked         atomic.Bool
	SummariesFn           func(context.Context) ([]domain.QueueSummary, error)
	SummariesInvoked      atomic.Bool
	ViewFn                func(context.Context, string) (domain.QueueView, error)
	ViewInvoked           atomic.Bool
	SearchJobsFn          func(context.Context, string, domain.JobSearchOptions) (domain.JobSearchPage, error)
	SearchJobsInvoked     atomic.Bool
	BulkJobsFn            func(context.Context, string, domain.BulkRequest) (domain.BulkJobsResult, error)
	BulkJobsInvoked       atomic.Bool
	RetryFn               func(context.Context, string, string, domain.JobRetry) (domain.Retried, error)
	RetryInvoked          atomic.Bool
	ConsumersFn           func(context.Context, string) ([]domain.Consumer, error)
	ConsumersInvoked      atomic.Bool
}

var _ domain.QueueService = (*Queues)(nil)

func (s *Queues) Job(ctx context.Context, a1 string, a2 string) (r0 domain.JobDetail, err error) {
	s.JobInvoked.Store(true)
	if s.JobFn == nil {
		return
	}
	return s.JobFn(ctx, a1, a2)
}

func (s *Queues) Jobs(ctx context.Context, a1 string, a2 domain.JobListOptions) (r0 domain.JobPage, err error) {
	s.JobsInvoked.Store(true)
	if s.JobsFn == nil {
		return
	}
	return s.JobsFn(ctx, a1, a2)
}

func (s *Queues) RequeueDead(ctx context.Context, a1 string) (r0 domain.BulkResult, err error) {
	s.RequeueDeadInvoked.Store(true)
	if s.RequeueDeadFn == nil {
		return
	}
	return s.RequeueDeadFn(ctx, a1)
}

func (s *Queues) DeleteDead(ctx context.Context, a1 string) (r0 domain.BulkResult, err error) {
	s.DeleteDeadInvoked.Store(true)
	if s.DeleteDeadFn == nil {
		return
	}
	return s.DeleteDeadFn(ctx, a1)
}

func (s *Queues) EachDead(ctx context.Context, a1 string, a2 func(domain.JobDetail) error) error {
	s.EachDeadInvoked.Store(true)
	if s.EachDeadFn == nil {
		return nil
	}
	return s.EachDeadFn(ctx, a1, a2)
}

func (s *Queues) SetPaused(ctx context.Context, a1 string, a2 bool) error {
	s.SetPausedInvoked.Store(true)
	if s.SetPausedFn == nil {
		return nil
	}
	return s.SetPausedFn(ctx, a1, a2)
}

func (s *Queues) Paused(ctx context.Context, a1 string) (r0 bool, err error) {
	s.PausedInvoked.Store(true)
	if s.PausedFn == nil {
		return
	}
	return s.PausedFn(ctx, a1)
}

func (s *Queues) Enqueue(ctx context.Context, a1 string, a2 domain.NewJob) (r0 domain.Enqueued, err error) {
	s.EnqueueInvoked.Store(true)
	if s.EnqueueFn == nil {
		return
	}
	return s.EnqueueFn(ctx, a1, a2)
}

func (s *Queues) EnqueueBatch(ctx context.Context, a1 string, a2 []domain.NewJob) (r0 []domain.Result[domain.Enqueued], err error) {
	s.EnqueueBatchInvoked.Store(true)
	if s.EnqueueBatchFn == nil {
		return
	}
	return s.EnqueueBatchFn(ctx, a1, a2)
}

func (s *Queues) Poll(ctx context.Context, a1 string, a2 domain.PollOptions) (r0 domain.Delivery, r1 bool, err error) {
	s.PollInvoked.Store(true)
	if s.PollFn == nil {
		return
	}
	return s.PollFn(ctx, a1, a2)
}

func (s *Queues) PollBatch(ctx context.Context, a1 string, a2 int, a3 time.Duration, a4 string) (r0 []domain.Delivery, err error) {
	s.PollBatchInvoked.Store(true)
	if s.PollBatchFn == nil {
		return
	}
	return s.PollBatchFn(ctx, a1, a2, a3, a4)
}

func (s *Queues) Ack(ctx context.Context, a1 string, a2 string, a3 string) error {
	s.AckInvoked.Store(true)
	if s.AckFn == nil {
		return nil
	}
	return s.AckFn(ctx, a1, a2, a3)
}

func (s *Queues) AckBatch(ctx context.Context, a1 string, a2 []domain.AckItem) (r0 []error, err error) {
	s.AckBatchInvoked.Store(true)
	if s.AckBatchFn == nil {
		return
	}
	return s.AckBatchFn(ctx, a1, a2)
}

func (s *Queues) Extend(ctx context.Context, a1 string, a2 string, a3 string, a4 time.Duration) (r0 time.Time, err error) {
	s.ExtendInvoked.Store(true)
	if s.ExtendFn == nil {
		return
	}
	return s.ExtendFn(ctx, a1, a2, a3, a4)
}

func (s *Queues) Nack(ctx context.Context, a1 string, a2 string, a3 string, a4 time.Duration, a5 string) (r0 domain.Where, err error) {
	s.NackInvoked.Store(true)
	if s.NackFn == nil {
		return
	}
	return s.NackFn(ctx, a1, a2, a3, a4, a5)
}

func (s *Queues) AttemptErrors(ctx context.Context, a1 string, a2 string) (r0 []domain.AttemptError, err error) {
	s.AttemptErrorsInvoked.Store(true)
	if s.AttemptErrorsFn == nil {
		return
	}
	return s.AttemptErrorsFn(ctx, a1, a2)
}

func (s *Queues) Reap(ctx context.Context, a1 int64) (r0 int64, r1 int64, err error) {
	s.ReapInvoked.Store(true)
	if s.ReapFn == nil {
		return
	}
	return s.ReapFn(ctx, a1)
}

func (s *Queues) Requeue(ctx context.Context, a1 string, a2 string) error {
	s.RequeueInvoked.Store(true)
	if s.RequeueFn == nil {
		return nil
	}
	return s.RequeueFn(ctx, a1, a2)
}

func (s *Queues) Delete(ctx context.Context, a1 string, a2 string) (r0 domain.Where, err error) {
	s.DeleteInvoked.Store(true)
	if s.DeleteFn == nil {
		return
	}
	return s.DeleteFn(ctx, a1, a2)
}

func (s *Queues) Stats(ctx context.Context, a1 string) (r0 domain.QueueStats, err error) {
	s.StatsInvoked.Store(true)
	if s.StatsFn == nil {
		return
	}
	return s.StatsFn(ctx, a1)
}

func (s *Queues) Settings(ctx context.Context, a1 string) (r0 domain.QueueSettings, err error) {
	s.SettingsInvoked.Store(true)
	if s.SettingsFn == nil {
		return
	}
	return s.SettingsFn(ctx, a1)
}

func (s *Queues) UpdateSettings(ctx context.Context, a1 string, a2 domain.QueueSettings) (r0 domain.QueueSettings, err error) {
	s.UpdateSettingsInvoked.Store(true)
	if s.UpdateSettingsFn == nil {
		return
	}
	return s.UpdateSettingsFn(ctx, a1, a2)
}

func (s *Queues) PatchSettings(ctx context.Context, a1 string, a2 domain.QueueSettingsPatch) (r0 domain.QueueSettings, err error) {
	s.PatchSettingsInvoked.Store(true)
	if s.PatchSettingsFn == nil {
		return
	}
	return s.PatchSettingsFn(ctx, a1, a2)
}

func (s *Queues) Queues(ctx context.Context) (r0 []string, err error) {
	s.QueuesInvoked.Store(true)
	if s.QueuesFn == nil {
		return
	}
	return s.QueuesFn(ctx)
}

func (s *Queues) Summaries(ctx context.Context) (r0 []domain.QueueSummary, err error) {
	s.SummariesInvoked.Store(true)
	if s.SummariesFn == nil {
		return
	}
	return s.SummariesFn(ctx)
}

func (s *Queues) View(ctx context.Context, a1 string) (r0 domain.QueueView, err error) {
	s.ViewInvoked.Store(true)
	if s.ViewFn == nil {
		return
	}
	return s.ViewFn(ctx, a1)
}

func (s *Queues) DeadErrors(ctx context.Context, a1 string) (r0 domain.DeadErrorGroups, err error) {
	s.DeadErrorsInvoked.Store(true)
	if s.DeadErrorsFn == nil {
		return
	}
	return s.DeadErrorsFn(ctx, a1)
}

func (s *Queues) SearchJobs(ctx context.Context, a1 string, a2 domain.JobSearchOptions) (r0 domain.JobSearchPage, err error) {
	s.SearchJobsInvoked.Store(true)
	if s.SearchJobsFn == nil {
		return
	}
	return s.SearchJobsFn(ctx, a1, a2)
}

func (s *Queues) BulkJobs(ctx context.Context, a1 string, a2 domain.BulkRequest) (r0 domain.BulkJobsResult, err error) {
	s.BulkJobsInvoked.Store(true)
	if s.BulkJobsFn == nil {
		return
	}
	return s.BulkJobsFn(ctx, a1, a2)
}

func (s *Queues) Retry(ctx context.Context, a1 string, a2 string, a3 domain.JobRetry) (r0 domain.Retried, err error) {
	s.RetryInvoked.Store(true)
	if s.RetryFn == nil {
		return
	}
	return s.RetryFn(ctx, a1, a2, a3)
}

func (s *Queues) Consumers(ctx context.Context, a1 string) (r0 []domain.Consumer, err error) {
	s.ConsumersInvoked.Store(true)
	if s.ConsumersFn == nil {
		return
	}
	return s.ConsumersFn(ctx, a1)
}
