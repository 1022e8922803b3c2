package boards

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// MaxSeason bounds a season number asked for.
const MaxSeason = domain.MaxSeason

// endSeasonTries is how often EndSeason reads again after a concurrent end.
const endSeasonTries = 5

// errRewriting is endSeason's answer while the board's scores are being rewritten to another
// encoding: no season ends then (a scheduled end is tried again at the next round).
var errRewriting = errors.New("boards: the board's scores are being rewritten")

var _ domain.SeasonOps = (*Leaderboards)(nil)

func (l *Leaderboards) EndSeason(ctx context.Context, board string) (domain.Season, error) {
	if err := domain.ValidateNewBoardName(board); err != nil { // an end creates a season
		return domain.Season{}, err
	}
	set, err := l.boardSettings(ctx, board)
	if err != nil {
		return domain.Season{}, err
	}
	for range endSeasonTries {
		s, ended, err := l.endSeason(ctx, board, set, time.Time{})
		if errors.Is(err, errRewriting) {
			return domain.Season{}, domain.Errorf(domain.ECONFLICT, "board %q's scores are being rewritten to another encoding; end the season once the rewrite is done", board)
		}
		if err != nil || ended {
			return s, err
		}
	}
	return domain.Season{}, domain.Errorf(domain.ECONFLICT, "board %q's season was ended by someone else %d times while this end was tried; try again", board, endSeasonTries)
}

// endSeason runs endSeasonScript once for the season read now; due is the boundary of a
// scheduled end (zero: end now). ended is false when the season changed meanwhile or a
// scheduled end was not due.
func (l *Leaderboards) endSeason(ctx context.Context, board string, set domain.BoardSettings, due time.Time) (domain.Season, bool, error) {
	h, err := l.rdb.HGetAll(ctx, l.keys.Seasons(board)).Result()
	if err != nil {
		return domain.Season{}, false, store.OpError("boards.Leaderboards.endSeason", err)
	}
	cur := currentSeason(h)
	all := l.keys.Leaderboard(board)
	keys := []string{all, l.keys.Seasons(board), l.keys.SeasonBoard(board, cur), l.keys.ScoreRewrite(all)}
	args := []any{cur, l.stampArg(), string(set.TieBreak), "", string(set.Order())}
	if !due.IsZero() {
		args[3] = due.UnixMilli()
	}
	if set.KeepSeasons > 0 {
		for _, n := range endedSeasons(h) {
			if n <= cur-int64(set.KeepSeasons) {
				keys = append(keys, l.keys.SeasonBoard(board, n))
				args = append(args, n)
			}
		}
	}
	keys, args = l.withHistory(ctx, board, keys, args)
	res, err := endSeasonScript.Run(ctx, l.rdb, keys, args...).Slice()
	if err != nil {
		return domain.Season{}, false, store.OpWriteError("boards.Leaderboards.endSeason", err)
	}
	code, _ := res[0].(int64)
	switch {
	case code == 0 || code == 2:
		return domain.Season{}, false, nil
	case code == -2:
		return domain.Season{}, false, fmt.Errorf("boards.Leaderboards.endSeason: %s already exists; the seasons hash %s lost its count", keys[2], keys[1])
	case code == 3:
		return domain.Season{}, false, errRewriting
	case len(res) != 6:
		return domain.Season{}, false, fmt.Errorf("boards.Leaderboards.endSeason: unexpected reply %v", res)
	}
	s := domain.Season{Number: cur, TieBreak: domain.TieBreak(fmt.Sprint(res[5])), SortOrder: set.Order(), Key: keys[2], Winners: []domain.Entry{}}
	s.Started = msTime(fmt.Sprint(res[2]))
	if t := msTime(fmt.Sprint(res[3])); t != nil {
		s.Ended = *t
	}
	s.Players, _ = res[4].(int64)
	return s, true, nil
}

func (l *Leaderboards) stampArg() string {
	if l.stamp == nil {
		return ""
	}
	return strconv.FormatInt(l.stamp.Now().UnixMilli(), 10)
}

// currentSeason is the current season's number in a seasons hash (1 before any ended).
func currentSeason(h map[string]string) int64 {
	if n, err := strconv.ParseInt(h["current"], 10, 64); err == nil && n > 0 {
		return n
	}
	return 1
}

// endedSeasons are the numbers of the ended seasons a seasons hash keeps, newest first.
func endedSeasons(h map[string]string) []int64 {
	var out []int64
	for f := range h {
		if n, ok := strings.CutSuffix(f, ":ended"); ok {
			if v, err := strconv.ParseInt(n, 10, 64); err == nil {
				out = append(out, v)
			}
		}
	}
	slices.SortFunc(out, func(a, b int64) int { return int(b - a) })
	return out
}

// msTime reads epoch ms; nil for "" or anything else.
func msTime(s string) *time.Time {
	ms, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return nil
	}
	t := time.UnixMilli(ms).UTC()
	return &t
}

// seasonOf is ended season n as a seasons hash describes it.
func (l *Leaderboards) seasonOf(h map[string]string, board string, n int64) (domain.Season, bool) {
	p := strconv.FormatInt(n, 10) + ":"
	ended := msTime(h[p+"ended"])
	if ended == nil {
		return domain.Season{}, false
	}
	s := domain.Season{Number: n, Started: msTime(h[p+"started"]), Ended: *ended, TieBreak: domain.TieBreak(h[p+"ties"]),
		Key: l.keys.SeasonBoard(board, n), Winners: []domain.Entry{}}
	if !s.TieBreak.Valid() {
		s.TieBreak = domain.TieBreakNone
	}
	s.Players, _ = strconv.ParseInt(h[p+"players"], 10, 64)
	if o := domain.SortOrder(h[p+"order"]); o.Valid() {
		s.SortOrder = o
	} else {
		s.SortOrder = domain.SortDesc
	}
	return s, true
}

func (l *Leaderboards) Seasons(ctx context.Context, board string) (domain.SeasonList, error) {
	if err := domain.ValidateKeyName("board", board); err != nil {
		return domain.SeasonList{}, err
	}
	h, err := l.rdb.HGetAll(ctx, l.keys.Seasons(board)).Result()
	if err != nil {
		return domain.SeasonList{}, store.OpError("boards.Leaderboards.Seasons", err)
	}
	list := domain.SeasonList{Board: board, Current: currentSeason(h), CurrentStarted: msTime(h["started"]), Seasons: []domain.Season{}}
	list.Dropped, _ = strconv.ParseInt(h["dropped"], 10, 64)
	pipe := l.rdb.Pipeline()
	var winners []*redis.ZSliceCmd
	for _, n := range endedSeasons(h) {
		if s, ok := l.seasonOf(h, board, n); ok {
			list.Seasons = append(list.Seasons, s)
			winners = append(winners, RangeOf(ctx, pipe, s.Key, s.SortOrder, 0, domain.SeasonWinners-1))
		}
	}
	if len(winners) > 0 {
		if err := store.Exec(ctx, l.rdb, pipe); err != nil {
			return domain.SeasonList{}, store.OpError("boards.Leaderboards.Seasons", err)
		}
	}
	for i, w := range winners {
		for j, z := range w.Val() {
			list.Seasons[i].Winners = append(list.Seasons[i].Winners, domain.NewEntry(list.Seasons[i].TieBreak, int64(j+1), z.Member.(string), z.Score))
		}
	}
	return list, nil
}

// season reads ended season n of a board. Returns EINVALID, ENOTFOUND, EUNAVAILABLE.
func (l *Leaderboards) season(ctx context.Context, board string, n int64) (domain.Season, error) {
	if err := domain.ValidateKeyName("board", board); err != nil {
		return domain.Season{}, err
	}
	if n < 1 || n > MaxSeason {
		return domain.Season{}, domain.FieldErrorf("season", domain.EINVALID, "season must be a whole number from 1 to %d (got %d)", int64(MaxSeason), n)
	}
	p := strconv.FormatInt(n, 10) + ":"
	vals, err := l.rdb.HMGet(ctx, l.keys.Seasons(board), p+"started", p+"ended", p+"ties", p+"players", p+"order").Result()
	if err != nil {
		return domain.Season{}, store.OpError("boards.Leaderboards.season", err)
	}
	h := map[string]string{}
	for i, f := range []string{"started", "ended", "ties", "players", "order"} {
		if v, ok := vals[i].(string); ok {
			h[p+f] = v
		}
	}
	s, ok := l.seasonOf(h, board, n)
	if !ok {
		return domain.Season{}, domain.Errorf(domain.ENOTFOUND, "board %q has no ended season %d (ended seasons are numbered from 1; retention may have deleted it)", board, n)
	}
	return s, nil
}

func (l *Leaderboards) SeasonTop(ctx context.Context, board string, n int64, limit int) (domain.Season, []domain.Entry, error) {
	if err := domain.ValidateRange("n", limit, domain.MaxTopN); err != nil {
		return domain.Season{}, nil, err
	}
	s, err := l.season(ctx, board, n)
	if err != nil {
		return domain.Season{}, nil, err
	}
	zs, err := RangeOf(ctx, l.rdb, s.Key, s.SortOrder, 0, int64(limit-1)).Result()
	if err != nil {
		return domain.Season{}, nil, store.OpError("boards.Leaderboards.SeasonTop", err)
	}
	entries := make([]domain.Entry, 0, len(zs))
	for i, z := range zs {
		entries = append(entries, domain.NewEntry(s.TieBreak, int64(i+1), z.Member.(string), z.Score))
	}
	return s, entries, nil
}

func (l *Leaderboards) SeasonEntries(ctx context.Context, board string, n int64, after string, limit int) (domain.Page, error) {
	if err := domain.ValidateRange("limit", limit, domain.MaxPageLimit); err != nil {
		return domain.Page{}, err
	}
	s, err := l.season(ctx, board, n)
	if err != nil {
		return domain.Page{}, err
	}
	return PageOfKey(ctx, l.rdb, s.Key, s.Ranking(), after, limit)
}

func (l *Leaderboards) SeasonPlayer(ctx context.Context, board string, n int64, player string) (domain.Entry, error) {
	if err := domain.ValidateMember("player", player); err != nil {
		return domain.Entry{}, err
	}
	s, err := l.season(ctx, board, n)
	if err != nil {
		return domain.Entry{}, err
	}
	e, err := PlayerOfKey(ctx, l.rdb, s.Key, s.Ranking(), fmt.Sprintf("board %q's season %d", board, n), player)
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		return e, domain.Errorf(domain.ENOTFOUND, "player %q did not score in board %q's season %d", player, board, n)
	}
	return e, err
}

// seasonFields are the settings hash fields a patch of the season settings writes.
func seasonFields(p domain.BoardSettingsPatch, valid domain.BoardSettings) []any {
	var fields []any
	if p.KeepSeasons != nil {
		fields = append(fields, "keep_seasons", valid.KeepSeasons)
	}
	if p.SeasonEvery != nil {
		fields = append(fields, "season_every", string(valid.SeasonEvery))
	}
	if p.SeasonZone != nil {
		fields = append(fields, "season_zone", valid.SeasonZone)
	}
	return fields
}

// decodeSeasonFields reads the season settings of a settings hash into s.
func decodeSeasonFields(h map[string]string, s *domain.BoardSettings) {
	if n, err := strconv.Atoi(h["keep_seasons"]); err == nil {
		s.KeepSeasons = n
	}
	if p, err := domain.ParsePeriod(h["season_every"]); err == nil {
		s.SeasonEvery = p
	}
	s.SeasonZone = h["season_zone"]
}
