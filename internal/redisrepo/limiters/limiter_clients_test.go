package limiters

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// Paging through a limiter's 120 clients, 50 a page, gives each exactly once, the latest
// seen first, and ends; reading them, and looking one up (Peek), counts nothing: every
// client's state is the same before and after (issue 35.4).
func TestClientsPagingAndLookup(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, testClientsPagingAndLookup)
}

func testClientsPagingAndLookup(t *testing.T, rdb redis.UniversalClient) {
	l, _, clock := newLimitersOn(rdb)
	ctx := context.Background()
	p := domain.LimitPolicy{Name: "paged", Algorithm: domain.SlidingLog, Limit: 100, WindowMs: 60_000}
	if _, err := l.SetPolicy(ctx, p); err != nil {
		t.Fatal(err)
	}
	for i := range 120 {
		mustAllow(t, l, p.Name, fmt.Sprintf("c%03d", i))
		clock.Advance(time.Millisecond)
	}
	if err := l.Flush(ctx); err != nil { // the clients' last-seen times, written in batches
		t.Fatal(err)
	}
	states := func() map[string]string {
		out := map[string]string{}
		for i := range 120 {
			c := fmt.Sprintf("c%03d", i)
			out[c] = rdb.Dump(ctx, l.Keys.LimiterState(p, c)).Val()
		}
		out["clients"] = strings.Join(rdb.ZRangeArgs(ctx, redis.ZRangeArgs{Key: l.Keys.LimiterClients(p.Name), Start: 0, Stop: -1}).Val(), ",")
		return out
	}
	before := states()
	seen := map[string]int{}
	cursor, pages := "", 0
	var last int64 = 1 << 62
	for {
		page, err := l.Clients(ctx, p.Name, cursor, 50)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if page.Total != 120 {
			t.Errorf("total %d, want 120", page.Total)
		}
		for _, c := range page.Clients {
			seen[c.Client]++
			if c.LastSeenMs > last {
				t.Errorf("%s seen at %d after one seen at %d: not latest first", c.Client, c.LastSeenMs, last)
			}
			last = c.LastSeenMs
		}
		if page.NextCursor == nil {
			break
		}
		cursor = *page.NextCursor
		if pages > 3 {
			t.Fatal("paging does not end")
		}
	}
	if pages != 3 || len(seen) != 120 {
		t.Errorf("%d pages, %d clients; want 3 pages of 120 clients", pages, len(seen))
	}
	for c, n := range seen {
		if n != 1 {
			t.Errorf("%s paged %d times", c, n)
		}
	}
	for range 3 {
		if r, err := l.Peek(ctx, p.Name, "c007"); err != nil || r.Remaining != 99 {
			t.Errorf("lookup of c007: %+v %v, want 99 remaining", r, err)
		}
	}
	after := states()
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s changed by paging or lookup", k)
		}
	}
	for _, c := range []struct {
		cursor string
		limit  int
		field  string
	}{{"x", 10, "cursor"}, {"-1", 10, "cursor"}, {"01", 10, "cursor"}, {"", 0, "limit"}, {"", domain.MaxPageLimit + 1, "limit"}} {
		if _, err := l.Clients(ctx, p.Name, c.cursor, c.limit); domain.ErrorCode(err) != domain.EINVALID || !strings.Contains(domain.ErrorMessage(err), c.field) {
			t.Errorf("cursor %q limit %d: %v; want EINVALID naming %s", c.cursor, c.limit, err, c.field)
		}
	}
	if _, err := l.Clients(ctx, "bad name!", "", 10); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("a bad limiter name: %v", err)
	}
}
