package domain

import (
	"context"
	"slices"
	"time"
)

// MaxSafeScore is the largest integer a Redis score (an IEEE-754 double) holds exactly: 2^53−1.
// zpulse never writes a score outside ±MaxSafeScore, so every score it reads back is exact.
const MaxSafeScore = 1<<53 - 1

// Limits of reads.
const (
	MaxTopN      = 1000 // entries in one top-N read
	MaxPageLimit = 1000 // entries in one page of cursor paging
	MaxAround    = 100  // entries above and below a player
)

// Entry is one player's place on a board. Rank is 1-based; Score is the player's true points
// (decoded by the board's encoding); Raw is the score as Redis holds it.
type Entry struct {
	Rank   int64   `json:"rank"`
	Player string  `json:"player"`
	Score  int64   `json:"score"`
	Raw    float64 `json:"-"`
}

// Scores reads a board's true points from its Redis scores: a TieBreak, or an adopted board's
// encoding with its own parameters (Source.Scores).
type Scores interface{ Points(score float64) int64 }

// NewEntry makes the entry of a player at a 1-based rank with a raw Redis score written in
// the board's encoding t.
func NewEntry(t Scores, rank int64, player string, raw float64) Entry {
	return Entry{Rank: rank, Player: player, Score: t.Points(raw), Raw: raw}
}

// BoardTop is the head of a board (all-time or one period): its first entries, how many
// players it has, and how many distinct players scored on it today.
type BoardTop struct {
	Board       string  `json:"board"`
	Period      Period  `json:"period,omitempty"`
	Key         string  `json:"-"` // the Redis key read, e.g. leaderboard:game:2048:2026-W48
	Entries     []Entry `json:"entries"`
	Players     int64   `json:"players"`
	UniqueToday int64   `json:"unique_today"`
	// SortOrder and Operator are the board's settings, read with the head.
	SortOrder SortOrder `json:"-"`
	Operator  Operator  `json:"-"`
	// WrongType is the Redis type of Key when it holds another type than a sorted set (another
	// service's "list"): nothing else is read then. "" for a board.
	WrongType string `json:"-"`
	// RolloverFailure says why the scheduled season end of the board failed at the season
	// rollover's last round ("" when it did not).
	RolloverFailure string `json:"-"`
}

// Page is one page of cursor paging. NextCursor is nil after the last page.
type Page struct {
	Entries    []Entry `json:"entries"`
	NextCursor *string `json:"next_cursor"`
	// Total is how many players the board has.
	Total int64 `json:"total"`
}

// MaxRank bounds a rank asked for (EntriesAt).
const MaxRank = 1 << 40

// BoardSettings are a board's options, kept in Redis so every zpulse instance agrees.
type BoardSettings struct {
	TieBreak      TieBreak `json:"tie_break"`
	Periods       []Period `json:"periods"`
	RetentionDays int      `json:"retention_days"`
	// KeepSeasons keeps the last N ended seasons (0: every one); see SeasonOps.
	KeepSeasons int `json:"keep_seasons"`
	// SeasonEvery ends the season at every start of a day, ISO week or month in SeasonZone
	// (AllTime: only when asked).
	SeasonEvery Period `json:"season_every"`
	// SeasonZone is the IANA time zone of SeasonEvery's boundaries ("" is UTC).
	SeasonZone string `json:"season_zone"`
	// SortOrder ranks the highest (desc, the default) or the lowest (asc) points first.
	SortOrder SortOrder `json:"sort_order"`
	// Operator is what a write does: add the points (incr, the default), keep the better
	// score (best) or the latest (set).
	Operator Operator `json:"operator"`
}

// Retention bounds, in days, for how long a period board is kept after its period ends.
const (
	MinRetentionDays     = 1
	MaxRetentionDays     = 3650
	DefaultRetentionDays = 90
)

// DefaultBoardSettings are the settings of a board nobody configured: plain scores, no periods.
func DefaultBoardSettings() BoardSettings {
	return BoardSettings{TieBreak: TieBreakNone, Periods: []Period{}, RetentionDays: DefaultRetentionDays, SortOrder: SortDesc, Operator: OperatorIncr}
}

// Validate checks the settings and puts the periods in display order. Returns EINVALID.
func (s *BoardSettings) Validate() error {
	if !s.TieBreak.Valid() {
		return FieldErrorf("tie_break", EINVALID, `tie_break must be "none", "first_reached", "first_reached_e10" or "first_reached_wide" (got %q)`, clip(string(s.TieBreak)))
	}
	if s.SortOrder == "" { // settings made before the order was a setting
		s.SortOrder = SortDesc
	}
	if s.Operator == "" {
		s.Operator = OperatorIncr
	}
	if !s.SortOrder.Valid() {
		return FieldErrorf("sort_order", EINVALID, `sort_order must be "desc" or "asc" (got %q)`, clip(string(s.SortOrder)))
	}
	if !s.Operator.Valid() {
		return FieldErrorf("operator", EINVALID, `operator must be "incr", "best" or "set" (got %q)`, clip(string(s.Operator)))
	}
	seen := map[Period]bool{}
	for _, p := range s.Periods {
		if _, err := ParsePeriod(string(p)); err != nil || p == AllTime {
			return FieldErrorf("periods", EINVALID, "periods may hold daily, weekly and monthly (got %q)", clip(string(p)))
		}
		if seen[p] {
			return FieldErrorf("periods", EINVALID, "period %q is listed twice", p)
		}
		seen[p] = true
	}
	s.Periods = slices.DeleteFunc(slices.Clone(Periods), func(p Period) bool { return !seen[p] })
	if s.RetentionDays < MinRetentionDays || s.RetentionDays > MaxRetentionDays {
		return FieldErrorf("retention_days", EINVALID, "retention_days must be a whole number from %d to %d (got %d)", MinRetentionDays, MaxRetentionDays, s.RetentionDays)
	}
	return s.validateSeasons()
}

// BoardSettingsPatch is a partial change of a board's settings: nil fields keep their saved
// value.
type BoardSettingsPatch struct {
	TieBreak      *TieBreak
	Periods       *[]Period
	RetentionDays *int
	KeepSeasons   *int
	SeasonEvery   *Period
	SeasonZone    *string
	SortOrder     *SortOrder
	Operator      *Operator
}

// Apply returns s changed by the patch's fields.
func (p BoardSettingsPatch) Apply(s BoardSettings) BoardSettings {
	if p.TieBreak != nil {
		s.TieBreak = *p.TieBreak
	}
	if p.Periods != nil {
		s.Periods = slices.Clone(*p.Periods)
	}
	if p.RetentionDays != nil {
		s.RetentionDays = *p.RetentionDays
	}
	if p.KeepSeasons != nil {
		s.KeepSeasons = *p.KeepSeasons
	}
	if p.SeasonEvery != nil {
		s.SeasonEvery = *p.SeasonEvery
	}
	if p.SeasonZone != nil {
		s.SeasonZone = *p.SeasonZone
	}
	if p.SortOrder != nil {
		s.SortOrder = *p.SortOrder
	}
	if p.Operator != nil {
		s.Operator = *p.Operator
	}
	return s
}

// Keeps says whether the board keeps a period's board.
func (s BoardSettings) Keeps(p Period) bool { return p == AllTime || slices.Contains(s.Periods, p) }

// MaxPoints is the largest |score| in points a board with these settings holds exactly.
func (s BoardSettings) MaxPoints() int64 { return s.TieBreak.MaxPoints() }

// Retention is how long a period board lives after its period ends.
func (s BoardSettings) Retention() time.Duration {
	return time.Duration(s.RetentionDays) * 24 * time.Hour
}

// LeaderboardService keeps leaderboards: sorted sets of players scored by points, highest
// first, each with optional daily, weekly and monthly boards beside it. Methods that take a
// period read that period's current board (UTC); AllTime is the board itself.
type LeaderboardService interface {
	ScoreHistoryOps

	// AddPoints adds points (negative allowed) to a player on the board and on every period
	// board its settings keep, and returns the all-time entry after the add. Each board's
	// read-modify-write is atomic. Returns EINVALID for a bad board or player, or when a new
	// score would leave the board's exact range (nothing is written then); EUNAVAILABLE.
	AddPoints(ctx context.Context, board, player string, points int64) (Entry, error)

	// AddPointsBatch is AddPoints for 1..MaxBatchScores players in one call: each add is
	// atomic and checked alone, and answers alone (its rank read once the batch is applied).
	// Returns EINVALID for a bad board or batch size, EUNAVAILABLE; an item's own EINVALID is
	// in its Result.
	AddPointsBatch(ctx context.Context, board string, adds []ScoreAdd) ([]Result[Entry], error)

	// SetScore sets a player's all-time points (and, on tie-break boards, stamps the time).
	// Returns EINVALID, EUNAVAILABLE.
	SetScore(ctx context.Context, board, player string, points int64) (Entry, error)

	// RemovePlayer removes a player from the board and its current period boards.
	// Returns ENOTFOUND when the player is not on the all-time board; EINVALID, EUNAVAILABLE.
	RemovePlayer(ctx context.Context, board, player string) error

	// Trim keeps the first keep players of the all-time board and removes the rest,
	// returning how many were removed. Returns EINVALID, EUNAVAILABLE.
	Trim(ctx context.Context, board string, keep int64) (int64, error)

	// Reset deletes the board, its period boards and its unique-player counts; settings and
	// ended seasons stay. Returns the number of keys deleted. Returns EINVALID, EUNAVAILABLE.
	Reset(ctx context.Context, board string) (int64, error)

	// ResetPeriod deletes only the current board of one period (daily, weekly or monthly):
	// the all-time board and the other periods stay. Returns the number of keys deleted (0
	// or 1). Returns EINVALID (also for AllTime), EUNAVAILABLE.
	ResetPeriod(ctx context.Context, board string, period Period) (int64, error)

	SeasonOps
	EncodingOps

	// Top returns the first n entries (1 ≤ n ≤ MaxTopN) of a period's board.
	// Returns EINVALID, EUNAVAILABLE.
	Top(ctx context.Context, board string, period Period, n int) (BoardTop, error)

	// Player returns a player's score and rank, read atomically in one round trip.
	// Returns ENOTFOUND when the player is not on the board; EINVALID, EUNAVAILABLE.
	Player(ctx context.Context, board string, period Period, player string) (Entry, error)

	// Around returns up to n entries above a player, the player, and up to n below
	// (1 ≤ n ≤ MaxAround), clamped at the board's ends. Returns ENOTFOUND, EINVALID, EUNAVAILABLE.
	Around(ctx context.Context, board string, period Period, player string, n int) ([]Entry, error)

	// Entries pages through a board in rank order, limit entries at a time (1 ≤ limit ≤
	// MaxPageLimit), starting after cursor ("" for the first page). Every member whose score
	// does not change while paging is returned exactly once, ties included.
	// Returns EINVALID (also for a malformed cursor), EUNAVAILABLE.
	Entries(ctx context.Context, board string, period Period, cursor string, limit int) (Page, error)

	// EntriesAt is the page of limit entries from rank (1-based, at most MaxRank) on, read
	// by rank (ZREVRANGE, O(log N + limit)), for a jump to a rank; its NextCursor continues
	// with Entries. Past the last rank it is empty. Returns EINVALID, EUNAVAILABLE.
	EntriesAt(ctx context.Context, board string, period Period, rank int64, limit int) (Page, error)

	// Settings returns a board's settings (the defaults when none were saved).
	// Returns EINVALID, EUNAVAILABLE.
	Settings(ctx context.Context, board string) (BoardSettings, error)

	// UpdateSettings validates and saves a board's settings and returns them as saved.
	// Returns EINVALID, EUNAVAILABLE.
	UpdateSettings(ctx context.Context, board string, s BoardSettings) (BoardSettings, error)

	// PatchSettings changes the fields the patch gives and keeps the others, atomically in
	// Redis (two patches of different fields at once both apply), and returns the settings
	// as saved. Returns EINVALID, EUNAVAILABLE.
	PatchSettings(ctx context.Context, board string, p BoardSettingsPatch) (BoardSettings, error)

	// Boards lists every board: those zpulse wrote to and those other services wrote, as last
	// discovered, sorted by name. Returns EUNAVAILABLE.
	Boards(ctx context.Context) ([]string, error)

	// Summaries returns every board as the boards list shows it (player count and leaders),
	// sorted by name, in one round trip after the first discovery. It reads Redis only: it
	// never changes what the live watcher knows. Returns EUNAVAILABLE.
	Summaries(ctx context.Context) ([]BoardSummary, error)
}

// ValidateRange checks a count asked for in a read: a whole number from 1 to max. Returns EINVALID.
func ValidateRange(name string, n, max int) error {
	if n < 1 || n > max {
		return FieldErrorf(name, EINVALID, "%s must be a whole number from 1 to %s (got %s)", name, FormatCount(int64(max)), FormatCount(int64(n)))
	}
	return nil
}
