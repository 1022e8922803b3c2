package mock

import (
	"context"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
)

// Queues is a fake domain.QueueService: each method calls its Fn field.
type Queues struct {
	JobFn                 func(context.Context, string, string) (domain.JobDetail, error)
	JobInvoked            bool
	JobsFn                func(context.Context, string, domain.JobListOptions) (domain.JobPage, error)
	JobsInvoked           bool
	DeadErrorsFn          func(context.Context, string) (domain.DeadErrorGroups, error)
	DeadErrorsInvoked     bool
	RequeueDeadFn         func(context.Context, string) (domain.BulkResult, error)
	RequeueDeadInvoked    bool
	DeleteDeadFn          func(context.Context, string) (domain.BulkResult, error)
	DeleteDeadInvoked     bool
	EachDeadFn            func(context.Context, string, func(domain.JobDetail) error) error
	EachDeadInvoked       bool
	SetPausedFn           func(context.Context, string, bool) error
	SetPausedInvoked      bool
	EnqueueFn             func(context.Context, string, domain.NewJob) (domain.Enqueued, error)
	EnqueueInvoked        bool
	EnqueueBatchFn        func(context.Context, string, []domain.NewJob) ([]domain.Result[domain.Enqueued], error)
	EnqueueBatchInvoked   bool
	PollFn                func(context.Context, string, domain.PollOptions) (domain.Delivery, bool, error)
	PollInvoked           bool
	PollBatchFn           func(context.Context, string, int, time.Duration, string) ([]domain.Delivery, error)
	PollBatchInvoked      bool
	AckFn                 func(context.Context, string, string, string) error
	AckInvoked            bool
	AckBatchFn            func(context.Context, string, []domain.AckItem) ([]error, error)
	AckBatchInvoked       bool
	ExtendFn              func(context.Context, string, string, string, time.Duration) (time.Time, error)
	ExtendInvoked         bool
	NackFn                func(context.Context, string, string, string, time.Duration, string) (domain.Where, error)
	NackInvoked           bool
	AttemptErrorsFn       func(context.Context, string, string) ([]domain.AttemptError, error)
	AttemptErrorsInvoked  bool
	ReapFn                func(context.Context, int64) (int64, int64, error)
	ReapInvoked           bool
	RequeueFn             func(context.Context, string, string) error
	RequeueInvoked        bool
	DeleteFn              func(context.Context, string, string) (domain.Where, error)
	DeleteInvoked         bool
	StatsFn               func(context.Context, string) (domain.QueueStats, error)
	StatsInvoked          bool
	SettingsFn            func(context.Context, string) (domain.QueueSettings, error)
	SettingsInvoked       bool
	UpdateSettingsFn      func(context.Context, string, domain.QueueSettings) (domain.QueueSettings, error)
	UpdateSettingsInvoked bool
	PatchSettingsFn       func(context.Context, string, domain.QueueSettingsPatch) (domain.QueueSettings, error)
	PatchSettingsInvoked  bool
	QueuesFn              func(context.Context) ([]string, error)
	QueuesInvoked         bool
	SummariesFn           func(context.Context) ([]domain.QueueSummary, error)
	SummariesInvoked      bool
	ViewFn                func(context.Context, string) (domain.QueueView, error)
	ViewInvoked           bool
	SearchJobsFn          func(context.Context, string, domain.JobSearchOptions) (domain.JobSearchPage, error)
	SearchJobsInvoked     bool
	BulkJobsFn            func(context.Context, string, domain.BulkRequest) (domain.BulkJobsResult, error)
	BulkJobsInvoked       bool
	RetryFn               func(context.Context, string, string, domain.JobRetry) (domain.Retried, error)
	RetryInvoked          bool
	ConsumersFn           func(context.Context, string) ([]domain.Consumer, error)
	ConsumersInvoked      bool
}

var _ domain.QueueService = (*Queues)(nil)

func (s *Queues) Job(ctx context.Context, a1 string, a2 string) (r0 domain.JobDetail, err error) {
	s.JobInvoked = true
	if s.JobFn == nil {
		return
	}
	return s.JobFn(ctx, a1, a2)
}

func (s *Queues) Jobs(ctx context.Context, a1 string, a2 domain.JobListOptions) (r0 domain.JobPage, err error) {
	s.JobsInvoked = true
	if s.JobsFn == nil {
		return
	}
	return s.JobsFn(ctx, a1, a2)
}

func (s *Queues) RequeueDead(ctx context.Context, a1 string) (r0 domain.BulkResult, err error) {
	s.RequeueDeadInvoked = true
	if s.RequeueDeadFn == nil {
		return
	}
	return s.RequeueDeadFn(ctx, a1)
}

func (s *Queues) DeleteDead(ctx context.Context, a1 string) (r0 domain.BulkResult, err error) {
	s.DeleteDeadInvoked = true
	if s.DeleteDeadFn == nil {
		return
	}
	return s.DeleteDeadFn(ctx, a1)
}

func (s *Queues) EachDead(ctx context.Context, a1 string, a2 func(domain.JobDetail) error) error {
	s.EachDeadInvoked = true
	if s.EachDeadFn == nil {
		return nil
	}
	return s.EachDeadFn(ctx, a1, a2)
}

func (s *Queues) SetPaused(ctx context.Context, a1 string, a2 bool) error {
	s.SetPausedInvoked = true
	if s.SetPausedFn == nil {
		return nil
	}
	return s.SetPausedFn(ctx, a1, a2)
}

func (s *Queues) Enqueue(ctx context.Context, a1 string, a2 domain.NewJob) (r0 domain.Enqueued, err error) {
	s.EnqueueInvoked = true
	if s.EnqueueFn == nil {
		return
	}
	return s.EnqueueFn(ctx, a1, a2)
}

func (s *Queues) EnqueueBatch(ctx context.Context, a1 string, a2 []domain.NewJob) (r0 []domain.Result[domain.Enqueued], err error) {
	s.EnqueueBatchInvoked = true
	if s.EnqueueBatchFn == nil {
		return
	}
	return s.EnqueueBatchFn(ctx, a1, a2)
}

func (s *Queues) Poll(ctx context.Context, a1 string, a2 domain.PollOptions) (r0 domain.Delivery, r1 bool, err error) {
	s.PollInvoked = true
	if s.PollFn == nil {
		return
	}
	return s.PollFn(ctx, a1, a2)
}

func (s *Queues) PollBatch(ctx context.Context, a1 string, a2 int, a3 time.Duration, a4 string) (r0 []domain.Delivery, err error) {
	s.PollBatchInvoked = true
	if s.PollBatchFn == nil {
		return
	}
	return s.PollBatchFn(ctx, a1, a2, a3, a4)
}

func (s *Queues) Ack(ctx context.Context, a1 string, a2 string, a3 string) error {
	s.AckInvoked = true
	if s.AckFn == nil {
		return nil
	}
	return s.AckFn(ctx, a1, a2, a3)
}

func (s *Queues) AckBatch(ctx context.Context, a1 string, a2 []domain.AckItem) (r0 []error, err error) {
	s.AckBatchInvoked = true
	if s.AckBatchFn == nil {
		return
	}
	return s.AckBatchFn(ctx, a1, a2)
}

func (s *Queues) Extend(ctx context.Context, a1 string, a2 string, a3 string, a4 time.Duration) (r0 time.Time, err error) {
	s.ExtendInvoked = true
	if s.ExtendFn == nil {
		return
	}
	return s.ExtendFn(ctx, a1, a2, a3, a4)
}

func (s *Queues) Nack(ctx context.Context, a1 string, a2 string, a3 string, a4 time.Duration, a5 string) (r0 domain.Where, err error) {
	s.NackInvoked = true
	if s.NackFn == nil {
		return
	}
	return s.NackFn(ctx, a1, a2, a3, a4, a5)
}

func (s *Queues) AttemptErrors(ctx context.Context, a1 string, a2 string) (r0 []domain.AttemptError, err error) {
	s.AttemptErrorsInvoked = true
	if s.AttemptErrorsFn == nil {
		return
	}
	return s.AttemptErrorsFn(ctx, a1, a2)
}

func (s *Queues) Reap(ctx context.Context, a1 int64) (r0 int64, r1 int64, err error) {
	s.ReapInvoked = true
	if s.ReapFn == nil {
		return
	}
	return s.ReapFn(ctx, a1)
}

func (s *Queues) Requeue(ctx context.Context, a1 string, a2 string) error {
	s.RequeueInvoked = true
	if s.RequeueFn == nil {
		return nil
	}
	return s.RequeueFn(ctx, a1, a2)
}

func (s *Queues) Delete(ctx context.Context, a1 string, a2 string) (r0 domain.Where, err error) {
	s.DeleteInvoked = true
	if s.DeleteFn == nil {
		return
	}
	return s.DeleteFn(ctx, a1, a2)
}

func (s *Queues) Stats(ctx context.Context, a1 string) (r0 domain.QueueStats, err error) {
	s.StatsInvoked = true
	if s.StatsFn == nil {
		return
	}
	return s.StatsFn(ctx, a1)
}

func (s *Queues) Settings(ctx context.Context, a1 string) (r0 domain.QueueSettings, err error) {
	s.SettingsInvoked = true
	if s.SettingsFn == nil {
		return
	}
	return s.SettingsFn(ctx, a1)
}

func (s *Queues) UpdateSettings(ctx context.Context, a1 string, a2 domain.QueueSettings) (r0 domain.QueueSettings, err error) {
	s.UpdateSettingsInvoked = true
	if s.UpdateSettingsFn == nil {
		return
	}
	return s.UpdateSettingsFn(ctx, a1, a2)
}

func (s *Queues) PatchSettings(ctx context.Context, a1 string, a2 domain.QueueSettingsPatch) (r0 domain.QueueSettings, err error) {
	s.PatchSettingsInvoked = true
	if s.PatchSettingsFn == nil {
		return
	}
	return s.PatchSettingsFn(ctx, a1, a2)
}

func (s *Queues) Queues(ctx context.Context) (r0 []string, err error) {
	s.QueuesInvoked = true
	if s.QueuesFn == nil {
		return
	}
	return s.QueuesFn(ctx)
}

func (s *Queues) Summaries(ctx context.Context) (r0 []domain.QueueSummary, err error) {
	s.SummariesInvoked = true
	if s.SummariesFn == nil {
		return
	}
	return s.SummariesFn(ctx)
}

func (s *Queues) View(ctx context.Context, a1 string) (r0 domain.QueueView, err error) {
	s.ViewInvoked = true
	if s.ViewFn == nil {
		return
	}
	return s.ViewFn(ctx, a1)
}

func (s *Queues) DeadErrors(ctx context.Context, a1 string) (r0 domain.DeadErrorGroups, err error) {
	s.DeadErrorsInvoked = true
	if s.DeadErrorsFn == nil {
		return
	}
	return s.DeadErrorsFn(ctx, a1)
}

func (s *Queues) SearchJobs(ctx context.Context, a1 string, a2 domain.JobSearchOptions) (r0 domain.JobSearchPage, err error) {
	s.SearchJobsInvoked = true
	if s.SearchJobsFn == nil {
		return
	}
	return s.SearchJobsFn(ctx, a1, a2)
}

func (s *Queues) BulkJobs(ctx context.Context, a1 string, a2 domain.BulkRequest) (r0 domain.BulkJobsResult, err error) {
	s.BulkJobsInvoked = true
	if s.BulkJobsFn == nil {
		return
	}
	return s.BulkJobsFn(ctx, a1, a2)
}

func (s *Queues) Retry(ctx context.Context, a1 string, a2 string, a3 domain.JobRetry) (r0 domain.Retried, err error) {
	s.RetryInvoked = true
	if s.RetryFn == nil {
		return
	}
	return s.RetryFn(ctx, a1, a2, a3)
}

func (s *Queues) Consumers(ctx context.Context, a1 string) (r0 []domain.Consumer, err error) {
	s.ConsumersInvoked = true
	if s.ConsumersFn == nil {
		return
	}
	return s.ConsumersFn(ctx, a1)
}
