package boards

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// batchChunk is how many players one addBatchScript call takes: a batch of 1,000 runs as 10
// scripts in one round trip, so Redis serves other clients between them.
const batchChunk = 100

// AddPointsBatch adds points for up to domain.MaxBatchScores players on one board (and its
// period boards) in one round trip. Each player's add is atomic and checked as AddPoints's
// (a refused or invalid one changes nothing and the others go on); each gets its own answer,
// its rank read once the batch is applied.
func (l *Leaderboards) AddPointsBatch(ctx context.Context, board string, adds []domain.ScoreAdd) ([]domain.Result[domain.Entry], error) {
	if err := domain.ValidateNewBoardName(board); err != nil {
		return nil, err
	}
	if err := domain.ValidateBatch("scores", len(adds), domain.MaxBatchScores); err != nil {
		return nil, err
	}
	set, err := l.boardSettings(ctx, board)
	if err != nil {
		return nil, err
	}
	max := set.MaxPoints()
	out := make([]domain.Result[domain.Entry], len(adds))
	var valid []int // indexes of the adds sent
	for i, a := range adds {
		if err := domain.ValidateMember("player", a.Player); err != nil {
			out[i].Err = err
		} else if a.Points < -max || a.Points > max {
			out[i].Err = domain.Errorf(domain.EINVALID, "points must be a whole number from %d to %d on %s", -max, max, set.TieBreak.Describe())
		} else {
			valid = append(valid, i)
		}
	}
	if len(valid) == 0 {
		return out, nil
	}
	now := l.clock.Now()
	stamp := ""
	if l.stamp != nil {
		stamp = strconv.FormatInt(l.stamp.Now().UnixMilli(), 10)
	}
	pipe := l.rdb.Pipeline()
	type chunk struct {
		items []int // indexes into adds
		cmd   *redis.Cmd
		board int // 0: all-time, i: set.Periods[i-1]
	}
	var chunks []chunk
	run := func(key, expireAt string, which int) {
		for start := 0; start < len(valid); start += batchChunk {
			items := valid[start:min(start+batchChunk, len(valid))]
			args := make([]any, 0, 4+2*len(items))
			args = append(args, max, string(set.TieBreak), expireAt, stamp, string(set.Order()), scriptMode(set.Op()))
			for _, i := range items {
				args = append(args, adds[i].Player, adds[i].Points)
			}
			keys := []string{key, l.keys.ScoreRewrite(key)}
			if which == 0 { // the all-time board's adds are the score history's
				keys, args = l.withHistory(ctx, board, keys, args)
			}
			chunks = append(chunks, chunk{items: items, cmd: addBatchScript.Run(ctx, pipe, keys, args...), board: which})
		}
	}
	run(l.keys.Leaderboard(board), "", 0)
	for i, p := range set.Periods {
		run(l.keys.PeriodBoard(board, p, now), strconv.FormatInt(p.End(now).Add(set.Retention()).UnixMilli(), 10), i+1)
	}
	players := make([]any, len(valid))
	for j, i := range valid {
		players[j] = adds[i].Player
	}
	if err := l.send(ctx, pipe, board, now, int64(len(valid)), players...); err != nil {
		return nil, store.OpWriteError("boards.Leaderboards.AddPointsBatch", err)
	}
	for _, c := range chunks {
		vals, _ := c.cmd.Val().([]any)
		if len(vals) != 3*len(c.items)+1 {
			return nil, fmt.Errorf("boards.Leaderboards.AddPointsBatch: unexpected reply %v", c.cmd.Val())
		}
		// The encoding the scores were written in: the settings', or an encoding rewrite's.
		enc := domain.TieBreak(fmt.Sprint(vals[len(vals)-1]))
		if !enc.Valid() {
			enc = set.TieBreak
		}
		for j, i := range c.items {
			ok, _ := vals[3*j].(int64)
			if ok == -1 {
				ms, _ := vals[3*j+1].(int64)
				_, err := set.TieBreak.Encode(0, time.UnixMilli(ms))
				if err == nil {
					err = fmt.Errorf("boards.Leaderboards.AddPointsBatch: the script refused the time %d ms", ms)
				}
				out[i].Err = err
				continue
			}
			if ok == 0 {
				if out[i].Err == nil {
					where := "the all-time board"
					if c.board > 0 {
						where = "the " + string(set.Periods[c.board-1]) + " board (the boards before it were written)"
					}
					max := min(max, enc.MaxPoints())
					out[i].Err = domain.Errorf(domain.EINVALID, "%s has %v points on %s; that change would leave %d to %d, the exact range of %s",
						adds[i].Player, vals[3*j+1], where, -max, max, enc.Describe())
				}
				continue
			}
			if c.board > 0 {
				continue // the answer is the all-time board's
			}
			score, err := strconv.ParseFloat(fmt.Sprint(vals[3*j+1]), 64)
			rank, rok := vals[3*j+2].(int64)
			if err != nil || !rok {
				return nil, fmt.Errorf("boards.Leaderboards.AddPointsBatch: unexpected reply %v", c.cmd.Val())
			}
			out[i].Value = domain.NewEntry(enc, rank+1, adds[i].Player, score)
		}
	}
	return out, nil
}
