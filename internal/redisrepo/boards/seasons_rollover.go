package boards

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// RolloverFailure is one board's failed scheduled season end.
type RolloverFailure struct {
	Board string
	Err   error
}

func (f RolloverFailure) Error() string { return "board " + f.Board + ": " + f.Err.Error() }
func (f RolloverFailure) Unwrap() error { return f.Err }

// RollSeasons ends the due seasons of every board with a schedule. Each board stands alone:
// one whose settings, seasons or key cannot be read or ended (another type at its key, a
// seasons hash lost beside its ended seasons) is a RolloverFailure, and the boards after it
// are rolled all the same. The failures are returned joined (errors.Join), after the round,
// and kept in store.Keys.SeasonRolloverFailures for the pages (a board that rolled or was not
// due loses its failure); an error of the whole round (the board names or Redis) stops it.
func (l *Leaderboards) RollSeasons(ctx context.Context) (int, error) {
	names, err := l.Found.NamesWarm(ctx, store.KindBoard)
	if err != nil || len(names) == 0 {
		return 0, err
	}
	pipe := l.rdb.Pipeline()
	reads := make([]*redis.MapStringStringCmd, len(names))
	for i, b := range names {
		reads[i] = pipe.HGetAll(ctx, l.keys.BoardSettings(b))
	}
	known := pipe.HKeys(ctx, l.keys.SeasonRolloverFailures())
	if _, err := pipe.Exec(ctx); err != nil && !isReply(err) {
		return 0, store.OpError("boards.Leaderboards.RollSeasons", err)
	}
	ended := 0
	now := l.clock.Now()
	var failures []error
	failed := map[string]string{}
	for i, b := range names {
		err := reads[i].Err()
		if err != nil {
			err = store.OpError("boards.Leaderboards.RollSeasons", err)
		} else {
			var ok bool
			ok, err = l.rollBoard(ctx, b, decodeSettings(reads[i].Val()), now)
			if ok {
				ended++
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				return ended, ctx.Err()
			}
			failures = append(failures, RolloverFailure{Board: b, Err: err})
			failed[b] = now.UTC().Format("2006-01-02 15:04:05 UTC") + ": " + err.Error()
		}
	}
	l.noteRolloverFailures(ctx, failed, known.Val())
	return ended, errors.Join(failures...)
}

// rollBoard ends one board's season when its schedule says it is due.
func (l *Leaderboards) rollBoard(ctx context.Context, board string, set domain.BoardSettings, now time.Time) (bool, error) {
	if set.SeasonEvery == domain.AllTime || domain.ValidateNewBoardName(board) != nil {
		return false, nil
	}
	loc, err := domain.SeasonLocation(set.SeasonZone)
	if err != nil {
		return false, nil // decodeSettings keeps only valid zones
	}
	_, ok, err := l.endSeason(ctx, board, set, domain.SeasonBoundary(set.SeasonEvery, loc, now))
	if errors.Is(err, errRewriting) {
		return false, nil // the next round ends it, once the rewrite is done
	}
	return ok, err
}

// noteRolloverFailures keeps this round's failures for the pages and drops the notes of the
// boards that did not fail (known: the boards noted before). A note that cannot be written is
// only missing from the pages: the round's failures are returned and logged all the same.
func (l *Leaderboards) noteRolloverFailures(ctx context.Context, failed map[string]string, known []string) {
	key := l.keys.SeasonRolloverFailures()
	pipe := l.rdb.Pipeline()
	var fields []any
	for b, note := range failed {
		fields = append(fields, b, note)
	}
	if len(fields) > 0 {
		pipe.HSet(ctx, key, fields...)
	}
	var gone []string
	for _, b := range known {
		if _, ok := failed[b]; !ok {
			gone = append(gone, b)
		}
	}
	if len(gone) > 0 {
		pipe.HDel(ctx, key, gone...)
	}
	if len(fields) > 0 || len(gone) > 0 {
		_, _ = pipe.Exec(ctx)
	}
}

// isReply says whether err is Redis's answer to one command (WRONGTYPE…) rather than a
// failure of the connection: the pipeline's other commands were answered.
func isReply(err error) bool {
	var re redis.Error
	return errors.As(err, &re)
}

// RunSeasonRollover calls RollSeasons every interval until ctx ends (one instance: run it
// under Singletons), calling onEnd after a round that ended seasons, and onFailure for each
// board whose end failed (board "" for a round that failed as a whole).
func (l *Leaderboards) RunSeasonRollover(ctx context.Context, every time.Duration, onEnd func(ended int), onFailure func(board string, err error)) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		n, err := l.RollSeasons(ctx)
		if n > 0 {
			onEnd(n)
		}
		if err != nil && ctx.Err() == nil {
			reportRolloverFailures(err, onFailure)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// reportRolloverFailures calls onFailure for each board's failure joined in err, or once with
// board "" for a failure of the whole round.
func reportRolloverFailures(err error, onFailure func(board string, err error)) {
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		onFailure("", err)
		return
	}
	for _, e := range joined.Unwrap() {
		var f RolloverFailure
		if errors.As(e, &f) {
			onFailure(f.Board, f.Err)
		} else {
			onFailure("", e)
		}
	}
}
