package boards

import (
	"context"
	"fmt"
	"strconv"
	"time"

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
	zs, err := RangeOf(ctx, l.rdb, l.keys.Leaderboard(board), set.Order(), 0, domain.EncodingSample-1).Result()
	if err != nil {
		return domain.EncodingReport{}, store.OpError("boards.Leaderboards.CheckEncoding", err)
	}
	entries := make([]domain.Entry, len(zs))
	for i, z := range zs {
		entries[i] = domain.NewEntry(set.TieBreak, int64(i+1), fmt.Sprint(z.Member), z.Score)
	}
	return domain.CheckScoresFor(board, set.TieBreak, set.Order(), entries, l.clock.Now()), nil
}

// rewriteLinger is how long a finished rewrite's marker keeps saying that every score of its
// key is in the new encoding: far longer than SettingsTTL, so an instance that read the
// settings before the fix writes the new encoding until its settings say so too.
const rewriteLinger = time.Minute

// FixEncoding saves encoding to and rewrites the scores of the all-time board and the current
// period boards into it. No write ever reads a score in another encoding than the one it was
// written in: each key is first marked (startRewriteScript) with the old and the new
// encoding, which every score script reads in the same step as the score; a write converts
// its own player and marks it done, each rewrite step converts and marks the players it read
// (compare-and-set), and the key's marker then says "done" for rewriteLinger. A fix that
// stopped half way (a crash) is finished by the next fix to the same encoding; a fix to
// another encoding meanwhile is refused (ECONFLICT).
func (l *Leaderboards) FixEncoding(ctx context.Context, board string, to domain.TieBreak) (domain.EncodingFix, error) {
	if err := domain.ValidateNewBoardName(board); err != nil {
		return domain.EncodingFix{}, err
	}
	if !to.Valid() {
		s := domain.BoardSettings{TieBreak: to}
		return domain.EncodingFix{}, s.Validate()
	}
	l.settings.Forget(board) // the settings as they are now, not as cached
	report, err := l.CheckEncoding(ctx, board)
	if err != nil {
		return domain.EncodingFix{}, err
	}
	set, err := l.boardSettings(ctx, board)
	if err != nil {
		return domain.EncodingFix{}, err
	}
	now := l.clock.Now()
	keys := []string{l.keys.Leaderboard(board)}
	for _, p := range set.Periods {
		keys = append(keys, l.keys.PeriodBoard(board, p, now))
	}
	// Every key marked first: from here on every write reads each score in the encoding it
	// is in, whatever settings it was given.
	froms := make([]domain.TieBreak, len(keys))
	for i, key := range keys {
		res, err := startRewriteScript.Run(ctx, l.rdb, []string{l.keys.ScoreRewrite(key)}, string(report.TieBreak), string(to)).Slice()
		if err != nil || len(res) != 2 {
			return domain.EncodingFix{}, store.OpWriteError("boards.Leaderboards.FixEncoding", err)
		}
		if ok, _ := res[0].(int64); ok != 1 {
			return domain.EncodingFix{}, domain.Errorf(domain.ECONFLICT, "board %q's scores are being rewritten to %v by another fix; fix the encoding to %v to finish that one first", board, res[1], res[1])
		}
		froms[i] = domain.TieBreak(fmt.Sprint(res[1]))
	}
	if _, err := l.patchSettings(ctx, board, domain.BoardSettingsPatch{TieBreak: &to}, false); err != nil {
		return domain.EncodingFix{}, err
	}
	fix := domain.EncodingFix{Board: board, TieBreak: to}
	for i, key := range keys {
		prefer := append([]domain.TieBreak{froms[i], report.Likely}, domain.TieBreaks...)
		if err := l.rewriteKey(ctx, key, to, set.Order(), prefer, &fix); err != nil {
			return fix, err
		}
		if err := finishRewriteScript.Run(ctx, l.rdb, []string{l.keys.ScoreRewrite(key)}, string(to), rewriteLinger.Milliseconds()).Err(); err != nil {
			return fix, store.OpWriteError("boards.Leaderboards.FixEncoding", err)
		}
	}
	return fix, nil
}

// rewriteTarget is the encoding a key's rewrite (running or just done) writes, if any.
func (l *Leaderboards) rewriteTarget(ctx context.Context, key string) (domain.TieBreak, bool) {
	to, err := l.rdb.HGet(ctx, l.keys.ScoreRewrite(key), "to").Result()
	if t := domain.TieBreak(to); err == nil && t.Valid() {
		return t, true
	}
	return "", false
}

// rewriteKey rewrites the scores of one sorted set that do not fit encoding to, and every
// score that fits the board's encoding before the fix (prefer[0]), a ZSCAN step (every member
// present throughout is seen at least once) and one script at a time; each member it reads is
// marked done in the key's running rewrite, rewritten or not, so writes read it in the new
// encoding from then on. A score of the old
// encoding is converted even when it also reads as one of to: from mid-2030 on, zpulse's wide
// scores also read as the main article's (a time within the last ten years), and such a
// score was written under the old setting, so it is the old encoding's (the check says the
// other writers' scores are those that do not fit the old encoding). Not from none: a whole
// number also reads as the second article's points × 10^10, and is left as it is.
func (l *Leaderboards) rewriteKey(ctx context.Context, key string, to domain.TieBreak, o domain.SortOrder, prefer []domain.TieBreak, fix *domain.EncodingFix) error {
	old := prefer[0]
	at := l.clock.Now()
	if l.stamp != nil {
		at = l.stamp.Now()
	}
	keys := []string{key, l.keys.ScoreRewrite(key)}
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
			if err != nil || to.FitsFor(o, score, at) && (old == "" || old == to || old == domain.TieBreakNone || !old.FitsFor(o, score, at)) {
				args = append(args, flat[i], flat[i+1], flat[i+1]) // in the new encoding already
				continue
			}
			rewritten := false
			for _, from := range prefer {
				if from == "" || from == to {
					continue
				}
				if out, ok := domain.ReencodeFor(o, score, from, to, at); ok {
					args = append(args, flat[i], flat[i+1], strconv.FormatFloat(out, 'g', 17, 64))
					rewritten = true
					break
				}
			}
			if !rewritten {
				fix.Left++
				args = append(args, flat[i], flat[i+1], flat[i+1]) // read in the new one from now on
			}
		}
		if len(args) > 0 {
			res, err := rewriteScoresScript.Run(ctx, l.rdb, keys, args...).Int64Slice()
			if err != nil {
				return store.OpWriteError("boards.Leaderboards.rewriteKey", err)
			}
			if len(res) == 1 {
				return domain.Errorf(domain.ECONFLICT, "the rewrite of %s was ended by another fix; check the board's encoding again", key)
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
