package mock

import (
	"context"
	"sync/atomic"

	"github.com/zpulse/zpulse/internal/domain"
)

// Sources is a fake domain.SourceService: each method calls its Fn field.
type Sources struct {
	SourcesFn                func(context.Context) ([]domain.Source, error)
	SourcesInvoked           atomic.Bool
	SaveSourceFn             func(context.Context, domain.Source) (domain.Source, error)
	SaveSourceInvoked        atomic.Bool
	DeleteSourceFn           func(context.Context, string) error
	DeleteSourceInvoked      atomic.Bool
	SourceViewFn             func(context.Context, string) (domain.SourceView, error)
	SourceViewInvoked        atomic.Bool
	SourceViewsFn            func(context.Context, ...domain.SourceKind) ([]domain.SourceView, error)
	SourceViewsInvoked       atomic.Bool
	TrySourceFn              func(context.Context, string, string) (domain.LimitResult, error)
	TrySourceInvoked         atomic.Bool
	SourceEntriesFn          func(context.Context, string, string, int) (domain.Page, error)
	SourceEntriesInvoked     atomic.Bool
	SourceEntriesAtFn        func(context.Context, string, int64, int) (domain.Page, error)
	SourceEntriesAtInvoked   atomic.Bool
	SourcePlayerFn           func(context.Context, string, string) (domain.Entry, error)
	SourcePlayerInvoked      atomic.Bool
	SourceAroundFn           func(context.Context, string, string, int) ([]domain.Entry, error)
	SourceAroundInvoked      atomic.Bool
	SourceSuggestionsFn      func(context.Context) ([]domain.SourceSuggestion, error)
	SourceSuggestionsInvoked atomic.Bool
}

var _ domain.SourceService = (*Sources)(nil)

func (s *Sources) Sources(ctx context.Context) (r0 []domain.Source, err error) {
	s.SourcesInvoked.Store(true)
	if s.SourcesFn == nil {
		return
	}
	return s.SourcesFn(ctx)
}

func (s *Sources) SaveSource(ctx context.Context, a1 domain.Source) (r0 domain.Source, err error) {
	s.SaveSourceInvoked.Store(true)
	if s.SaveSourceFn == nil {
		return
	}
	return s.SaveSourceFn(ctx, a1)
}

func (s *Sources) DeleteSource(ctx context.Context, a1 string) error {
	s.DeleteSourceInvoked.Store(true)
	if s.DeleteSourceFn == nil {
		return nil
	}
	return s.DeleteSourceFn(ctx, a1)
}

func (s *Sources) SourceViews(ctx context.Context, a1 ...domain.SourceKind) (r0 []domain.SourceView, err error) {
	s.SourceViewsInvoked.Store(true)
	if s.SourceViewsFn == nil {
		return
	}
	return s.SourceViewsFn(ctx, a1...)
}

func (s *Sources) SourceView(ctx context.Context, a1 string) (r0 domain.SourceView, err error) {
	s.SourceViewInvoked.Store(true)
	if s.SourceViewFn == nil {
		return
	}
	return s.SourceViewFn(ctx, a1)
}

func (s *Sources) TrySource(ctx context.Context, a1 string, a2 string) (r0 domain.LimitResult, err error) {
	s.TrySourceInvoked.Store(true)
	if s.TrySourceFn == nil {
		return
	}
	return s.TrySourceFn(ctx, a1, a2)
}

func (s *Sources) SourceEntries(ctx context.Context, a1 string, a2 string, a3 int) (r0 domain.Page, err error) {
	s.SourceEntriesInvoked.Store(true)
	if s.SourceEntriesFn == nil {
		return
	}
	return s.SourceEntriesFn(ctx, a1, a2, a3)
}

func (s *Sources) SourceEntriesAt(ctx context.Context, a1 string, a2 int64, a3 int) (r0 domain.Page, err error) {
	s.SourceEntriesAtInvoked.Store(true)
	if s.SourceEntriesAtFn == nil {
		return
	}
	return s.SourceEntriesAtFn(ctx, a1, a2, a3)
}

func (s *Sources) SourcePlayer(ctx context.Context, a1 string, a2 string) (r0 domain.Entry, err error) {
	s.SourcePlayerInvoked.Store(true)
	if s.SourcePlayerFn == nil {
		return
	}
	return s.SourcePlayerFn(ctx, a1, a2)
}

func (s *Sources) SourceAround(ctx context.Context, a1 string, a2 string, a3 int) (r0 []domain.Entry, err error) {
	s.SourceAroundInvoked.Store(true)
	if s.SourceAroundFn == nil {
		return
	}
	return s.SourceAroundFn(ctx, a1, a2, a3)
}

func (s *Sources) SourceSuggestions(ctx context.Context) (r0 []domain.SourceSuggestion, err error) {
	s.SourceSuggestionsInvoked.Store(true)
	if s.SourceSuggestionsFn == nil {
		return
	}
	return s.SourceSuggestionsFn(ctx)
}
