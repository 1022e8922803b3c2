package boards

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// SettingsTTL is how long an instance uses board settings it read before reading them again:
// a change made through another instance applies here within this time. (A write with stale
// settings still keeps points exact: a plain ZINCRBY on a tie-break score keeps its integer
// part right; only the time stamp or a period board may lag for that long.)
const SettingsTTL = time.Second

// boardSettings returns a board's settings, read at most settingsTTL ago.
func (l *Leaderboards) boardSettings(ctx context.Context, board string) (domain.BoardSettings, error) {
	return l.settings.Get(ctx, board, func(ctx context.Context) (domain.BoardSettings, error) {
		h, err := l.rdb.HGetAll(ctx, l.keys.BoardSettings(board)).Result()
		if err == nil && len(h) == 0 {
			h, err = l.carryOverSettings(ctx, board)
		}
		if err != nil {
			return domain.BoardSettings{}, store.OpError("boards.Leaderboards.boardSettings", err)
		}
		return decodeSettings(h), nil
	})
}

// carryOverSettings moves settings saved under the layout before the braces to their key now,
// so an upgrade keeps every board's tie-break, periods and retention. The two keys may be on
// different Cluster slots, so it is no one atomic step, but it is safe to repeat and never
// overwrites: HSETNX keeps a field a newer write already set, and the old key goes only after
// the copy. It returns the settings as they are now.
func (l *Leaderboards) carryOverSettings(ctx context.Context, board string) (map[string]string, error) {
	legacy := l.keys.LegacyBoardSettings(board)
	old, err := l.rdb.HGetAll(ctx, legacy).Result()
	if err != nil || len(old) == 0 {
		return old, err
	}
	key := l.keys.BoardSettings(board)
	pipe := l.rdb.Pipeline()
	for field, value := range old {
		pipe.HSetNX(ctx, key, field, value)
	}
	saved := pipe.HGetAll(ctx, key)
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, err
	}
	if err := l.rdb.Del(ctx, legacy).Err(); err != nil {
		return nil, err
	}
	return saved.Val(), nil
}

func (l *Leaderboards) Settings(ctx context.Context, board string) (domain.BoardSettings, error) {
	if err := domain.ValidateKeyName("board", board); err != nil {
		return domain.BoardSettings{}, err
	}
	return l.boardSettings(ctx, board)
}

func (l *Leaderboards) UpdateSettings(ctx context.Context, board string, s domain.BoardSettings) (domain.BoardSettings, error) {
	return l.PatchSettings(ctx, board, domain.BoardSettingsPatch{TieBreak: &s.TieBreak, Periods: &s.Periods, RetentionDays: &s.RetentionDays})
}

// PatchSettings writes only the fields the patch gives (HSET of those fields merges them into
// the HASH in one command) and reads the result in the same transaction, on the one key. An
// encoding saved without a fix settles the board keys' rewrite markers first (settleRewrites).
func (l *Leaderboards) PatchSettings(ctx context.Context, board string, p domain.BoardSettingsPatch) (domain.BoardSettings, error) {
	return l.patchSettings(ctx, board, p, true)
}

// patchSettings is PatchSettings; settle is false for FixEncoding's own save, made under its
// running rewrite.
func (l *Leaderboards) patchSettings(ctx context.Context, board string, p domain.BoardSettingsPatch, settle bool) (domain.BoardSettings, error) {
	if err := domain.ValidateNewBoardName(board); err != nil { // saving settings creates the board
		return domain.BoardSettings{}, err
	}
	// The fields are independent: a patch is valid when it is valid over the defaults.
	valid := p.Apply(domain.DefaultBoardSettings())
	if err := valid.Validate(); err != nil {
		return domain.BoardSettings{}, err
	}
	if settle && p.TieBreak != nil {
		if err := l.settleRewrites(ctx, board, valid.TieBreak); err != nil {
			return domain.BoardSettings{}, err
		}
	}
	var fields []any
	if p.TieBreak != nil {
		fields = append(fields, tieBreakField, string(valid.TieBreak))
	}
	if p.Periods != nil {
		periods := make([]string, len(valid.Periods))
		for i, period := range valid.Periods {
			periods[i] = string(period)
		}
		fields = append(fields, "periods", strings.Join(periods, ","))
	}
	if p.RetentionDays != nil {
		fields = append(fields, "retention_days", valid.RetentionDays)
	}
	fields = append(fields, seasonFields(p, valid)...)
	if p.SortOrder != nil {
		fields = append(fields, sortOrderField, string(valid.SortOrder))
	}
	if p.Operator != nil {
		fields = append(fields, operatorField, string(valid.Operator))
	}
	key := l.keys.BoardSettings(board)
	pipe := l.rdb.TxPipeline()
	if len(fields) > 0 {
		pipe.HSet(ctx, key, fields...)
	}
	if p.TieBreak != nil {
		pipe.HDel(ctx, key, legacyTieBreakField) // the new field now says it; see decodeSettings
	}
	saved := pipe.HGetAll(ctx, key)
	if _, err := pipe.Exec(ctx); err != nil {
		return domain.BoardSettings{}, store.OpWriteError("boards.Leaderboards.patchSettings", err)
	}
	s := decodeSettings(saved.Val())
	l.settings.Put(board, s)
	if s.SeasonEvery != domain.AllTime {
		// A schedule counts from now for a board whose season start was never recorded.
		if err := l.rdb.HSetNX(ctx, l.keys.Seasons(board), "started", l.clock.Now().UnixMilli()).Err(); err != nil {
			return s, store.OpWriteError("boards.Leaderboards.patchSettings", err)
		}
	}
	return s, nil
}

// The settings HASH holds the encoding in tieBreakField. Boards saved before the encodings
// were named hold legacyTieBreakField instead, whose "first_reached" meant zpulse's wide
// encoding (points + (2^30 − 1 − s)/2^30): their scores were written with it, so such a board
// reads as first_reached_wide, and keeps writing it, until an admin picks another encoding
// (a save writes tieBreakField and removes the legacy field in the same transaction). The
// meaning of "first_reached" therefore changed without rewriting a single score.
const (
	sortOrderField      = "order"    // a domain.SortOrder; missing: desc
	operatorField       = "operator" // a domain.Operator; missing: incr
	tieBreakField       = "ties"
	legacyTieBreakField = "tie_break"
)

// decodeSettings reads the settings HASH; missing or damaged fields take their defaults, so a
// hand-edited hash never stops a board from working.
func decodeSettings(h map[string]string) domain.BoardSettings {
	s := domain.DefaultBoardSettings()
	if t := domain.TieBreak(h[tieBreakField]); t.Valid() {
		s.TieBreak = t
	} else if h[legacyTieBreakField] == "first_reached" {
		s.TieBreak = domain.TieBreakFirstReachedWide
	}
	for _, name := range strings.Split(h["periods"], ",") {
		if p, err := domain.ParsePeriod(name); err == nil && p != domain.AllTime && !s.Keeps(p) {
			s.Periods = append(s.Periods, p)
		}
	}
	if d, err := strconv.Atoi(h["retention_days"]); err == nil {
		s.RetentionDays = d
	}
	decodeSeasonFields(h, &s)
	if o := domain.SortOrder(h[sortOrderField]); o.Valid() {
		s.SortOrder = o
	}
	if op := domain.Operator(h[operatorField]); op.Valid() {
		s.Operator = op
	}
	if s.Validate() != nil {
		s.RetentionDays = domain.DefaultRetentionDays
		if s.Validate() != nil {
			s.KeepSeasons, s.SeasonEvery, s.SeasonZone = 0, domain.AllTime, ""
		}
		_ = s.Validate()
	}
	return s
}

// settleRewrites lets an encoding be saved without a fix: a board key whose scores are being
// rewritten to another encoding refuses it (ECONFLICT), and a finished rewrite's marker that
// names another encoding goes, so the writes follow the saved setting rather than the marker.
func (l *Leaderboards) settleRewrites(ctx context.Context, board string, to domain.TieBreak) error {
	now := l.clock.Now()
	keys := []string{l.keys.Leaderboard(board)}
	for _, p := range domain.Periods {
		keys = append(keys, l.keys.PeriodBoard(board, p, now))
	}
	pipe := l.rdb.Pipeline()
	res := make([]*redis.Cmd, len(keys))
	for i, key := range keys {
		res[i] = settleRewriteScript.Run(ctx, pipe, []string{l.keys.ScoreRewrite(key)}, string(to))
	}
	if err := store.Exec(ctx, l.rdb, pipe); err != nil {
		return store.OpWriteError("boards.Leaderboards.settleRewrites", err)
	}
	for _, r := range res {
		if running, _ := r.Text(); running != "" {
			return domain.Errorf(domain.ECONFLICT, "board %q's scores are being rewritten to %s; fix the encoding to %s to finish that rewrite, then save another", board, running, running)
		}
	}
	return nil
}
