package mock

import (
	"context"
	"sync/atomic"

	"github.com/zpulse/zpulse/internal/domain"
)

// SeasonFakes are the fakes of a LeaderboardService's seasons, one-period resets and
// encoding check, embedded in Leaderboards: each method calls its Fn field.
type SeasonFakes struct {
	ResetPeriodFn        func(context.Context, string, domain.Period) (int64, error)
	ResetPeriodInvoked   atomic.Bool
	EndSeasonFn          func(context.Context, string) (domain.Season, error)
	EndSeasonInvoked     atomic.Bool
	SeasonsFn            func(context.Context, string) (domain.SeasonList, error)
	SeasonsInvoked       atomic.Bool
	SeasonTopFn          func(context.Context, string, int64, int) (domain.Season, []domain.Entry, error)
	SeasonTopInvoked     atomic.Bool
	SeasonEntriesFn      func(context.Context, string, int64, string, int) (domain.Page, error)
	SeasonEntriesInvoked atomic.Bool
	SeasonPlayerFn       func(context.Context, string, int64, string) (domain.Entry, error)
	SeasonPlayerInvoked  atomic.Bool
	RollSeasonsFn        func(context.Context) (int, error)
	RollSeasonsInvoked   atomic.Bool
	CheckEncodingFn      func(context.Context, string) (domain.EncodingReport, error)
	CheckEncodingInvoked atomic.Bool
	FixEncodingFn        func(context.Context, string, domain.TieBreak) (domain.EncodingFix, error)
	FixEncodingInvoked   atomic.Bool
}

func (s *SeasonFakes) ResetPeriod(ctx context.Context, a1 string, a2 domain.Period) (r0 int64, err error) {
	s.ResetPeriodInvoked.Store(true)
	if s.ResetPeriodFn == nil {
		return
	}
	return s.ResetPeriodFn(ctx, a1, a2)
}

func (s *SeasonFakes) EndSeason(ctx context.Context, a1 string) (r0 domain.Season, err error) {
	s.EndSeasonInvoked.Store(true)
	if s.EndSeasonFn == nil {
		return
	}
	return s.EndSeasonFn(ctx, a1)
}

func (s *SeasonFakes) Seasons(ctx context.Context, a1 string) (r0 domain.SeasonList, err error) {
	s.SeasonsInvoked.Store(true)
	if s.SeasonsFn == nil {
		return
	}
	return s.SeasonsFn(ctx, a1)
}

func (s *SeasonFakes) SeasonTop(ctx context.Context, a1 string, a2 int64, a3 int) (r0 domain.Season, r1 []domain.Entry, err error) {
	s.SeasonTopInvoked.Store(true)
	if s.SeasonTopFn == nil {
		return
	}
	return s.SeasonTopFn(ctx, a1, a2, a3)
}

func (s *SeasonFakes) SeasonEntries(ctx context.Context, a1 string, a2 int64, a3 string, a4 int) (r0 domain.Page, err error) {
	s.SeasonEntriesInvoked.Store(true)
	if s.SeasonEntriesFn == nil {
		return
	}
	return s.SeasonEntriesFn(ctx, a1, a2, a3, a4)
}

func (s *SeasonFakes) SeasonPlayer(ctx context.Context, a1 string, a2 int64, a3 string) (r0 domain.Entry, err error) {
	s.SeasonPlayerInvoked.Store(true)
	if s.SeasonPlayerFn == nil {
		return
	}
	return s.SeasonPlayerFn(ctx, a1, a2, a3)
}

func (s *SeasonFakes) RollSeasons(ctx context.Context) (r0 int, err error) {
	s.RollSeasonsInvoked.Store(true)
	if s.RollSeasonsFn == nil {
		return
	}
	return s.RollSeasonsFn(ctx)
}

func (s *SeasonFakes) CheckEncoding(ctx context.Context, a1 string) (r0 domain.EncodingReport, err error) {
	s.CheckEncodingInvoked.Store(true)
	if s.CheckEncodingFn == nil {
		return
	}
	return s.CheckEncodingFn(ctx, a1)
}

func (s *SeasonFakes) FixEncoding(ctx context.Context, a1 string, a2 domain.TieBreak) (r0 domain.EncodingFix, err error) {
	s.FixEncodingInvoked.Store(true)
	if s.FixEncodingFn == nil {
		return
	}
	return s.FixEncodingFn(ctx, a1, a2)
}
