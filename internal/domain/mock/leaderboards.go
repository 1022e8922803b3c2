package mock

import (
	"context"

	"github.com/zpulse/zpulse/internal/domain"
)

// Leaderboards is a fake domain.LeaderboardService: each method calls its Fn field.
type Leaderboards struct {
	AddPointsFn           func(context.Context, string, string, int64) (domain.Entry, error)
	AddPointsInvoked      bool
	AddPointsBatchFn      func(context.Context, string, []domain.ScoreAdd) ([]domain.Result[domain.Entry], error)
	AddPointsBatchInvoked bool
	SetScoreFn            func(context.Context, string, string, int64) (domain.Entry, error)
	SetScoreInvoked       bool
	RemovePlayerFn        func(context.Context, string, string) error
	RemovePlayerInvoked   bool
	TrimFn                func(context.Context, string, int64) (int64, error)
	TrimInvoked           bool
	ResetFn               func(context.Context, string) (int64, error)
	ResetInvoked          bool
	TopFn                 func(context.Context, string, domain.Period, int) (domain.BoardTop, error)
	TopInvoked            bool
	PlayerFn              func(context.Context, string, domain.Period, string) (domain.Entry, error)
	PlayerHistoryFn       func(context.Context, string, string, domain.HistoryOptions) (domain.ScoreHistory, error)
	PlayerHistoryInvoked  bool
	PlayerInvoked         bool
	AroundFn              func(context.Context, string, domain.Period, string, int) ([]domain.Entry, error)
	AroundInvoked         bool
	EntriesFn             func(context.Context, string, domain.Period, string, int) (domain.Page, error)
	EntriesInvoked        bool
	EntriesAtFn           func(context.Context, string, domain.Period, int64, int) (domain.Page, error)
	EntriesAtInvoked      bool
	SettingsFn            func(context.Context, string) (domain.BoardSettings, error)
	SettingsInvoked       bool
	UpdateSettingsFn      func(context.Context, string, domain.BoardSettings) (domain.BoardSettings, error)
	UpdateSettingsInvoked bool
	PatchSettingsFn       func(context.Context, string, domain.BoardSettingsPatch) (domain.BoardSettings, error)
	PatchSettingsInvoked  bool
	BoardsFn              func(context.Context) ([]string, error)
	BoardsInvoked         bool
	SummariesFn           func(context.Context) ([]domain.BoardSummary, error)
	SummariesInvoked      bool
	SeasonFakes           // seasons, one-period resets and the encoding check (seasons.go)
}

var _ domain.LeaderboardService = (*Leaderboards)(nil)

func (s *Leaderboards) AddPoints(ctx context.Context, a1 string, a2 string, a3 int64) (r0 domain.Entry, err error) {
	s.AddPointsInvoked = true
	if s.AddPointsFn == nil {
		return
	}
	return s.AddPointsFn(ctx, a1, a2, a3)
}

func (s *Leaderboards) AddPointsBatch(ctx context.Context, a1 string, a2 []domain.ScoreAdd) (r0 []domain.Result[domain.Entry], err error) {
	s.AddPointsBatchInvoked = true
	if s.AddPointsBatchFn == nil {
		return
	}
	return s.AddPointsBatchFn(ctx, a1, a2)
}

func (s *Leaderboards) SetScore(ctx context.Context, a1 string, a2 string, a3 int64) (r0 domain.Entry, err error) {
	s.SetScoreInvoked = true
	if s.SetScoreFn == nil {
		return
	}
	return s.SetScoreFn(ctx, a1, a2, a3)
}

func (s *Leaderboards) RemovePlayer(ctx context.Context, a1 string, a2 string) error {
	s.RemovePlayerInvoked = true
	if s.RemovePlayerFn == nil {
		return nil
	}
	return s.RemovePlayerFn(ctx, a1, a2)
}

func (s *Leaderboards) Trim(ctx context.Context, a1 string, a2 int64) (r0 int64, err error) {
	s.TrimInvoked = true
	if s.TrimFn == nil {
		return
	}
	return s.TrimFn(ctx, a1, a2)
}

func (s *Leaderboards) Reset(ctx context.Context, a1 string) (r0 int64, err error) {
	s.ResetInvoked = true
	if s.ResetFn == nil {
		return
	}
	return s.ResetFn(ctx, a1)
}

func (s *Leaderboards) Top(ctx context.Context, a1 string, a2 domain.Period, a3 int) (r0 domain.BoardTop, err error) {
	s.TopInvoked = true
	if s.TopFn == nil {
		return
	}
	return s.TopFn(ctx, a1, a2, a3)
}

func (s *Leaderboards) Player(ctx context.Context, a1 string, a2 domain.Period, a3 string) (r0 domain.Entry, err error) {
	s.PlayerInvoked = true
	if s.PlayerFn == nil {
		return
	}
	return s.PlayerFn(ctx, a1, a2, a3)
}

func (s *Leaderboards) PlayerHistory(ctx context.Context, a1 string, a2 string, a3 domain.HistoryOptions) (r0 domain.ScoreHistory, err error) {
	s.PlayerHistoryInvoked = true
	if s.PlayerHistoryFn == nil {
		return
	}
	return s.PlayerHistoryFn(ctx, a1, a2, a3)
}

func (s *Leaderboards) Around(ctx context.Context, a1 string, a2 domain.Period, a3 string, a4 int) (r0 []domain.Entry, err error) {
	s.AroundInvoked = true
	if s.AroundFn == nil {
		return
	}
	return s.AroundFn(ctx, a1, a2, a3, a4)
}

func (s *Leaderboards) Entries(ctx context.Context, a1 string, a2 domain.Period, a3 string, a4 int) (r0 domain.Page, err error) {
	s.EntriesInvoked = true
	if s.EntriesFn == nil {
		return
	}
	return s.EntriesFn(ctx, a1, a2, a3, a4)
}

func (s *Leaderboards) EntriesAt(ctx context.Context, a1 string, a2 domain.Period, a3 int64, a4 int) (r0 domain.Page, err error) {
	s.EntriesAtInvoked = true
	if s.EntriesAtFn == nil {
		return
	}
	return s.EntriesAtFn(ctx, a1, a2, a3, a4)
}

func (s *Leaderboards) Settings(ctx context.Context, a1 string) (r0 domain.BoardSettings, err error) {
	s.SettingsInvoked = true
	if s.SettingsFn == nil {
		return
	}
	return s.SettingsFn(ctx, a1)
}

func (s *Leaderboards) UpdateSettings(ctx context.Context, a1 string, a2 domain.BoardSettings) (r0 domain.BoardSettings, err error) {
	s.UpdateSettingsInvoked = true
	if s.UpdateSettingsFn == nil {
		return
	}
	return s.UpdateSettingsFn(ctx, a1, a2)
}

func (s *Leaderboards) PatchSettings(ctx context.Context, a1 string, a2 domain.BoardSettingsPatch) (r0 domain.BoardSettings, err error) {
	s.PatchSettingsInvoked = true
	if s.PatchSettingsFn == nil {
		return
	}
	return s.PatchSettingsFn(ctx, a1, a2)
}

func (s *Leaderboards) Boards(ctx context.Context) (r0 []string, err error) {
	s.BoardsInvoked = true
	if s.BoardsFn == nil {
		return
	}
	return s.BoardsFn(ctx)
}

func (s *Leaderboards) Summaries(ctx context.Context) (r0 []domain.BoardSummary, err error) {
	s.SummariesInvoked = true
	if s.SummariesFn == nil {
		return
	}
	return s.SummariesFn(ctx)
}
