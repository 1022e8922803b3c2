package redisrepo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
)

// addPointsScript adds points to a player's score unless the result would leave the range of
// exactly representable integers, and returns the new score with the player's rank, so the
// answer describes the state right after this write even under concurrent writers.
// ZINCRBY alone cannot refuse an out-of-range result; reading first and writing after would
// race, hence one script.
//
// KEYS[1]  the board's ZSET
// ARGV[1]  player id
// ARGV[2]  points to add (integer, may be negative)
// ARGV[3]  the largest allowed |score| (domain.MaxSafeScore)
// Returns  {1, new score (string), 0-based rank from the top}
//
//	{0, current score (string)} when the result would leave ±ARGV[3]; nothing is written.
var addPointsScript = redis.NewScript(`
local current = redis.call('ZSCORE', KEYS[1], ARGV[1]) or '0'
local result = tonumber(current) + tonumber(ARGV[2])
local max = tonumber(ARGV[3])
if result > max or result < -max then
  return {0, current}
end
local score = redis.call('ZINCRBY', KEYS[1], ARGV[2], ARGV[1])
return {1, score, redis.call('ZREVRANK', KEYS[1], ARGV[1])}
`)

// Leaderboards is the Redis implementation of domain.LeaderboardService.
type Leaderboards struct {
	rdb  redis.UniversalClient
	keys Keys
}

var _ domain.LeaderboardService = (*Leaderboards)(nil)

// NewLeaderboards returns leaderboards kept in rdb under keys.
func NewLeaderboards(rdb redis.UniversalClient, keys Keys) *Leaderboards {
	return &Leaderboards{rdb: rdb, keys: keys}
}

func (l *Leaderboards) AddPoints(ctx context.Context, board, player string, points int64) (domain.Entry, error) {
	if err := validateBoardPlayer(board, player); err != nil {
		return domain.Entry{}, err
	}
	if points < -domain.MaxSafeScore || points > domain.MaxSafeScore {
		return domain.Entry{}, domain.Errorf(domain.EINVALID, "points must be a whole number from %d to %d", -domain.MaxSafeScore, domain.MaxSafeScore)
	}
	// The index is not part of the score's read-modify-write: SADD is idempotent, and a
	// separate command keeps the script on one key (valid on Redis Cluster).
	cmd, err := runPipelined(ctx, l.rdb, addPointsScript, []string{l.keys.Leaderboard(board)},
		[]any{player, points, int64(domain.MaxSafeScore)},
		func(pipe redis.Pipeliner) { pipe.SAdd(ctx, l.keys.BoardIndex(), board) })
	if err != nil {
		return domain.Entry{}, wrap(err)
	}
	res := cmd.Val()
	vals, ok := res.([]any)
	if !ok || len(vals) < 2 {
		return domain.Entry{}, fmt.Errorf("add points: unexpected reply %v", res)
	}
	switch vals[0] {
	case int64(1):
		if len(vals) != 3 {
			return domain.Entry{}, fmt.Errorf("add points: unexpected reply %v", res)
		}
		score, err := strconv.ParseFloat(fmt.Sprint(vals[1]), 64)
		rank, ok := vals[2].(int64)
		if err != nil || !ok {
			return domain.Entry{}, fmt.Errorf("add points: unexpected reply %v", res)
		}
		return domain.Entry{Rank: rank + 1, Player: player, Score: score}, nil
	default:
		return domain.Entry{}, domain.Errorf(domain.EINVALID,
			"%s has %v points; adding %d would leave the exact range of scores, %d to %d",
			player, vals[1], points, -domain.MaxSafeScore, domain.MaxSafeScore)
	}
}

func (l *Leaderboards) Top(ctx context.Context, board string, n int) (domain.BoardTop, error) {
	if err := domain.ValidateName("board", board); err != nil {
		return domain.BoardTop{}, err
	}
	if err := domain.ValidateTopN(n); err != nil {
		return domain.BoardTop{}, err
	}
	pipe := l.rdb.Pipeline()
	read := queueTop(ctx, pipe, l.keys, board, n)
	if _, err := pipe.Exec(ctx); err != nil {
		return domain.BoardTop{}, wrap(err)
	}
	return read(), nil
}

// queueTop queues the reads of a board's head on pipe and returns the function that decodes
// them once the pipeline ran.
func queueTop(ctx context.Context, pipe redis.Pipeliner, keys Keys, board string, n int) func() domain.BoardTop {
	key := keys.Leaderboard(board)
	rng := pipe.ZRevRangeWithScores(ctx, key, 0, int64(n-1))
	card := pipe.ZCard(ctx, key)
	return func() domain.BoardTop {
		top := domain.BoardTop{Board: board, Players: card.Val(), Entries: make([]domain.Entry, 0, n)}
		for i, z := range rng.Val() {
			top.Entries = append(top.Entries, domain.Entry{Rank: int64(i + 1), Player: z.Member.(string), Score: z.Score})
		}
		return top
	}
}

func (l *Leaderboards) Player(ctx context.Context, board, player string) (domain.Entry, error) {
	if err := validateBoardPlayer(board, player); err != nil {
		return domain.Entry{}, err
	}
	key := l.keys.Leaderboard(board)
	pipe := l.rdb.Pipeline()
	score := pipe.ZScore(ctx, key, player)
	rank := pipe.ZRevRank(ctx, key, player)
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return domain.Entry{}, wrap(err)
	}
	if errors.Is(score.Err(), redis.Nil) || errors.Is(rank.Err(), redis.Nil) {
		return domain.Entry{}, domain.Errorf(domain.ENOTFOUND, "player %q is not on board %q", player, board)
	}
	return domain.Entry{Rank: rank.Val() + 1, Player: player, Score: score.Val()}, nil
}

func (l *Leaderboards) Boards(ctx context.Context) ([]string, error) {
	names, err := l.rdb.SMembers(ctx, l.keys.BoardIndex()).Result()
	if err != nil {
		return nil, wrap(err)
	}
	slices.Sort(names)
	return names, nil
}

func validateBoardPlayer(board, player string) error {
	if err := domain.ValidateName("board", board); err != nil {
		return err
	}
	return domain.ValidateMember("player", player)
}
