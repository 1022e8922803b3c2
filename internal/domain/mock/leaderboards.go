package mock

import (
	"context"
	"sync/atomic"

	"github.com/zpulse/zpulse/internal/domain"
)

// Leaderboards is a fake domain.LeaderboardService: each method calls its Fn field.
type Leaderboards struct {
	AddPointsFn           func(context.Context, string, string, int64) (domain.Entry, error)
	AddPointsInvoked      atomic.Bool
	AddPointsBatchFn      func(context.Context, string, []domain.ScoreAdd) ([]domain.Result[domain.Entry], error)
	AddPointsBatchInvoked atomic.Bool
	SetScoreFn            func(context.Context, string, string, int64) (domain.Entry, error)
	SetScoreInvoked       atomic.Bool
	RemovePlayerFn        func(context.Context, string, string) error
	RemovePlayerInvoked   atomic.Bool
	TrimFn                func(context.Context, string, int64) (int64, error)
	TrimInvoked           atomic.Bool
	ResetFn               func(context.Context, string) (int64, error)
	ResetInvoked          atomic.Bool
	TopFn                 func(context.Context, string, domain.Period, int) (domain.BoardTop, error)
	TopInvoked            atomic.Bool
	PlayerFn              func(context.Context, string, domain.Period, string) (domain.Entry, error)
	PlayerHistoryFn       func(context.Context, string, string, domain.HistoryOptions) (domain.ScoreHistory, error)
	PlayerHistoryInvoked  atomic.Bool
	PlayerInvoked         atomic.Bool
	AroundFn              func(context.Context, string, domain.Period, string, int) ([]domain.Entry, error)
	AroundInvoked         atomic.Bool
	EntriesFn             func(context.Context, string, domain.Period, string, int) (domain.Page, error)
	EntriesInvoked        atomic.Bool
	EntriesAtFn           func(context.Context, string, domain.Period, int64, int) (domain.Page, error)
	EntriesAtInvoked      atomic.Bool
	SettingsFn            func(context.Context, string) (domain.BoardSettings, error)
	SettingsInvoked       atomic.Bool
	UpdateSettingsFn      func(context.Context, string, domain.BoardSettings) (domain.BoardSettings, error)
	UpdateSettingsInvoked atomic.Bool
	PatchSettingsFn       func(context.Context, string, domain.BoardSettingsPatch) (domain.BoardSettings, error)
	PatchSettingsInvoked  atomic.Bool
	BoardsFn              func(context.Context) ([]string, error)
	BoardsInvoked         atomic.Bool
	SummariesFn           func(context.Context) ([]domain.BoardSummary, error)
	SummariesInvoked      atomic.Bool
	SeasonFakes           // seasons, one-period resets and the encoding check (seasons.go)
}

var _ domain.LeaderboardService = (*Leaderboards)(nil)

func (s *Leaderboards) AddPoints(ctx context.Context, a1 string, a2 string, a3 int64) (r0 domain.Entry, err error) {
	s.AddPointsInvoked.Store(true)
	if s.AddPointsFn == nil {
		return
	}
	return s.AddPointsFn(ctx, a1, a2, a3)
}

func (s *Leaderboards) AddPointsBatch(ctx context.Context, a1 string, a2 []domain.ScoreAdd) (r0 []domain.Result[domain.Entry], err error) {
	s.AddPointsBatchInvoked.Store(true)
	if s.AddPointsBatchFn == nil {
		return
	}
	return s.AddPointsBatchFn(ctx, a1, a2)
}

func (s *Leaderboards) SetScore(ctx context.Context, a1 string, a2 string, a3 int64) (r0 domain.Entry, err error) {
	s.SetScoreInvoked.Store(true)
	if s.SetScoreFn == nil {
		return
	}
	return s.SetScoreFn(ctx, a1, a2, a3)
}

func (s *Leaderboards) RemovePlayer(ctx context.Context, a1 string, a2 string) error {
	s.RemovePlayerInvoked.Store(true)
	if s.RemovePlayerFn == nil {
		return nil
	}
	return s.RemovePlayerFn(ctx, a1, a2)
}

func (s *Leaderboards) Trim(ctx context.Context, a1 string, a2 int64) (r0 int64, err error) {
	s.TrimInvoked.Store(true)
	if s.TrimFn == nil {
		return
	}
	return s.TrimFn(ctx, a1, a2)
}

func (s *Leaderboards) Reset(ctx context.Context, a1 string) (r0 int64, err error) {
	s.ResetInvoked.Store(true)
	if s.ResetFn == nil {
		return
	}
	return s.ResetFn(ctx, a1)
}

func (s *Leaderboards) Top(ctx context.Context, a1 string, a2 domain.Period, a3 int) (r0 domain.BoardTop, err error) {
	s.TopInvoked.Store(true)
	if s.TopFn == nil {
		return
	}
	return s.TopFn(ctx, a1, a2, a3)
}

func (s *Leaderboards) Player(ctx context.Context, a1 string, a2 domain.Period, a3 string) (r0 domain.Entry, err error) {
	s.PlayerInvoked.Store(true)
	if s.PlayerFn == nil {
		return
	}
	return s.PlayerFn(ctx, a1, a2, a3)
}

func (s *Leaderboards) PlayerHistory(ctx context.Context, a1 string, a2 string, a3 domain.HistoryOptions) (r0 domain.ScoreHistory, err error) {
	s.PlayerHistoryInvoked.Store(true)
	if s.PlayerHistoryFn == nil {
		return
	}
	return s.PlayerHistoryFn(ctx, a1, a2, a3)
}

func (s *Leaderboards) Around(ctx context.Context, a1 string, a2 domain.Period, a3 string, a4 int) (r0 []domain.Entry, err error) {
	s.AroundInvoked.Store(true)
	if s.AroundFn == nil {
		return
	}
	return s.AroundFn(ctx, a1, a2, a3, a4)
}

func (s *Leaderboards) Entries(ctx context.Context, a1 string, a2 domain.Period, a3 string, a4 int) (r0 domain.Page, err error) {
	s.EntriesInvoked.Store(true)
	if s.EntriesFn == nil {
		return
	}
	return s.EntriesFn(ctx, a1, a2, a3, a4)
}

func (s *Leaderboards) EntriesAt(ctx context.Context, a1 string, a2 domain.Period, a3 int64, a4 int) (r0 domain.Page, err error) {
	s.EntriesAtInvoked.Store(true)
	if s.EntriesAtFn == nil {
		return
	}
	return s.EntriesAtFn(ctx, a1, a2, a3, a4)
}

func (s *Leaderboards) Settings(ctx context.Context, a1 string) (r0 domain.BoardSettings, err error) {
	s.SettingsInvoked.Store(true)
	if s.SettingsFn == nil {
		return
	}
	return s.SettingsFn(ctx, a1)
}

func (s *Leaderboards) UpdateSettings(ctx context.Context, a1 string, a2 domain.BoardSettings) (r0 domain.BoardSettings, err error) {
	s.UpdateSettingsInvoked.Store(true)
	if s.UpdateSettingsFn == nil {
		return
	}
	return s.UpdateSettingsFn(ctx, a1, a2)
}

func (s *Leaderboards) PatchSettings(ctx context.Context, a1 string, a2 domain.BoardSettingsPatch) (r0 domain.BoardSettings, err error) {
	s.PatchSettingsInvoked.Store(true)
	if s.PatchSettingsFn == nil {
		return
	}
	return s.PatchSettingsFn(ctx, a1, a2)
}

func (s *Leaderboards) Boards(ctx context.Context) (r0 []string, err error) {
	s.BoardsInvoked.Store(true)
	if s.BoardsFn == nil {
		return
	}
	return s.BoardsFn(ctx)
}

func (s *Leaderboards) Summaries(ctx context.Context) (r0 []domain.BoardSummary, err error) {
	s.SummariesInvoked.Store(true)
	if s.SummariesFn == nil {
		return
	}
	return s.SummariesFn(ctx)
}
