package sources

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// The lists' read of adopted sources: every source of the kinds asked, each as SourceView
// reads it alone, in one round trip; a source whose key holds another type is shown empty,
// not the whole list lost.
func TestSourceViewsReadsEverySourceInOneRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rdb := redistest.DB(t)
	src, found, _ := newSourcesOn(rdb)
	rdb.ZAdd(ctx, "svc:board", redis.Z{Score: 30, Member: "ann"}, redis.Z{Score: 20, Member: "bob"})
	rdb.ZAdd(ctx, "svc:jobs", redis.Z{Score: 1, Member: "j1"})
	rdb.Set(ctx, "svc:odd", "a string", 0)
	for _, s := range []domain.Source{
		{Name: "board", Kind: domain.SourceBoard, Key: "svc:board", Encoding: "none"},
		{Name: "odd", Kind: domain.SourceBoard, Key: "svc:odd", Encoding: "none"},
		{Name: "jobs", Kind: domain.SourceQueue, Key: "svc:jobs", Encoding: "priority"},
	} {
		if _, err := src.SaveSource(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := found.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	want, err := src.SourceView(ctx, "board")
	if err != nil {
		t.Fatal(err)
	}
	hook := &redistest.CountingHook{}
	rdb.AddHook(hook)
	boards, err := src.SourceViews(ctx, domain.SourceBoard)
	if err != nil {
		t.Fatal(err)
	}
	if hook.Pipelines > 1 {
		t.Errorf("SourceViews made %d pipelines, want 1 for every source", hook.Pipelines)
	}
	if len(boards) != 2 || boards[0].Source.Name != "board" || len(boards[0].Entries) != 2 || boards[1].Source.Name != "odd" || len(boards[1].Entries) != 0 {
		t.Fatalf("boards = %+v, want board (2 players) and odd (empty)", boards)
	}
	if boards[0].Key != want.Key || boards[0].Count != want.Count || boards[0].Entries[0] != want.Entries[0] {
		t.Errorf("SourceViews' board %+v, SourceView's %+v", boards[0], want)
	}
	if all, err := src.SourceViews(ctx); err != nil || len(all) != 3 {
		t.Errorf("every kind: %d views, %v; want 3", len(all), err)
	}
}
