package domain

import (
	"context"
	"regexp"
	"time"
)

// A player's score history: each change zpulse makes to a player's score on a board (add,
// set, remove, and a reset of the whole board) is kept in a capped stream per board, written by the script that makes the
// change. Writes other services make straight to Redis are not in it.

// Score history limits.
const (
	DefaultScoreHistory = 10_000  // events kept per board (--score-history)
	MaxScoreHistory     = 1 << 24 // the most --score-history takes
	DefaultHistoryPage  = 20
	MaxHistoryPage      = 200
)

// Score history actions.
const (
	ScoreAdded   = "add"
	ScoreSet     = "set"
	ScoreRemoved = "remove"
	ScoreReset   = "reset"      // the whole board was reset: an event of every player's history
	ScoreSeason  = "season_end" // the season ended (the all-time board became it): every player's too
)

// ScoreEvent is one change to a player's score.
type ScoreEvent struct {
	At time.Time `json:"at"`
	// Points is what the change added (negative: taken away); for a set, the points set;
	// for a remove, minus the points the player had.
	Points int64 `json:"points"`
	// Score is the player's all-time points after the change (0 after a remove or a reset;
	// a reset's Points is 0: what each player had is not kept).
	Score  int64  `json:"score"`
	Actor  string `json:"actor"`
	Action string `json:"action"` // ScoreAdded, ScoreSet, ScoreRemoved, ScoreReset or ScoreSeason
}

// ScoreHistory is one page of a player's changes on a board, newest first.
type ScoreHistory struct {
	Board  string       `json:"board"`
	Player string       `json:"player"`
	Events []ScoreEvent `json:"events"`
	// Next is the cursor of the next (older) page; "" when the board's history is read to
	// its end.
	Next string `json:"next_cursor,omitempty"`
}

// HistoryOptions ask for one page of a player's history.
type HistoryOptions struct {
	Limit  int    // 1..MaxHistoryPage
	Cursor string // "" for the newest, else a ScoreHistory's Next
}

var historyCursor = regexp.MustCompile(`^[0-9]{1,20}-[0-9]{1,20}$`)

// Validate checks the options. Returns EINVALID.
func (o HistoryOptions) Validate() error {
	if o.Limit < 1 || o.Limit > MaxHistoryPage {
		return Errorf(EINVALID, "limit must be a whole number from 1 to %d (got %d)", MaxHistoryPage, o.Limit)
	}
	if o.Cursor != "" && !historyCursor.MatchString(o.Cursor) {
		return Errorf(EINVALID, "cursor must be a next_cursor this history gave, unchanged (got %q)", clip(o.Cursor))
	}
	return nil
}

// ScoreHistoryOps read a player's score history. Part of the leaderboards' implementation.
type ScoreHistoryOps interface {
	// PlayerHistory returns a page of a player's changes on a board, newest first. A page
	// reads at most MaxHistoryScan of the board's events (all players'); Next goes on.
	// Returns EINVALID; EUNAVAILABLE.
	PlayerHistory(ctx context.Context, board, player string, opt HistoryOptions) (ScoreHistory, error)
}

// MaxHistoryScan bounds the events of a board one page reads.
const MaxHistoryScan = 10_000
