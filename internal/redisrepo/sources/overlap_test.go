package sources

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// The probe's case: a sliding log svc:rank:{client} beside a board svc:rank:{yyyymmdd}, tried
// with the day as the client, trimmed and expired the day's board. Its layout is refused when
// saved (409 naming the board), and a try on a sorted set that is not a log, under a layout
// saved before that rule, is refused and leaves the set as it was.
func TestSourcesNeverOverlap(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, testSourcesNeverOverlap)
}

func testSourcesNeverOverlap(t *testing.T, rdb redis.UniversalClient) {
	ctx := context.Background()
	src, _, clock := newSourcesOn(rdb)
	board := domain.Source{Name: "day", Kind: domain.SourceBoard, Key: "svc:rank:{yyyymmdd}", Encoding: string(domain.TieBreakNone)}
	if _, err := src.SaveSource(ctx, board); err != nil {
		t.Fatal(err)
	}
	log := domain.Source{Name: "log", Kind: domain.SourceLimiter, Key: "svc:rank:{client}", Encoding: domain.SourceSlidingLog, Limit: 5, WindowMs: 60_000}
	_, err := src.SaveSource(ctx, log)
	if domain.ErrorCode(err) != domain.ECONFLICT || !strings.Contains(domain.ErrorMessage(err), `"day"`) {
		t.Fatalf("saving an overlapping log: %v, want conflict naming day", err)
	}
	if all, _ := src.Sources(ctx); len(all) != 1 {
		t.Errorf("sources after the refusal: %+v", all)
	}
	// The board saved again (its own name) is no overlap; a log of its own layout is none.
	if _, err := src.SaveSource(ctx, board); err != nil {
		t.Errorf("saving the board again: %v", err)
	}
	if _, err := src.SaveSource(ctx, domain.Source{Name: "log", Kind: domain.SourceLimiter, Key: "svc:log:{client}", Encoding: domain.SourceSlidingLog, Limit: 5, WindowMs: 60_000}); err != nil {
		t.Errorf("saving a log beside the board: %v", err)
	}

	// A log saved before the rule (over the board's layout), tried on the day's board: refused.
	day := board.BoardKey(clock.Now())
	rdb.ZAdd(ctx, day, redis.Z{Score: 120, Member: "alice"}, redis.Z{Score: 95, Member: "bob"})
	old := log
	old.Name = "old"
	raw, _ := json.Marshal(old)
	rdb.HSet(ctx, "zpulse:sources", "old", raw)
	src.cache.Forget("")
	client := strings.TrimPrefix(day, "svc:rank:")
	_, err = src.TrySource(ctx, "old", client)
	if domain.ErrorCode(err) != domain.CodeWrongType || !strings.Contains(domain.ErrorMessage(err), "not a sliding log") {
		t.Errorf("try on the day's board: %v, want wrong_type saying it is not a log", err)
	}
	if z := rdb.ZRangeWithScores(ctx, day, 0, -1).Val(); len(z) != 2 || rdb.PTTL(ctx, day).Val() != -time.Nanosecond {
		t.Errorf("the day's board changed: %v, ttl %v", z, rdb.PTTL(ctx, day).Val())
	}
	// A log of the service's own, UUID members or its ms as the member, is tried.
	now := clock.Now().UnixMilli()
	rdb.ZAdd(ctx, "svc:log:u", redis.Z{Score: float64(now - 10), Member: "3f1c2a44-9d1e-4b7a-8f00-0a1b2c3d4e5f"})
	rdb.ZAdd(ctx, "svc:log:m", redis.Z{Score: float64(now - 10), Member: now - 10})
	for _, c := range []string{"u", "m"} {
		if res, err := src.TrySource(ctx, "log", c); err != nil || !res.Allowed || rdb.ZCard(ctx, "svc:log:"+c).Val() != 2 {
			t.Errorf("try of the service's log %s: %+v, %v", c, res, err)
		}
	}
	overlaps := domain.SourceOverlaps(mustSources(t, src))
	if len(overlaps) != 1 || overlaps[0].Source != "day" || overlaps[0].Other != "old" {
		t.Errorf("overlaps = %+v, want day with old", overlaps)
	}
}

// Two instances saving two overlapping sources at once: one is saved, the other refused
// (the check and the write are one compare-and-set).
func TestOverlappingSavesRacing(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		a, _, _ := newSourcesOn(rdb)
		b, _, _ := newSourcesOn(rdb)
		for round := range 20 {
			rdb.Del(ctx, "zpulse:sources")
			prefix := "race" + string(rune('a'+round)) + ":"
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i, s := range []*Sources{a, b} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[i] = s.SaveSource(ctx, domain.Source{Name: "s" + string(rune('0'+i)), Kind: domain.SourceLock, Key: prefix + strings.Repeat("x", i)})
				}()
			}
			wg.Wait()
			if n := rdb.HLen(ctx, "zpulse:sources").Val(); n != 1 {
				t.Fatalf("round %d: %d sources saved (%v), want 1", round, n, errs)
			}
			if (errs[0] == nil) == (errs[1] == nil) || domain.ErrorCode(errs[0])+domain.ErrorCode(errs[1]) != domain.ECONFLICT+domain.ErrorCode(nil) {
				t.Fatalf("round %d: %v", round, errs)
			}
		}
	})
}

func mustSources(t *testing.T, s *Sources) []domain.Source {
	t.Helper()
	all, err := s.Sources(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// A try on an adopted fixed window whose key holds a string that is not a count (a lock's
// token, a service's value) is refused, and the string is left as it was.
func TestFixedWindowTryRefusesAStringThatIsNotACounter(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		src, _, clock := newSourcesOn(rdb)
		fw, err := src.SaveSource(ctx, domain.Source{Name: "fw", Kind: domain.SourceLimiter, Key: "fwin:{client}:{window_start}", Encoding: domain.SourceFixedWindow, Limit: 5, WindowMs: 60_000})
		if err != nil {
			t.Fatal(err)
		}
		key := fw.ClientKey("c", clock.Now())
		rdb.Set(ctx, key, "their-token", 0)
		if _, err := src.TrySource(ctx, "fw", "c"); domain.ErrorCode(err) != domain.CodeWrongType || !strings.Contains(domain.ErrorMessage(err), "not a fixed window's counter") {
			t.Errorf("try on a token: %v, want wrong_type", err)
		}
		if v := rdb.Get(ctx, key).Val(); v != "their-token" || rdb.PTTL(ctx, key).Val() != -time.Nanosecond {
			t.Errorf("the string changed: %q", v)
		}
		rdb.Set(ctx, key, "2", time.Minute)
		if res, err := src.TrySource(ctx, "fw", "c"); err != nil || !res.Allowed || res.Remaining != 2 {
			t.Errorf("try on the service's counter: %+v, %v", res, err)
		}
	})
}
