package domain

import (
	"slices"
	"testing"
	"time"
)

// Each encoding's scores fit it, and the check tells them apart where the README says it can.
func TestFitsTellsTheEncodingsApart(t *testing.T) {
	now := time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)
	at := now.Add(-90 * 24 * time.Hour)
	for _, c := range []struct {
		enc  TieBreak
		want []TieBreak
	}{
		{TieBreakNone, []TieBreak{TieBreakNone}},
		{TieBreakFirstReached, []TieBreak{TieBreakFirstReached}},
		{TieBreakFirstReachedWide, []TieBreak{TieBreakFirstReachedWide}},
		{TieBreakFirstReachedE10, []TieBreak{TieBreakNone, TieBreakFirstReachedE10}}, // whole numbers: a plain score too
	} {
		for _, points := range []int64{0, 42, -7, 1_000_000 % (c.enc.MaxPoints() + 1)} {
			s, err := c.enc.Encode(points, at)
			if err != nil {
				t.Fatal(err)
			}
			if got := FitsOf(s, now); !slices.Equal(got, c.want) {
				t.Errorf("%s %d points (%v) fits %v, want %v", c.enc, points, s, got, c.want)
			}
			if back, ok := Reencode(s, c.enc, TieBreakFirstReachedWide, now); ok && TieBreakFirstReachedWide.Points(back) != points {
				t.Errorf("%s %d points re-encoded wide reads %d points", c.enc, points, TieBreakFirstReachedWide.Points(back))
			}
		}
	}
	// A future time or one more than EncodingPast back fits no timed encoding.
	if s, _ := TieBreakFirstReached.Encode(5, now.Add(48*time.Hour)); TieBreakFirstReached.Fits(s, now) {
		t.Error("a score from the day after tomorrow fits")
	}
}

func TestCheckScoresNamesAMisfitAndTheLikelyEncoding(t *testing.T) {
	now := time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)
	var entries []Entry
	for i, enc := range []TieBreak{TieBreakFirstReachedWide, TieBreakFirstReached, TieBreakFirstReached, TieBreakNone} {
		s, _ := enc.Encode(int64(100-i), now.Add(-time.Hour))
		entries = append(entries, NewEntry(TieBreakFirstReachedWide, int64(i+1), string(rune('a'+i)), s))
	}
	r := CheckScores("b", TieBreakFirstReachedWide, entries, now)
	if r.Checked != 4 || r.Misfits != 3 || r.Likely != TieBreakFirstReached || r.Example == nil || r.Example.Player != "b" {
		t.Fatalf("report = %+v, example %+v", r, r.Example)
	}
}

func TestSeasonBoundaryInAZone(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err) // domain embeds time/tzdata: the zone is always there
	}
	// Sunday 2026-11-29 23:30 UTC is Monday 00:30 in Berlin: that Monday 00:00 is the boundary.
	got := SeasonBoundary(Weekly, berlin, time.Date(2026, 11, 29, 23, 30, 0, 0, time.UTC))
	if want := time.Date(2026, 11, 30, 0, 0, 0, 0, berlin); !got.Equal(want) {
		t.Fatalf("weekly boundary = %v, want %v", got, want)
	}
	if got := SeasonBoundary(Monthly, time.UTC, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)); got.Day() != 1 || got.Month() != 12 {
		t.Fatalf("monthly boundary = %v", got)
	}
	s := BoardSettings{TieBreak: TieBreakNone, Periods: []Period{}, RetentionDays: 90, SeasonEvery: "hourly"}
	if ErrorField(s.Validate()) != "season_every" {
		t.Fatal("an hourly rollover was accepted")
	}
}
