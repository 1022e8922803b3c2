package limiters

import (
	"context"
	"strconv"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// Clients pages through the limiter's clients ZSET (scored by last seen, ms), the latest
// seen first. The cursor is the offset of the page's first client: a client seen again
// while paging moves to the front, so a page may repeat or skip one that moved, never
// another. One round trip: ZREVRANGE WITHSCORES and ZCARD. Nothing is written.
func (l *Limiters) Clients(ctx context.Context, limiter, cursor string, limit int) (domain.ClientPage, error) {
	if err := domain.ValidateLimiterName(limiter); err != nil {
		return domain.ClientPage{}, err
	}
	if limit < 1 || limit > domain.MaxPageLimit {
		return domain.ClientPage{}, domain.Errorf(domain.EINVALID, "limit must be 1 to %d (got %d)", domain.MaxPageLimit, limit)
	}
	var offset int64
	if cursor != "" {
		n, err := strconv.ParseInt(cursor, 10, 64)
		if err != nil || n < 0 || strconv.FormatInt(n, 10) != cursor {
			return domain.ClientPage{}, domain.Errorf(domain.EINVALID, "cursor must be a next_cursor this API returned (got %q)", clipCursor(cursor))
		}
		offset = n
	}
	key := l.Keys.LimiterClients(limiter)
	pipe := l.Rdb.Pipeline()
	zs := pipe.ZRevRangeWithScores(ctx, key, offset, offset+int64(limit)-1)
	card := pipe.ZCard(ctx, key)
	if err := store.ExecTyped(ctx, l.Rdb, pipe); err != nil {
		return domain.ClientPage{}, store.OpError("limiters.Limiters.Clients", err)
	}
	page := domain.ClientPage{Clients: make([]domain.ClientSeen, 0, len(zs.Val())), Total: card.Val()}
	for _, z := range zs.Val() {
		member, _ := z.Member.(string)
		page.Clients = append(page.Clients, domain.ClientSeen{Client: member, LastSeenMs: int64(z.Score)})
	}
	if next := offset + int64(len(page.Clients)); len(page.Clients) == limit && next < page.Total {
		s := strconv.FormatInt(next, 10)
		page.NextCursor = &s
	}
	return page, nil
}

// clipCursor shortens a bad cursor for its message.
func clipCursor(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
