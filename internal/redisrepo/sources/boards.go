package sources

import (
	"context"
	"fmt"
	"slices"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/boards"
)

// An adopted board is read as zpulse reads its own (the boards room's reads by key), at the
// key of its current period in the service's zone, decoded by its encoding and max_ts.

// board is an adopted board source and the key it is read at now.
func (s *Sources) board(ctx context.Context, name string) (domain.Source, string, error) {
	src, err := s.Source(ctx, name)
	if err != nil {
		return domain.Source{}, "", err
	}
	if src.Kind != domain.SourceBoard {
		return domain.Source{}, "", domain.Errorf(domain.EINVALID, "source %q is a %s: only boards have entries and players", name, src.Kind)
	}
	return src, s.keys.SourceBoard(src, s.clock.Now()), nil
}

func (s *Sources) SourceEntries(ctx context.Context, name, after string, limit int) (domain.Page, error) {
	src, key, err := s.board(ctx, name)
	if err != nil {
		return domain.Page{}, err
	}
	return boards.PageOfKey(ctx, s.rdb, key, src.Scores(), after, limit)
}

func (s *Sources) SourceEntriesAt(ctx context.Context, name string, rank int64, limit int) (domain.Page, error) {
	src, key, err := s.board(ctx, name)
	if err != nil {
		return domain.Page{}, err
	}
	return boards.PageAtOfKey(ctx, s.rdb, key, src.Scores(), rank, limit)
}

func (s *Sources) SourcePlayer(ctx context.Context, name, player string) (domain.Entry, error) {
	src, key, err := s.board(ctx, name)
	if err != nil {
		return domain.Entry{}, err
	}
	return boards.PlayerOfKey(ctx, s.rdb, key, src.Scores(), fmt.Sprintf("source %q (%s)", name, key), player)
}

func (s *Sources) SourceAround(ctx context.Context, name, player string, n int) ([]domain.Entry, error) {
	src, key, err := s.board(ctx, name)
	if err != nil {
		return nil, err
	}
	return boards.AroundOfKey(ctx, s.rdb, key, src.Scores(), fmt.Sprintf("source %q (%s)", name, key), player, n)
}

func (s *Sources) SourceSuggestions(ctx context.Context) ([]domain.SourceSuggestion, error) {
	if err := s.found.Warm(ctx); err != nil {
		return nil, err
	}
	all, err := s.Sources(ctx)
	if err != nil {
		return nil, err
	}
	out := s.found.DatedLayouts()
	return slices.DeleteFunc(out, func(sg domain.SourceSuggestion) bool {
		return slices.ContainsFunc(all, func(src domain.Source) bool { return src.Key == sg.Key })
	}), nil
}
