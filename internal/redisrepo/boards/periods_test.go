package boards

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// One add updates the all-time board and the current day, ISO week and month boards; each
// period key expires at its period's end plus the retention. The clock moves across a day,
// an ISO week, a month and a year boundary (UTC). On one server and on the Cluster.
func TestPeriodBoardsAndTheirTTLs(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, testPeriodBoardsAndTheirTTLs)
}

func testPeriodBoardsAndTheirTTLs(t *testing.T, rdb redis.UniversalClient) {
	lb, clock := newBoardsOn(t, rdb)
	ctx := context.Background()
	if _, err := lb.UpdateSettings(ctx, "g", domain.BoardSettings{TieBreak: domain.TieBreakNone, Periods: []domain.Period{domain.Monthly, domain.Daily, domain.Weekly}, RetentionDays: 2}); err != nil {
		t.Fatal(err)
	}
	day := 24 * time.Hour
	// 2026's shape, in a year Redis has not reached (so no period key is born expired).
	y := redistest.SameCalendarYear(testNow, 2026)
	on := func(month time.Month, d, hour, min, sec int) time.Time {
		return time.Date(y, month, d, hour, min, sec, 0, time.UTC)
	}
	ymd := func(year int, rest string) string { return fmt.Sprintf("%d-%s", year, rest) }
	steps := []struct {
		at                     time.Time
		daily, weekly, monthly string
	}{
		{on(11, 29, 23, 59, 59), ymd(y, "11-29"), ymd(y, "W48"), ymd(y, "11")}, // Sunday: last day of W48
		{on(11, 30, 0, 0, 0), ymd(y, "11-30"), ymd(y, "W49"), ymd(y, "11")},    // Monday: new ISO week
		{on(12, 1, 0, 0, 0), ymd(y, "12-01"), ymd(y, "W49"), ymd(y, "12")},     // new month, same week
		{on(13, 1, 8, 0, 0), ymd(y+1, "01-01"), ymd(y, "W53"), ymd(y+1, "01")}, // ISO week of the old year
		{on(13, 4, 8, 0, 0), ymd(y+1, "01-04"), ymd(y+1, "W01"), ymd(y+1, "01")},
	}
	for i, st := range steps {
		clock.Set(st.at)
		if _, err := lb.AddPoints(ctx, "g", "p", 10); err != nil {
			t.Fatal(err)
		}
		for p, suffix := range map[domain.Period]string{domain.Daily: st.daily, domain.Weekly: st.weekly, domain.Monthly: st.monthly} {
			key := "leaderboard:g:" + suffix
			if got := rdb.ZScore(ctx, key, "p").Val(); got < 10 {
				t.Errorf("step %d: %s holds %v", i, key, got)
			}
			wantExpiry := p.End(st.at).Add(2 * day)
			if got := rdb.PExpireTime(ctx, key).Val(); got != time.Duration(wantExpiry.UnixMilli())*time.Millisecond {
				t.Errorf("step %d: %s expires at %v, want %v", i, key, time.UnixMilli(got.Milliseconds()).UTC(), wantExpiry)
			}
			top, _ := lb.Top(ctx, "g", p, 10)
			if top.Key != key {
				t.Errorf("step %d: Top(%s) read %s, want %s", i, p, top.Key, key)
			}
		}
	}
	if got := rdb.ZScore(ctx, "leaderboard:g", "p").Val(); got != 50 || rdb.TTL(ctx, "leaderboard:g").Val() != -1 {
		t.Errorf("all-time board: %v points, TTL %v; want 50 and no expiry", got, rdb.TTL(ctx, "leaderboard:g").Val())
	}
	// Two adds in one month land on one monthly board; the first week holds one add.
	if got := rdb.ZScore(ctx, "leaderboard:g:"+ymd(y, "11"), "p").Val(); got != 20 {
		t.Errorf("%d-11 holds %v, want 20", y, got)
	}
	keys := redistest.KeysOnEveryMaster(t, rdb, "leaderboard:g:*")
	if len(keys) != 12 {
		t.Errorf("period keys: %v", keys)
	}
}

func TestPeriodSuffixAndEnd(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 29, 15, 4, 5, 0, time.FixedZone("UTC+10", 10*3600)) // 05:04:05Z
	for p, want := range map[domain.Period]string{domain.Daily: "2026-11-29 2026-11-30", domain.Weekly: "2026-W48 2026-11-30", domain.Monthly: "2026-11 2026-12-01"} {
		if got := fmt.Sprintf("%s %s", p.Suffix(at), p.End(at).Format("2006-01-02")); got != want {
			t.Errorf("%s: %s, want %s", p, got, want)
		}
	}
}

func TestSettings(t *testing.T) {
	t.Parallel()
	lb, rdb, clock := newBoards(t)
	ctx := context.Background()
	if s, err := lb.Settings(ctx, "b"); err != nil || s.TieBreak != domain.TieBreakNone || len(s.Periods) != 0 || s.RetentionDays != domain.DefaultRetentionDays {
		t.Errorf("defaults: %+v %v", s, err)
	}
	saved, err := lb.UpdateSettings(ctx, "b", domain.BoardSettings{TieBreak: domain.TieBreakFirstReached, Periods: []domain.Period{domain.Monthly, domain.Daily}, RetentionDays: 30})
	if err != nil || fmt.Sprint(saved.Periods) != "[daily monthly]" {
		t.Fatalf("saved %+v %v", saved, err)
	}
	for _, bad := range []domain.BoardSettings{
		{TieBreak: "coin_flip", RetentionDays: 1},
		{TieBreak: domain.TieBreakNone, Periods: []domain.Period{"hourly"}, RetentionDays: 1},
		{TieBreak: domain.TieBreakNone, Periods: []domain.Period{domain.Daily, domain.Daily}, RetentionDays: 1},
		{TieBreak: domain.TieBreakNone, RetentionDays: 0},
		{TieBreak: domain.TieBreakNone, RetentionDays: 3651},
	} {
		if _, err := lb.UpdateSettings(ctx, "b", bad); domain.ErrorCode(err) != domain.EINVALID {
			t.Errorf("%+v: %v, want EINVALID", bad, err)
		}
	}
	// Another instance reads them from Redis: every instance agrees (within settingsTTL).
	other := openBoards(rdb, clock)
	if s, _ := other.Settings(ctx, "b"); s.TieBreak != domain.TieBreakFirstReached || fmt.Sprint(s.Periods) != "[daily monthly]" || s.RetentionDays != 30 {
		t.Errorf("other instance reads %+v", s)
	}
	lb.UpdateSettings(ctx, "b", domain.DefaultBoardSettings())
	clock.Advance(SettingsTTL)
	if s, _ := other.Settings(ctx, "b"); s.TieBreak != domain.TieBreakNone {
		t.Errorf("other instance still has %+v after settingsTTL", s)
	}
}
