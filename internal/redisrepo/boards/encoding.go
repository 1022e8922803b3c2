package boards

import (
	"context"
	"fmt"
	"strconv"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

var _ domain.EncodingOps = (*Leaderboards)(nil)

// fixChunk is how many members one rewriteScoresScript call looks at (a ZSCAN step's COUNT).
const fixChunk = 500

func (l *Leaderboards) CheckEncoding(ctx context.Context, board string) (domain.EncodingReport, error) {
	if err := domain.ValidateKeyName("board", board); err != nil {
		return domain.EncodingReport{}, err
	}
	set, err := l.boardSettings(ctx, board)
	if err != nil {
		return domain.EncodingReport{}, err
	}
	zs, err := l.rdb.ZRevRangeWithScores(ctx, l.keys.Leaderboard(board), 0, domain.EncodingSample-1).Result()
	if err != nil {
		return domain.EncodingReport{}, store.OpError("boards.Leaderboards.CheckEncoding", err)
	}
	entries := make([]domain.Entry, len(zs))
	for i, z := range zs {
		entries[i] = domain.NewEntry(set.TieBreak, int64(i+1), fmt.Sprint(z.Member), z.Score)
	}
	return domain.CheckScores(board, set.TieBreak, entries, l.clock.Now()), nil
}

func (l *Leaderboards) FixEncoding(ctx context.Context, board string, to domain.TieBreak) (domain.EncodingFix, error) {
	if err := domain.ValidateNewBoardName(board); err != nil {
		return domain.EncodingFix{}, err
	}
	if !to.Valid() {
		s := domain.BoardSettings{TieBreak: to}
		return domain.EncodingFix{}, s.Validate()
	}
	report, err := l.CheckEncoding(ctx, board)
	if err != nil {
		return domain.EncodingFix{}, err
	}
	// The encoding first: from here on every add writes it, and the rewrite below catches up
	// with what was written before.
	set, err := l.PatchSettings(ctx, board, domain.BoardSettingsPatch{TieBreak: &to})
	if err != nil {
		return domain.EncodingFix{}, err
	}
	prefer := append([]domain.TieBreak{report.TieBreak, report.Likely}, domain.TieBreaks...)
	fix := domain.EncodingFix{Board: board, TieBreak: to}
	now := l.clock.Now()
	keys := []string{l.keys.Leaderboard(board)}
	for _, p := range set.Periods {
		keys = append(keys, l.keys.PeriodBoard(board, p, now))
	}
	for _, key := range keys {
		if err := l.rewriteKey(ctx, key, to, prefer, &fix); err != nil {
			return fix, err
		}
	}
	return fix, nil
}

// rewriteKey rewrites the scores of one sorted set that do not fit encoding to, and every
// score that fits the board's encoding before the fix (prefer[0]), a ZSCAN step (every member
// present throughout is seen at least once) and one script at a time. A score of the old
// encoding is converted even when it also reads as one of to: from mid-2030 on, zpulse's wide
// scores also read as the main article's (a time within the last ten years), and such a
// score was written under the old setting, so it is the old encoding's (the check says the
// other writers' scores are those that do not fit the old encoding). Not from none: a whole
// number also reads as the second article's points × 10^10, and is left as it is.
func (l *Leaderboards) rewriteKey(ctx context.Context, key string, to domain.TieBreak, prefer []domain.TieBreak, fix *domain.EncodingFix) error {
	old := prefer[0]
	at := l.clock.Now()
	if l.stamp != nil {
		at = l.stamp.Now()
	}
	var cursor uint64
	for {
		flat, next, err := l.rdb.ZScan(ctx, key, cursor, "", fixChunk).Result()
		if err != nil {
			return store.OpError("boards.Leaderboards.rewriteKey", err)
		}
		var args []any
		for i := 0; i+1 < len(flat); i += 2 {
			fix.Scanned++
			score, err := strconv.ParseFloat(flat[i+1], 64)
			if err != nil || to.Fits(score, at) && (old == "" || old == to || old == domain.TieBreakNone || !old.Fits(score, at)) {
				continue
			}
			rewritten := false
			for _, from := range prefer {
				if from == "" || from == to {
					continue
				}
				if out, ok := domain.Reencode(score, from, to, at); ok {
					args = append(args, flat[i], flat[i+1], strconv.FormatFloat(out, 'g', 17, 64))
					rewritten = true
					break
				}
			}
			if !rewritten {
				fix.Left++
			}
		}
		if len(args) > 0 {
			res, err := rewriteScoresScript.Run(ctx, l.rdb, []string{key}, args...).Int64Slice()
			if err != nil {
				return store.OpWriteError("boards.Leaderboards.rewriteKey", err)
			}
			if len(res) == 2 {
				fix.Rewritten += res[0]
				fix.Changed += res[1]
			}
		}
		if cursor = next; cursor == 0 {
			return nil
		}
	}
}
