package sources

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// newTestSources is the room's service on its own database, with a manual clock at testNow.
func newTestSources(t *testing.T) (*Sources, *redis.Client, *domain.ManualClock) {
	t.Helper()
	rdb := redistest.DB(t)
	clock := domain.NewManualClock(testNow)
	return NewSources(rdb, store.DefaultKeys, store.NewDiscovery(rdb, store.DefaultKeys, nil), store.Clocks{Script: clock}), rdb, clock
}

func save(t *testing.T, s *Sources, src domain.Source) domain.Source {
	t.Helper()
	saved, err := s.SaveSource(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	return saved
}

// An adopted board at a hash-tagged key dated in Asia/Shanghai, in the second article's
// encoding with a max_ts of the service's, pages like a zpulse board: every player once, in
// rank order, ties included; a player's rank and the players around them agree.
func TestAdoptedBoardPagesAndRanks(t *testing.T) {
	t.Parallel()
	s, rdb, clock := newTestSources(t)
	ctx := context.Background()
	const maxTS = 20_000_000_000 // max_ts − ts > 10^10: ⌊score / 10^10⌋ would count one point too many
	src := save(t, s, domain.Source{Name: "daily", Kind: domain.SourceBoard, Key: "{game}:rank:{yyyymmdd}",
		Encoding: string(domain.TieBreakFirstReachedE10), Zone: "Asia/Shanghai", MaxTS: maxTS})
	key := "{game}:rank:" + clock.Now().In(src.Location()).Format("20060102")
	if got := s.keys.SourceBoard(src, clock.Now()); got != key {
		t.Fatalf("reads %q, want %q", got, key)
	}
	ts := clock.Now().Unix()
	var zs []redis.Z
	for i := range 25 {
		points := int64(100 - i/4*10) // four players share each score
		zs = append(zs, redis.Z{Score: float64(points*domain.E10Scale + (maxTS - ts)), Member: fmt.Sprintf("p%02d", i)})
	}
	rdb.ZAdd(ctx, key, zs...)

	seen, after, rank := map[string]bool{}, "", int64(0)
	for pages := 0; ; pages++ {
		page, err := s.SourceEntries(ctx, "daily", after, 7)
		if err != nil {
			t.Fatal(err)
		}
		if page.Total != 25 {
			t.Errorf("total %d", page.Total)
		}
		for _, e := range page.Entries {
			rank++
			if seen[e.Player] || e.Rank != rank {
				t.Errorf("%s at rank %d (want %d), seen before: %v", e.Player, e.Rank, rank, seen[e.Player])
			}
			seen[e.Player] = true
			var n int
			fmt.Sscanf(e.Player, "p%02d", &n)
			if want := int64(100 - n/4*10); e.Score != want {
				t.Errorf("%s: %d points, want %d", e.Player, e.Score, want)
			}
		}
		if page.NextCursor == nil {
			break
		}
		after = *page.NextCursor
		if pages > 5 {
			t.Fatal("paging does not end")
		}
	}
	if len(seen) != 25 {
		t.Errorf("reached %d players of 25", len(seen))
	}

	me, err := s.SourcePlayer(ctx, "daily", "p10")
	if err != nil || me.Score != 80 {
		t.Fatalf("player: %+v %v", me, err)
	}
	around, err := s.SourceAround(ctx, "daily", "p10", 2)
	if err != nil || len(around) != 5 || around[2].Player != "p10" || around[2].Rank != me.Rank {
		t.Errorf("around: %+v %v", around, err)
	}
	if _, err := s.SourcePlayer(ctx, "daily", "nobody"); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Errorf("missing player: %v", err)
	}
	if _, err := s.SourceEntries(ctx, "daily", "forged", 7); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("forged cursor: %v", err)
	}
	save(t, s, domain.Source{Name: "mail", Kind: domain.SourceQueue, Key: "jobs:mail", Encoding: domain.SourcePriority})
	if _, err := s.SourceEntries(ctx, "mail", "", 7); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("a queue's entries: %v", err)
	}
}

// A service dating keys in Asia/Shanghai writes today's board from 00:00 local time: at
// 00:30 there (16:30 UTC the day before) zpulse reads the new day's key.
func TestAdoptedBoardZoneDay(t *testing.T) {
	t.Parallel()
	s, rdb, clock := newTestSources(t)
	ctx := context.Background()
	save(t, s, domain.Source{Name: "cn", Kind: domain.SourceBoard, Key: "game:rank:{yyyymmdd}", Encoding: "none", Zone: "Asia/Shanghai"})
	sh, _ := time.LoadLocation("Asia/Shanghai")
	local := clock.Now().In(sh)
	midnight := time.Date(local.Year(), local.Month(), local.Day()+1, 0, 30, 0, 0, sh)
	clock.Set(midnight)
	rdb.ZAdd(ctx, "game:rank:"+midnight.Format("20060102"), redis.Z{Score: 5, Member: "early-bird"})
	v, err := s.SourceView(ctx, "cn")
	if err != nil || len(v.Entries) != 1 || v.Key != "game:rank:"+midnight.Format("20060102") {
		t.Errorf("at 00:30 in Shanghai (%s UTC): %+v %v", midnight.UTC().Format(time.DateTime), v, err)
	}
}
