package sources

import (
	"context"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
)

// Dated sorted sets no source declares are suggested by layout, from discovery's snapshot:
// zpulse's own keys, its boards, other types and adopted layouts are not.
func TestSourceSuggestions(t *testing.T) {
	t.Parallel()
	s, rdb, _ := newTestSources(t)
	ctx := context.Background()
	for i := range 41 {
		rdb.ZAdd(ctx, fmt.Sprintf("game:rank:202611%02d", i%30+1), redis.Z{Score: 1, Member: fmt.Sprint("p", i)})
	}
	rdb.ZAdd(ctx, "game:rank:20261201", redis.Z{Score: 1, Member: "p"})
	rdb.ZAdd(ctx, "{eu}:rank:20261201", redis.Z{Score: 1, Member: "p"})
	rdb.ZAdd(ctx, "adopted:20261201", redis.Z{Score: 1, Member: "p"})
	rdb.ZAdd(ctx, "leaderboard:g:20261201", redis.Z{Score: 1, Member: "p"})
	rdb.ZAdd(ctx, "zpulse:x:20261201", redis.Z{Score: 1, Member: "p"})
	rdb.ZAdd(ctx, "order:202613011", redis.Z{Score: 1, Member: "p"}) // no date: month 13, nine digits
	rdb.Set(ctx, "cache:20261201", "a string", 0)
	save(t, s, domain.Source{Name: "adopted", Kind: domain.SourceBoard, Key: "adopted:{yyyymmdd}", Encoding: "none"})
	if err := s.found.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := s.SourceSuggestions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []domain.SourceSuggestion{{Key: "game:rank:{yyyymmdd}", Example: "game:rank:20261201", Keys: 31}, {Key: "{eu}:rank:{yyyymmdd}", Example: "{eu}:rank:20261201", Keys: 1}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("suggestions %v, want %v", got, want)
	}
}
