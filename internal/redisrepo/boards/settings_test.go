package boards

import (
	"context"
	"sync"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// Patches of different fields from two instances at once both apply: the merge happens in
// Redis, not read in Go and written back whole.
func TestPatchBoardSettingsMergesInRedis(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lb, rdb, clock := newBoards(t)
	other := openBoards(rdb, clock)
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
}

// Settings saved before the key layout had braces carry over on first read: an upgrade keeps
// every board's tie-break, and the old key goes.
func TestLegacySettingsCarryOver(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rdb := redistest.DB(t)
	lb := openBoards(rdb, nil)
	legacy := store.DefaultKeys.LegacyBoardSettings("game:2048")
	if err := rdb.HSet(ctx, legacy, "tie_break", "first_reached", "periods", "daily", "retention_days", "7").Err(); err != nil {
		t.Fatal(err)
	}
	s, err := lb.Settings(ctx, "game:2048")
	if err != nil {
		t.Fatal(err)
	}
	// The legacy "first_reached" was the wide encoding (see decodeSettings).
	if s.TieBreak != domain.TieBreakFirstReachedWide || s.RetentionDays != 7 || len(s.Periods) != 1 || s.Periods[0] != domain.Daily {
		t.Errorf("settings = %+v, want the legacy ones", s)
	}
	if rdb.Exists(ctx, legacy).Val() != 0 {
		t.Error("the legacy settings key is still there")
	}
	if got := rdb.HGet(ctx, store.DefaultKeys.BoardSettings("game:2048"), "tie_break").Val(); got != "first_reached" {
		t.Errorf("tie_break under the new key = %q", got)
	}
}
