package domain

import (
	"context"
	"time"
)

// A season is a board's all-time board as it stood when an admin (or the board's schedule)
// ended it: the board starts empty and the ended season is kept, numbered 1, 2, …, readable
// like a board. Period boards are not part of a season: they keep counting by the calendar.

// Limits of seasons.
const (
	MaxKeepSeasons = 1000 // KeepSeasons: 0 (every season) to this
	SeasonWinners  = 3    // winners listed per season
	MaxSeason      = 1 << 40
)

// Season is an ended season of a board.
type Season struct {
	Number int64 `json:"number"`
	// Started is when the season began: the end of the one before, or when zpulse first
	// recorded the board's season (its schedule saved); nil when that was never recorded.
	Started *time.Time `json:"started"`
	Ended   time.Time  `json:"ended"`
	Players int64      `json:"players"`
	// TieBreak is the encoding the season's scores were written in (the board's when it ended).
	TieBreak TieBreak `json:"tie_break"`
	// SortOrder is the board's order when the season ended: its winners are its first.
	SortOrder SortOrder `json:"sort_order"`
	Winners   []Entry   `json:"winners"`
	Key       string    `json:"-"` // the Redis key of its sorted set
}

// SeasonList is a board's seasons: the current one's number and start, and the ended ones
// kept, newest first.
type SeasonList struct {
	Board          string     `json:"board"`
	Current        int64      `json:"current"`
	CurrentStarted *time.Time `json:"current_started"`
	Seasons        []Season   `json:"seasons"`
	// Dropped is how many ended seasons retention (KeepSeasons) removed so far.
	Dropped int64 `json:"dropped"`
}

// SeasonOps ends and reads a board's seasons.
type SeasonOps interface {
	// EndSeason ends the current season of a board in one atomic step on the board's Cluster
	// slot: the board's sorted set becomes the season's (renamed, nothing copied), the board
	// starts empty, and seasons beyond the board's KeepSeasons are deleted. Every point added
	// is in exactly one season or the live board. Returns the season ended. Returns EINVALID,
	// CodeWrongType, EUNAVAILABLE.
	EndSeason(ctx context.Context, board string) (Season, error)

	// Seasons lists a board's ended seasons with their winners. Returns EINVALID, EUNAVAILABLE.
	Seasons(ctx context.Context, board string) (SeasonList, error)

	// SeasonTop is the first n entries (1 ≤ n ≤ MaxTopN) of an ended season, with the season.
	// Returns ENOTFOUND for a season not kept; EINVALID, EUNAVAILABLE.
	SeasonTop(ctx context.Context, board string, season int64, n int) (Season, []Entry, error)

	// SeasonEntries pages through an ended season as Entries pages a board.
	// Returns ENOTFOUND, EINVALID (also for a malformed cursor), EUNAVAILABLE.
	SeasonEntries(ctx context.Context, board string, season int64, cursor string, limit int) (Page, error)

	// SeasonPlayer is a player's rank and score in an ended season.
	// Returns ENOTFOUND (season or player); EINVALID, EUNAVAILABLE.
	SeasonPlayer(ctx context.Context, board string, season int64, player string) (Entry, error)

	// RollSeasons ends the season of every board whose SeasonEvery boundary passed since its
	// current season started, and returns how many ended. Safe to run in several instances at
	// once (each end is conditional on the season's start), but meant for one (a singleton).
	RollSeasons(ctx context.Context) (int, error)
}

// validateSeasons checks the season settings.
func (s *BoardSettings) validateSeasons() error {
	if s.KeepSeasons < 0 || s.KeepSeasons > MaxKeepSeasons {
		return FieldErrorf("keep_seasons", EINVALID, "keep_seasons must be a whole number from 0 (keep every season) to %d (got %d)", MaxKeepSeasons, s.KeepSeasons)
	}
	if _, err := ParsePeriod(string(s.SeasonEvery)); err != nil {
		return FieldErrorf("season_every", EINVALID, "season_every must be \"\" (only when asked), daily, weekly or monthly (got %q)", clip(string(s.SeasonEvery)))
	}
	if _, err := SeasonLocation(s.SeasonZone); err != nil {
		return err
	}
	return nil
}

// SeasonLocation reads an IANA time zone name ("" and "UTC" are UTC). Returns EINVALID.
func SeasonLocation(zone string) (*time.Location, error) {
	if zone == "" {
		return time.UTC, nil
	}
	if len(zone) > 64 || zone == "Local" {
		return nil, FieldErrorf("season_zone", EINVALID, "season_zone must be an IANA time zone such as Europe/Berlin (got %q)", clip(zone))
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return nil, FieldErrorf("season_zone", EINVALID, "season_zone must be an IANA time zone such as Europe/Berlin (got %q)", clip(zone))
	}
	return loc, nil
}

// SeasonBoundary is the last start of a day, ISO week (Monday 00:00) or month at or before t
// in loc: when a season of a board with SeasonEvery p must have ended. Zero for AllTime.
func SeasonBoundary(p Period, loc *time.Location, t time.Time) time.Time {
	t = t.In(loc)
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc)
	switch p {
	case Daily:
		return day
	case Weekly:
		return day.AddDate(0, 0, -((int(t.Weekday()) + 6) % 7))
	case Monthly:
		return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, loc)
	}
	return time.Time{}
}

// RolloverText says when a board's seasons end, for people: "every Monday 00:00
// (Europe/Berlin)".
func (s BoardSettings) RolloverText() string {
	zone := s.SeasonZone
	if zone == "" {
		zone = "UTC"
	}
	switch s.SeasonEvery {
	case Daily:
		return "every day at 00:00 (" + zone + ")"
	case Weekly:
		return "every Monday 00:00 (" + zone + ")"
	case Monthly:
		return "on the 1st of every month, 00:00 (" + zone + ")"
	}
	return "when an admin ends it"
}

// Ranking is how the season's board reads: its encoding in its order.
func (s Season) Ranking() Ranking {
	o := s.SortOrder
	if !o.Valid() {
		o = SortDesc
	}
	return Ranking{Scores: s.TieBreak, Order: o}
}
