package domain

import (
	"context"
	"strconv"
)

// MaxSafeScore is the largest integer a Redis score (an IEEE-754 double) holds exactly: 2^53−1.
// zpulse never writes a score outside ±MaxSafeScore, so every score it reads back is exact.
const MaxSafeScore = 1<<53 - 1

// MaxTopN is the most entries one top-N read returns.
const MaxTopN = 1000

// Entry is one player's place on a board. Rank is 1-based.
type Entry struct {
	Rank   int64   `json:"rank"`
	Player string  `json:"player"`
	Score  float64 `json:"score"`
}

// BoardTop is the head of a board: its first entries and how many players it has in all.
type BoardTop struct {
	Board   string  `json:"board"`
	Entries []Entry `json:"entries"`
	Players int64   `json:"players"`
}

// LeaderboardService keeps leaderboards: sorted sets of players scored by points, highest first.
type LeaderboardService interface {
	// AddPoints adds points (negative allowed) to a player's score, creating the player at
	// 0 first when absent, and returns the new score and rank. Atomic.
	// Returns EINVALID for a bad board or player, or when the new score would leave
	// ±MaxSafeScore (nothing is written then); EUNAVAILABLE when Redis is down.
	AddPoints(ctx context.Context, board, player string, points int64) (Entry, error)

	// Top returns the first n entries (1 ≤ n ≤ MaxTopN) and the number of players.
	// Returns EINVALID, EUNAVAILABLE.
	Top(ctx context.Context, board string, n int) (BoardTop, error)

	// Player returns a player's score and rank, read in one round trip.
	// Returns ENOTFOUND when the player is not on the board; EINVALID, EUNAVAILABLE.
	Player(ctx context.Context, board, player string) (Entry, error)

	// Boards lists the boards zpulse has written to, sorted by name.
	// Returns EUNAVAILABLE.
	Boards(ctx context.Context) ([]string, error)
}

// ParsePoints parses a whole number of points as typed in a form: optional sign, digits,
// within ±MaxSafeScore. Returns EINVALID with a message that says what is allowed.
func ParsePoints(s string) (int64, error) {
	if s == "" {
		return 0, Errorf(EINVALID, "points are required: a whole number from %d to %d", -MaxSafeScore, MaxSafeScore)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < -MaxSafeScore || n > MaxSafeScore {
		return 0, Errorf(EINVALID, "points must be a whole number from %d to %d (got %q)", -MaxSafeScore, MaxSafeScore, clip(s))
	}
	return n, nil
}

// ValidateTopN checks how many entries a top-N read asks for. Returns EINVALID.
func ValidateTopN(n int) error {
	if n < 1 || n > MaxTopN {
		return Errorf(EINVALID, "n must be a whole number from 1 to %d (got %d)", MaxTopN, n)
	}
	return nil
}
