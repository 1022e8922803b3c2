package boards

import (
	"context"
	"errors"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// RangeOf reads ranks start..stop (0-based from the top) of a board in order o: ZREVRANGE,
// or ZRANGE on an ascending board. Every read of a board's head goes through it.
func RangeOf(ctx context.Context, pipe redis.Cmdable, key string, o domain.SortOrder, start, stop int64) *redis.ZSliceCmd {
	if o.Ascending() {
		return pipe.ZRangeWithScores(ctx, key, start, stop)
	}
	return pipe.ZRevRangeWithScores(ctx, key, start, stop)
}

// The reads of a board's sorted set by its key, for boards zpulse does not name: another
// service's (an adopted board source, read in its own layout and encoding). They are the
// reads of zpulse's own boards: the same keyset page script and cursor, the same rank and
// around reads.

// PageOfKey is the page of the sorted set at key after cursor ("" for the first), read and
// paged as Leaderboards.Entries pages a board: ties included, each member once.
func PageOfKey(ctx context.Context, rdb redis.UniversalClient, key string, scores domain.Scores, after string, limit int) (domain.Page, error) {
	if err := domain.ValidateRange("limit", limit, domain.MaxPageLimit); err != nil {
		return domain.Page{}, err
	}
	var c cursor
	if after != "" {
		var err error
		if c, err = decodeCursor(after); err != nil {
			return domain.Page{}, err
		}
	}
	pipe := rdb.Pipeline()
	res := pageScript.Run(ctx, pipe, []string{key}, c.Score, c.Member, limit+1, string(domain.OrderOf(scores)))
	total := pipe.ZCard(ctx, key)
	if err := store.Exec(ctx, rdb, pipe); err != nil {
		return domain.Page{}, store.OpError("boards.PageOfKey", err)
	}
	return entriesPage(scores, res.Val(), total.Val(), limit)
}

// PageAtOfKey is the page of the sorted set at key that starts at rank (1 is the top), as
// Leaderboards.EntriesAt reads a board: a jump to a rank, or a previous page. Its NextCursor
// continues as PageOfKey's does.
func PageAtOfKey(ctx context.Context, rdb redis.UniversalClient, key string, scores domain.Scores, rank int64, limit int) (domain.Page, error) {
	if err := domain.ValidateRange("limit", limit, domain.MaxPageLimit); err != nil {
		return domain.Page{}, err
	}
	if err := validateRank(rank); err != nil {
		return domain.Page{}, err
	}
	pipe := rdb.Pipeline()
	res := RangeOf(ctx, pipe, key, domain.OrderOf(scores), rank-1, rank-1+int64(limit))
	total := pipe.ZCard(ctx, key)
	if err := store.Exec(ctx, rdb, pipe); err != nil {
		return domain.Page{}, store.OpError("boards.PageAtOfKey", err)
	}
	flat := make([]any, 0, 2*len(res.Val()))
	for _, z := range res.Val() {
		flat = append(flat, z.Member, strconv.FormatFloat(z.Score, 'g', -1, 64))
	}
	return entriesPage(scores, []any{rank - 1, flat}, total.Val(), limit)
}

// validateRank checks a rank asked for: 1 to domain.MaxRank.
func validateRank(rank int64) error {
	if rank < 1 || rank > domain.MaxRank {
		return domain.Errorf(domain.EINVALID, "rank must be a whole number from 1 to %d (got %d)", int64(domain.MaxRank), rank)
	}
	return nil
}

// PlayerOfKey is a member's rank and score on the sorted set at key, read at one moment.
// what names the board for the ENOTFOUND message (`source "daily"`).
func PlayerOfKey(ctx context.Context, rdb redis.UniversalClient, key string, scores domain.Scores, what, player string) (domain.Entry, error) {
	if err := domain.ValidateMember("player", player); err != nil {
		return domain.Entry{}, err
	}
	var score *redis.FloatCmd
	var rank *redis.IntCmd
	// MULTI/EXEC: the score and the rank describe the same moment, in one round trip.
	_, err := rdb.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
		score = pipe.ZScore(ctx, key, player)
		if domain.OrderOf(scores).Ascending() {
			rank = pipe.ZRank(ctx, key, player)
		} else {
			rank = pipe.ZRevRank(ctx, key, player)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return domain.Entry{}, store.OpError("boards.PlayerOfKey", err)
	}
	if errors.Is(score.Err(), redis.Nil) || errors.Is(rank.Err(), redis.Nil) {
		return domain.Entry{}, domain.Errorf(domain.ENOTFOUND, "player %q is not on %s", player, what)
	}
	return domain.NewEntry(scores, rank.Val()+1, player, score.Val()), nil
}

// AroundOfKey is the n members above and below player on the sorted set at key (what as for
// PlayerOfKey).
func AroundOfKey(ctx context.Context, rdb redis.UniversalClient, key string, scores domain.Scores, what, player string, n int) ([]domain.Entry, error) {
	if err := domain.ValidateMember("player", player); err != nil {
		return nil, err
	}
	if err := domain.ValidateRange("n", n, domain.MaxAround); err != nil {
		return nil, err
	}
	res, err := aroundScript.Run(ctx, rdb, []string{key}, player, n, string(domain.OrderOf(scores))).Result()
	if errors.Is(err, redis.Nil) {
		return nil, domain.Errorf(domain.ENOTFOUND, "player %q is not on %s", player, what)
	}
	if err != nil {
		return nil, store.OpError("boards.AroundOfKey", err)
	}
	return rankedEntries(scores, res)
}
