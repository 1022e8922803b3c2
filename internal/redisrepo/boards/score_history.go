package boards

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// A player's score history (domain.ScoreHistoryOps): the scripts that change a score on a
// board's all-time ZSET append to the board's history stream (luaScoreHistory); this reads it.

var _ domain.ScoreHistoryOps = (*Leaderboards)(nil)

// withHistory adds the score history to a score script's keys and args (KEYS[2], and the
// actor and the cap as the last two ARGV: see luaScoreHistory); both as given when the
// history is off.
func (l *Leaderboards) withHistory(ctx context.Context, board string, keys []string, args []any) ([]string, []any) {
	if l.history <= 0 {
		return keys, args
	}
	return append(keys, l.keys.BoardHistory(board)), append(args, domain.ActorOf(ctx).Name, l.history)
}

// historyChunk is how many events one XREVRANGE of a page reads.
const historyChunk = 500

func (l *Leaderboards) PlayerHistory(ctx context.Context, board, player string, opt domain.HistoryOptions) (domain.ScoreHistory, error) {
	out := domain.ScoreHistory{Board: board, Player: player, Events: []domain.ScoreEvent{}}
	if err := validateBoardPlayer(board, player); err != nil {
		return out, err
	}
	if err := opt.Validate(); err != nil {
		return out, err
	}
	key, end, scanned := l.keys.BoardHistory(board), "+", 0
	if opt.Cursor != "" {
		end = "(" + opt.Cursor
	}
	for scanned < domain.MaxHistoryScan {
		msgs, err := l.rdb.XRevRangeN(ctx, key, end, "-", historyChunk).Result()
		if err != nil {
			return out, store.OpError("boards.Leaderboards.PlayerHistory", err)
		}
		for i, m := range msgs {
			scanned++
			if p, _ := m.Values["p"].(string); p == player || p == "" { // "": the whole board's (a reset)
				out.Events = append(out.Events, scoreEvent(m))
			}
			if len(out.Events) == opt.Limit || scanned == domain.MaxHistoryScan {
				if i < len(msgs)-1 || len(msgs) == historyChunk {
					out.Next = m.ID
				}
				return out, nil
			}
		}
		if len(msgs) < historyChunk {
			return out, nil
		}
		end = "(" + msgs[len(msgs)-1].ID
	}
	return out, nil
}

// scoreEvent reads one entry of a board's history (see store.Keys.BoardHistory).
func scoreEvent(m redis.XMessage) domain.ScoreEvent {
	str := func(f string) string { s, _ := m.Values[f].(string); return s }
	enc := domain.TieBreak(str("e"))
	points := func(f string) int64 {
		v, err := strconv.ParseFloat(str(f), 64)
		if err != nil {
			return 0
		}
		return enc.Points(v)
	}
	ms, _ := strconv.ParseInt(str("t"), 10, 64)
	e := domain.ScoreEvent{At: time.UnixMilli(ms).UTC(), Score: points("s"), Actor: str("a"), Action: str("k")}
	switch e.Action {
	case domain.ScoreRemoved:
		e.Points = -points("d")
	default:
		e.Points, _ = strconv.ParseInt(str("d"), 10, 64)
	}
	return e
}
