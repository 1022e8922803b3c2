package redisrepo

import (
	"context"
	"sync"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
)

// Patches of different fields from two instances at once both apply: the merge happens in
// Redis, not read in Go and written back whole.
func TestPatchSettingsMergesInRedis(t *testing.T) {
	ctx := context.Background()
	t.Run("board", func(t *testing.T) {
		lb, rdb, clock := newBoards(t)
		other := openTest(t, rdb, clock).Leaderboards
		tie, days := domain.TieBreakFirstReached, 7
		var wg sync.WaitGroup
		wg.Go(func() { lb.PatchSettings(ctx, "game", domain.BoardSettingsPatch{TieBreak: &tie}) })
		wg.Go(func() { other.PatchSettings(ctx, "game", domain.BoardSettingsPatch{RetentionDays: &days}) })
		wg.Wait()
		periods := []domain.Period{domain.Monthly, domain.Daily}
		got, err := lb.PatchSettings(ctx, "game", domain.BoardSettingsPatch{Periods: &periods})
		if err != nil {
			t.Fatal(err)
		}
		if got.TieBreak != tie || got.RetentionDays != days || len(got.Periods) != 2 || got.Periods[0] != domain.Daily {
			t.Errorf("settings = %+v, want every patch applied", got)
		}
		bad := 0
		if _, err := lb.PatchSettings(ctx, "game", domain.BoardSettingsPatch{RetentionDays: &bad}); domain.ErrorCode(err) != domain.EINVALID {
			t.Errorf("retention 0: %v, want EINVALID", err)
		}
		if s, _ := other.Settings(ctx, "game"); s.RetentionDays != days {
			t.Errorf("a refused patch changed the settings: %+v", s)
		}
	})
	t.Run("queue", func(t *testing.T) {
		q, rdb, clock := newTestQueues(t)
		other := openTest(t, rdb, clock).Queues
		kind, attempts := domain.DelayedQueue, 9
		var wg sync.WaitGroup
		wg.Go(func() { q.PatchSettings(ctx, "jobs", domain.QueueSettingsPatch{Kind: &kind}) })
		wg.Go(func() { other.PatchSettings(ctx, "jobs", domain.QueueSettingsPatch{MaxAttempts: &attempts}) })
		wg.Wait()
		got, err := q.PatchSettings(ctx, "jobs", domain.QueueSettingsPatch{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Kind != kind || got.MaxAttempts != attempts {
			t.Errorf("settings = %+v, want both patches applied", got)
		}
	})
}
