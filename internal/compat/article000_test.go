package compat

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/redis/go-redis/v9"
)

// PlayerScore is the main article's record PlayerScore(player, score).
type PlayerScore struct {
	Player string
	Score  float64
}

// Leaderboard is the main article's LeaderboardService (section 3), on any key (the article
// uses leaderboard:game:2048).
type Leaderboard struct {
	RDB redis.UniversalClient
	Key string
}

// AddPoints is incrementScore: ZINCRBY.
func (l Leaderboard) AddPoints(ctx context.Context, player string, points float64) (float64, error) {
	return l.RDB.ZIncrBy(ctx, l.Key, points, player).Result()
}

// Top is reverseRangeWithScores(KEY, 0, n-1).
func (l Leaderboard) Top(ctx context.Context, n int) ([]PlayerScore, error) {
	zs, err := l.RDB.ZRevRangeWithScores(ctx, l.Key, 0, int64(n-1)).Result()
	out := make([]PlayerScore, 0, len(zs))
	for _, z := range zs {
		out = append(out, PlayerScore{Player: z.Member.(string), Score: z.Score})
	}
	return out, err
}

// RankOf is reverseRank + 1; ok false when the player is not on the board.
func (l Leaderboard) RankOf(ctx context.Context, player string) (rank int64, ok bool, err error) {
	r, err := l.RDB.ZRevRank(ctx, l.Key, player).Result()
	if errors.Is(err, redis.Nil) {
		return 0, false, nil
	}
	return r + 1, err == nil, err
}

// AddPointsWithTieBreak is section 3.1, as written: score = points + (1.0 − now/1e13), set
// with ZADD; nowMs is System.currentTimeMillis().
func (l Leaderboard) AddPointsWithTieBreak(ctx context.Context, player string, points int64, nowMs int64) (float64, error) {
	tieBreak := 1.0 - (float64(nowMs) / 1e13)
	score := float64(points) + tieBreak
	return score, l.RDB.ZAdd(ctx, l.Key, redis.Z{Score: score, Member: player}).Err()
}

// RealPoints is the article's display: Math.floor(score).
func RealPoints(score float64) int64 { return int64(math.Floor(score)) }

// JobQueue is the main article's priority queue (section 4.1), on queue:<name>.
type JobQueue struct {
	RDB redis.UniversalClient
	Key string
}

// Enqueue adds jobId with score priority*1e13 + nowMs; priority must be 0..9.
func (q JobQueue) Enqueue(ctx context.Context, jobID string, priority int, nowMs int64) error {
	if priority < 0 || priority > 9 {
		return fmt.Errorf("a prioridade deve ser 0..9")
	}
	score := float64(priority)*1e13 + float64(nowMs)
	return q.RDB.ZAdd(ctx, q.Key, redis.Z{Score: score, Member: jobID}).Err()
}

// Poll is popMin: ZPOPMIN; ok false when empty.
func (q JobQueue) Poll(ctx context.Context) (string, bool, error) {
	zs, err := q.RDB.ZPopMin(ctx, q.Key).Result()
	if err != nil || len(zs) == 0 {
		return "", false, err
	}
	return zs[0].Member.(string), true, nil
}

// Take is popMin(key, timeout): BZPOPMIN.
func (q JobQueue) Take(ctx context.Context, timeout time.Duration) (string, bool, error) {
	z, err := q.RDB.BZPopMin(ctx, timeout, q.Key).Result()
	if errors.Is(err, redis.Nil) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return z.Member.(string), true, nil
}

// popDue is the article's POP_DUE script (section 4.2), character for character.
var popDue = redis.NewScript(`
local jobs = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 1)
if #jobs == 0 then return false end
redis.call('ZREM', KEYS[1], jobs[1])
return jobs[1]
`)

// DelayedJobQueue is the main article's delayed queue (section 4.2), on queue:delayed.
type DelayedJobQueue struct {
	RDB redis.UniversalClient
	Key string
}

// Schedule adds jobId at score runAt (epoch ms).
func (q DelayedJobQueue) Schedule(ctx context.Context, jobID string, runAt time.Time) error {
	return q.RDB.ZAdd(ctx, q.Key, redis.Z{Score: float64(runAt.UnixMilli()), Member: jobID}).Err()
}

// PollDue runs POP_DUE with now; ok false when nothing is due.
func (q DelayedJobQueue) PollDue(ctx context.Context, now time.Time) (string, bool, error) {
	id, err := popDue.Run(ctx, q.RDB, []string{q.Key}, now.UnixMilli()).Text()
	if errors.Is(err, redis.Nil) {
		return "", false, nil
	}
	return id, err == nil, err
}

// SlidingWindowRateLimiter is section 5, on rate:<customerId>.
type SlidingWindowRateLimiter struct {
	RDB redis.UniversalClient
	Now func() int64 // the injected Clock's millis()
	ID  func() string
}

// TryAcquire is tryAcquire(customerId, limit, window).
func (l SlidingWindowRateLimiter) TryAcquire(ctx context.Context, customerID string, limit int, window time.Duration) (bool, error) {
	n, err := SlidingWindow.Run(ctx, l.RDB, []string{"rate:" + customerID}, l.Now(), window.Milliseconds(), limit, l.ID()).Int64()
	return n == 1, err
}
