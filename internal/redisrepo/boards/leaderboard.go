package boards

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// Leaderboards is the Redis implementation of domain.LeaderboardService.
type Leaderboards struct {
	rdb      redis.UniversalClient
	keys     store.Keys
	clock    domain.Clock
	stamp    domain.Clock // tie-break time: nil is Redis TIME inside the add script
	settings *store.TTLCache[domain.BoardSettings]
	Found    *store.Discovery
	bookkept *store.SeenSet // boards indexed and unique keys given their expiry, by this process
	history  int64          // events kept in a board's score history (--score-history); 0: none
}

var _ domain.LeaderboardService = (*Leaderboards)(nil)

// uniqueTTL keeps a day's unique-player count for a day after the day ends.
const uniqueTTL = 24 * time.Hour

// boardAddsTTL keeps a minute's count of writes long enough for the history recorder, which
// reads it within seconds, to catch up after a handover.
const boardAddsTTL = 10 * time.Minute

// NewLeaderboards returns leaderboards kept in rdb under keys, listing the boards found, each
// keeping the last history changes zpulse made to its scores (0: none).
func NewLeaderboards(rdb redis.UniversalClient, keys store.Keys, found *store.Discovery, c store.Clocks, history int64) *Leaderboards {
	return &Leaderboards{history: history, rdb: rdb, keys: keys, clock: c.Local(), stamp: c.Script, Found: found, settings: store.NewTTLCache[domain.BoardSettings](SettingsTTL, c.Local()), bookkept: store.NewSeenSet()}
}

// AddPoints is a batch of one (AddPointsBatch): one way to add, checked and answered alike.
func (l *Leaderboards) AddPoints(ctx context.Context, board, player string, points int64) (domain.Entry, error) {
	res, err := l.AddPointsBatch(ctx, board, []domain.ScoreAdd{{Player: player, Points: points}})
	if err != nil {
		return domain.Entry{}, err
	}
	return res[0].Value, res[0].Err
}

// SetScore sets a player's points on the all-time board (period boards count adds only): one
// script, in one round trip with the bookkeeping (index of boards, unique players today).
func (l *Leaderboards) SetScore(ctx context.Context, board, player string, points int64) (domain.Entry, error) {
	if err := domain.ValidateNewBoardName(board); err != nil { // a write creates the board
		return domain.Entry{}, err
	}
	if err := domain.ValidateMember("player", player); err != nil {
		return domain.Entry{}, err
	}
	set, err := l.boardSettings(ctx, board)
	if err != nil {
		return domain.Entry{}, err
	}
	max := set.MaxPoints()
	if points < -max || points > max {
		return domain.Entry{}, domain.Errorf(domain.EINVALID, "points must be a whole number from %d to %d on %s", -max, max, set.TieBreak.Describe())
	}
	now := l.clock.Now()
	stamp := ""
	if l.stamp != nil {
		stamp = strconv.FormatInt(l.stamp.Now().UnixMilli(), 10)
	}
	pipe := l.rdb.Pipeline()
	key := l.keys.Leaderboard(board)
	keys, args := l.withHistory(ctx, board, []string{key, l.keys.ScoreRewrite(key)}, []any{player, points, max, string(set.TieBreak), stamp, string(set.Order())})
	res := setScript.Run(ctx, pipe, keys, args...)
	if err := l.send(ctx, pipe, board, now, 1, player); err != nil {
		return domain.Entry{}, store.OpWriteError("boards.Leaderboards.SetScore", err)
	}
	vals, _ := res.Val().([]any)
	if len(vals) == 2 && vals[0] == int64(-1) {
		ms, _ := vals[1].(int64)
		_, err := set.TieBreak.Encode(0, time.UnixMilli(ms))
		if err == nil {
			err = fmt.Errorf("boards.Leaderboards.SetScore: the script refused the time %d ms", ms)
		}
		return domain.Entry{}, err
	}
	if len(vals) == 2 && vals[0] == int64(0) { // outside the range of a rewrite's new encoding
		enc, _ := l.rewriteTarget(ctx, key)
		return domain.Entry{}, domain.Errorf(domain.EINVALID, "points must be a whole number from %d to %d on %s", -enc.MaxPoints(), enc.MaxPoints(), enc.Describe())
	}
	if len(vals) != 4 {
		return domain.Entry{}, fmt.Errorf("boards.Leaderboards.SetScore: unexpected reply %v", res.Val())
	}
	score, err := strconv.ParseFloat(fmt.Sprint(vals[1]), 64)
	rank, ok := vals[2].(int64)
	enc := domain.TieBreak(fmt.Sprint(vals[3]))
	if err != nil || !ok || !enc.Valid() {
		return domain.Entry{}, fmt.Errorf("boards.Leaderboards.SetScore: unexpected reply %v", res.Val())
	}
	return domain.NewEntry(enc, rank+1, player, score), nil
}

// scriptMode is addOne's mode for a board's operator (leaderboard_scripts.go).
func scriptMode(op domain.Operator) string {
	switch op {
	case domain.OperatorBest:
		return "best"
	case domain.OperatorSet:
		return "latest"
	}
	return "add"
}

// send runs a board write's pipeline of score scripts with the bookkeeping beside it. The
// bookkeeping is not part of any score's read-modify-write, and is sent only when it changes
// something: the PFADD of the players of each write, but the index's SADD and the unique
// key's EXPIREAT about once a minute per board and process (store.SeenSet), not per write. The
// history's count of writes is one HINCRBY by writes: a count lost with a failed write is
// history, not a score; its expiry goes with the bookkeeping (once a minute).
//
// When the index is due (this process's first write of the board in a minute), the scores
// go first and the bookkeeping follows once they succeeded, in a second round trip: a board
// whose key holds another type (the scripts' guard refuses it) is never indexed or counted.
// Otherwise both ride one round trip, and a refusal there (another service replaced the
// board within the minute) makes the next write the careful one.
func (l *Leaderboards) send(ctx context.Context, pipe redis.Pipeliner, board string, now time.Time, writes int64, players ...any) error {
	unique, adds := l.keys.BoardUnique(board, now), l.keys.BoardAdds(board, now)
	index, expire, addsExpire := l.bookkept.Due(board, now), l.bookkept.Due(unique, now), l.bookkept.Due(adds, now)
	if index {
		if err := store.Exec(ctx, l.rdb, pipe); err != nil {
			return err
		}
		pipe = l.rdb.Pipeline()
		pipe.SAdd(ctx, l.keys.BoardIndex(), board)
	}
	pipe.PFAdd(ctx, unique, players...)
	if expire {
		pipe.ExpireAt(ctx, unique, domain.Daily.End(now).Add(uniqueTTL))
	}
	pipe.HIncrBy(ctx, adds, strconv.Itoa(now.UTC().Second()), writes)
	if addsExpire {
		pipe.Expire(ctx, adds, boardAddsTTL)
	}
	if err := store.Exec(ctx, l.rdb, pipe); err != nil {
		if store.WrongType(err) != nil {
			l.bookkept.Forget(board)
		}
		return err
	}
	if index {
		l.bookkept.Done(board, now)
		l.Found.Add(store.KindBoard, board)
	}
	if expire {
		l.bookkept.Done(unique, now)
	}
	if addsExpire {
		l.bookkept.Done(adds, now)
	}
	return nil
}

func (l *Leaderboards) RemovePlayer(ctx context.Context, board, player string) error {
	if err := validateBoardPlayer(board, player); err != nil {
		return err
	}
	set, err := l.boardSettings(ctx, board)
	if err != nil {
		return err
	}
	now := l.clock.Now()
	pipe := l.rdb.Pipeline()
	keys, args := l.withHistory(ctx, board, []string{l.keys.Leaderboard(board)}, []any{player, string(set.TieBreak), l.stampArg()})
	removed := removeScript.Run(ctx, pipe, keys, args...)
	for _, p := range set.Periods {
		pipe.ZRem(ctx, l.keys.PeriodBoard(board, p, now), player)
	}
	if err := store.Exec(ctx, l.rdb, pipe); err != nil {
		return store.OpWriteError("boards.Leaderboards.RemovePlayer", err)
	}
	if n, _ := removed.Int64(); n == 0 {
		return domain.Errorf(domain.ENOTFOUND, "player %q is not on board %q", player, board)
	}
	return nil
}

// MaxTrimKeep bounds Trim's keep.
const MaxTrimKeep = 1_000_000_000

func (l *Leaderboards) Trim(ctx context.Context, board string, keep int64) (int64, error) {
	if err := domain.ValidateName("board", board); err != nil {
		return 0, err
	}
	if keep < 1 || keep > MaxTrimKeep {
		return 0, domain.Errorf(domain.EINVALID, "keep must be a whole number from 1 to %d (to empty a board, reset it)", MaxTrimKeep)
	}
	set, err := l.boardSettings(ctx, board)
	if err != nil {
		return 0, err
	}
	// ZREMRANGEBYRANK counts from the lowest score: removing ranks 0..-(keep+1) keeps the top
	// keep; on an ascending board the top is the lowest, so ranks keep..-1 go.
	start, stop := int64(0), -(keep + 1)
	if set.Order().Ascending() {
		start, stop = keep, -1
	}
	n, err := l.rdb.ZRemRangeByRank(ctx, l.keys.Leaderboard(board), start, stop).Result()
	return n, store.OpWriteError("boards.Leaderboards.Trim", err)
}

func (l *Leaderboards) Reset(ctx context.Context, board string) (int64, error) {
	if err := domain.ValidateName("board", board); err != nil {
		return 0, err
	}
	// A board whose key holds another type is another service's data: refused before
	// anything is deleted. Each board key (all-time and period) is deleted through
	// deleteSortedSetScript, so one replaced meanwhile, or a period key of another type, stays.
	all := l.keys.Leaderboard(board)
	typ, err := l.rdb.Type(ctx, all).Result()
	if err != nil {
		return 0, store.OpError("boards.Leaderboards.Reset", err)
	}
	if typ != "zset" && typ != "none" {
		return 0, domain.WrongTypeError(all, typ, "zset")
	}
	keys := l.keys.BoardKeys(board, l.clock.Now())
	pipe := l.rdb.Pipeline()
	deleted := make([]redis.Cmder, len(keys))
	for i, k := range keys { // one DEL per key: the keys may live in different cluster slots
		if k == all || strings.HasPrefix(k, all+":") {
			on, args := []string{k}, []any(nil)
			if k == all { // the all-time board's reset is in the score history
				on, args = l.withHistory(ctx, board, on, []any{l.stampArg()})
			}
			deleted[i] = deleteSortedSetScript.Run(ctx, pipe, on, args...)
		} else {
			deleted[i] = pipe.Del(ctx, k)
		}
	}
	// The encoding rewrites' markers of the keys a fix marks (all time, the current periods):
	// an emptied board has no scores in an old encoding, and a stopped fix's marker would
	// otherwise hold its seasons and encoding.
	now := l.clock.Now()
	pipe.Del(ctx, l.keys.ScoreRewrite(all))
	for _, p := range domain.Periods {
		pipe.Del(ctx, l.keys.ScoreRewrite(l.keys.PeriodBoard(board, p, now)))
	}
	pipe.SRem(ctx, l.keys.BoardIndex(), board)
	l.bookkept.Forget(board)
	l.bookkept.Forget(l.keys.BoardUnique(board, l.clock.Now()))
	if err := store.Exec(ctx, l.rdb, pipe); err != nil {
		return 0, store.OpWriteError("boards.Leaderboards.Reset", err)
	}
	l.Found.Forget(store.KindBoard, board)
	var n int64
	for _, d := range deleted {
		switch d := d.(type) {
		case *redis.IntCmd:
			n += d.Val()
		case *redis.Cmd:
			k, _ := d.Int64()
			n += k
		}
	}
	return n, nil
}

func (l *Leaderboards) Top(ctx context.Context, board string, period domain.Period, n int) (domain.BoardTop, error) {
	if err := domain.ValidateKeyName("board", board); err != nil {
		return domain.BoardTop{}, err
	}
	if err := domain.ValidateRange("n", n, domain.MaxTopN); err != nil {
		return domain.BoardTop{}, err
	}
	pipe := l.rdb.Pipeline()
	read := PlanTop(ctx, pipe, l.keys, board, period, n, l.clock.Now())
	if err := store.ExecTyped(ctx, l.rdb, pipe); err != nil {
		return domain.BoardTop{}, store.OpError("boards.Leaderboards.Top", err)
	}
	top := read()
	if top.WrongType != "" {
		return domain.BoardTop{}, domain.WrongTypeError(top.Key, top.WrongType, "zset")
	}
	return top, nil
}

// PlanTop adds the reads of a board's head on pipe and returns the function that decodes
// them once the pipeline ran (store.ExecTyped). The board's settings are read in the same round
// trip: the scores are decoded by the encoding they say. A key of another type than a sorted
// set gives a head with WrongType and nothing else.
func PlanTop(ctx context.Context, pipe redis.Pipeliner, keys store.Keys, board string, period domain.Period, n int, now time.Time) func() domain.BoardTop {
	key := keys.PeriodBoard(board, period, now)
	typ := pipe.Type(ctx, key)
	settings := pipe.HGetAll(ctx, keys.BoardSettings(board))
	// The order is the settings' (read in this round trip): the head is read both ways and
	// the one of the board's order kept, so one round trip still reads it.
	rng := pipe.ZRevRangeWithScores(ctx, key, 0, int64(n-1))
	low := pipe.ZRangeWithScores(ctx, key, 0, int64(n-1))
	card := pipe.ZCard(ctx, key)
	unique := pipe.PFCount(ctx, keys.BoardUnique(board, now))
	failure := pipe.HMGet(ctx, keys.SeasonRolloverFailures(), board)
	return func() domain.BoardTop {
		var failed string // none: nil, or a key of another type
		if v := failure.Val(); len(v) == 1 {
			failed, _ = v[0].(string)
		}
		if t := typ.Val(); t != "zset" && t != "none" && t != "" {
			return domain.BoardTop{Board: board, Period: period, Key: key, WrongType: t, Entries: []domain.Entry{}, RolloverFailure: failed}
		}
		set := decodeSettings(settings.Val())
		enc, zs := set.TieBreak, rng.Val()
		if set.Order().Ascending() {
			zs = low.Val()
		}
		top := domain.BoardTop{Board: board, Period: period, Key: key, Players: card.Val(), SortOrder: set.Order(), Operator: set.Op(),
			UniqueToday: unique.Val(), Entries: make([]domain.Entry, 0, len(zs)), RolloverFailure: failed}
		for i, z := range zs {
			top.Entries = append(top.Entries, domain.NewEntry(enc, int64(i+1), z.Member.(string), z.Score))
		}
		return top
	}
}

func (l *Leaderboards) Player(ctx context.Context, board string, period domain.Period, player string) (domain.Entry, error) {
	if err := validateBoardPlayer(board, player); err != nil {
		return domain.Entry{}, err
	}
	set, err := l.boardSettings(ctx, board)
	if err != nil {
		return domain.Entry{}, err
	}
	return PlayerOfKey(ctx, l.rdb, l.keys.PeriodBoard(board, period, l.clock.Now()), set.Ranking(), fmt.Sprintf("board %q", board), player)
}

func (l *Leaderboards) Around(ctx context.Context, board string, period domain.Period, player string, n int) ([]domain.Entry, error) {
	if err := validateBoardPlayer(board, player); err != nil {
		return nil, err
	}
	if err := domain.ValidateRange("n", n, domain.MaxAround); err != nil {
		return nil, err
	}
	set, err := l.boardSettings(ctx, board)
	if err != nil {
		return nil, err
	}
	return AroundOfKey(ctx, l.rdb, l.keys.PeriodBoard(board, period, l.clock.Now()), set.Ranking(), fmt.Sprintf("board %q", board), player, n)
}

// rankedEntries decodes a script's {first rank, {member, score, ...}} reply on a board with
// encoding t.
func rankedEntries(t domain.Scores, res any) ([]domain.Entry, error) {
	vals, ok := res.([]any)
	if !ok || len(vals) != 2 {
		return nil, fmt.Errorf("boards.rankedEntries: unexpected reply %v", res)
	}
	first, _ := vals[0].(int64)
	flat, _ := vals[1].([]any)
	entries := make([]domain.Entry, 0, len(flat)/2)
	for i := 0; i+1 < len(flat); i += 2 {
		score, err := strconv.ParseFloat(fmt.Sprint(flat[i+1]), 64)
		if err != nil {
			return nil, fmt.Errorf("boards.rankedEntries: unexpected score %v", flat[i+1])
		}
		entries = append(entries, domain.NewEntry(t, first+int64(i/2)+1, fmt.Sprint(flat[i]), score))
	}
	return entries, nil
}

func (l *Leaderboards) Boards(ctx context.Context) ([]string, error) {
	return l.Found.NamesWarm(ctx, store.KindBoard)
}

func (l *Leaderboards) Summaries(ctx context.Context) ([]domain.BoardSummary, error) {
	names, err := l.Found.NamesWarm(ctx, store.KindBoard)
	if err != nil {
		return nil, err
	}
	pipe := l.rdb.Pipeline()
	read := PlanSummaries(ctx, pipe, l.keys, names, l.clock.Now())
	if len(names) > 0 {
		if err := store.ExecTyped(ctx, l.rdb, pipe); err != nil {
			return nil, store.OpError("boards.Leaderboards.Summaries", err)
		}
	}
	return read(), nil
}

func validateBoardPlayer(board, player string) error {
	if err := domain.ValidateName("board", board); err != nil {
		return err
	}
	return domain.ValidateMember("player", player)
}

// SummaryTopN is how many leaders the boards list shows per board.
const SummaryTopN = 3

// PlanSummaries adds the reads of the boards list to pipe: each board's player count
// and leaders. The boards topic and LeaderboardService.Summaries both use it.
func PlanSummaries(ctx context.Context, pipe redis.Pipeliner, keys store.Keys, boards []string, now time.Time) func() []domain.BoardSummary {
	reads := make([]func() domain.BoardTop, len(boards))
	for i, b := range boards {
		reads[i] = PlanTop(ctx, pipe, keys, b, domain.AllTime, SummaryTopN, now)
	}
	return func() []domain.BoardSummary {
		out := make([]domain.BoardSummary, len(reads))
		for i, read := range reads {
			top := read()
			out[i] = domain.BoardSummary{Board: top.Board, Players: top.Players, Top: top.Entries, WrongType: top.WrongType, RolloverFailure: top.RolloverFailure}
		}
		return out
	}
}
