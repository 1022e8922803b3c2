package boards

import (
	"context"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// ResetPeriod deletes one period's current board through deleteSortedSetScript (a key of
// another type stays, refused); the all-time board, the other periods and the period's
// earlier boards stay.
func (l *Leaderboards) ResetPeriod(ctx context.Context, board string, period domain.Period) (int64, error) {
	if err := domain.ValidateName("board", board); err != nil {
		return 0, err
	}
	if _, err := domain.ParseOnePeriod(string(period)); err != nil {
		return 0, err
	}
	n, err := deleteSortedSetScript.Run(ctx, l.rdb, []string{l.keys.PeriodBoard(board, period, l.clock.Now())}).Int64()
	return n, store.OpWriteError("boards.Leaderboards.ResetPeriod", err)
}
