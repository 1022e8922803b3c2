package mock

import (
	"context"

	"github.com/zpulse/zpulse/internal/domain"
)

// Sources is a fake domain.SourceService: each method calls its Fn field.
type Sources struct {
	SourcesFn                func(context.Context) ([]domain.Source, error)
	SourcesInvoked           bool
	SaveSourceFn             func(context.Context, domain.Source) (domain.Source, error)
	SaveSourceInvoked        bool
	DeleteSourceFn           func(context.Context, string) error
	DeleteSourceInvoked      bool
	SourceViewFn             func(context.Context, string) (domain.SourceView, error)
	SourceViewInvoked        bool
	SourceViewsFn            func(context.Context, ...domain.SourceKind) ([]domain.SourceView, error)
	SourceViewsInvoked       bool
	TrySourceFn              func(context.Context, string, string) (domain.LimitResult, error)
	TrySourceInvoked         bool
	SourceEntriesFn          func(context.Context, string, string, int) (domain.Page, error)
	SourceEntriesInvoked     bool
	SourceEntriesAtFn        func(context.Context, string, int64, int) (domain.Page, error)
	SourceEntriesAtInvoked   bool
	SourcePlayerFn           func(context.Context, string, string) (domain.Entry, error)
	SourcePlayerInvoked      bool
	SourceAroundFn           func(context.Context, string, string, int) ([]domain.Entry, error)
	SourceAroundInvoked      bool
	SourceSuggestionsFn      func(context.Context) ([]domain.SourceSuggestion, error)
	SourceSuggestionsInvoked bool
}

var _ domain.SourceService = (*Sources)(nil)

func (s *Sources) Sources(ctx context.Context) (r0 []domain.Source, err error) {
	s.SourcesInvoked = true
	if s.SourcesFn == nil {
		return
	}
	return s.SourcesFn(ctx)
}

func (s *Sources) SaveSource(ctx context.Context, a1 domain.Source) (r0 domain.Source, err error) {
	s.SaveSourceInvoked = true
	if s.SaveSourceFn == nil {
		return
	}
	return s.SaveSourceFn(ctx, a1)
}

func (s *Sources) DeleteSource(ctx context.Context, a1 string) error {
	s.DeleteSourceInvoked = true
	if s.DeleteSourceFn == nil {
		return nil
	}
	return s.DeleteSourceFn(ctx, a1)
}

func (s *Sources) SourceViews(ctx context.Context, a1 ...domain.SourceKind) (r0 []domain.SourceView, err error) {
	s.SourceViewsInvoked = true
	if s.SourceViewsFn == nil {
		return
	}
	return s.SourceViewsFn(ctx, a1...)
}

func (s *Sources) SourceView(ctx context.Context, a1 string) (r0 domain.SourceView, err error) {
	s.SourceViewInvoked = true
	if s.SourceViewFn == nil {
		return
	}
	return s.SourceViewFn(ctx, a1)
}

func (s *Sources) TrySource(ctx context.Context, a1 string, a2 string) (r0 domain.LimitResult, err error) {
	s.TrySourceInvoked = true
	if s.TrySourceFn == nil {
		return
	}
	return s.TrySourceFn(ctx, a1, a2)
}

func (s *Sources) SourceEntries(ctx context.Context, a1 string, a2 string, a3 int) (r0 domain.Page, err error) {
	s.SourceEntriesInvoked = true
	if s.SourceEntriesFn == nil {
		return
	}
	return s.SourceEntriesFn(ctx, a1, a2, a3)
}

func (s *Sources) SourceEntriesAt(ctx context.Context, a1 string, a2 int64, a3 int) (r0 domain.Page, err error) {
	s.SourceEntriesAtInvoked = true
	if s.SourceEntriesAtFn == nil {
		return
	}
	return s.SourceEntriesAtFn(ctx, a1, a2, a3)
}

func (s *Sources) SourcePlayer(ctx context.Context, a1 string, a2 string) (r0 domain.Entry, err error) {
	s.SourcePlayerInvoked = true
	if s.SourcePlayerFn == nil {
		return
	}
	return s.SourcePlayerFn(ctx, a1, a2)
}

func (s *Sources) SourceAround(ctx context.Context, a1 string, a2 string, a3 int) (r0 []domain.Entry, err error) {
	s.SourceAroundInvoked = true
	if s.SourceAroundFn == nil {
		return
	}
	return s.SourceAroundFn(ctx, a1, a2, a3)
}

func (s *Sources) SourceSuggestions(ctx context.Context) (r0 []domain.SourceSuggestion, err error) {
	s.SourceSuggestionsInvoked = true
	if s.SourceSuggestionsFn == nil {
		return
	}
	return s.SourceSuggestionsFn(ctx)
}
