package limiters

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// A token bucket another service writes in zpulse's own layout (a HASH at
// rate:tb:<policy>:{<client>}: tokens, ts) is found by discovery's sweep and listed on its
// limiter's page like a client zpulse checked; so are the other hash layouts (a fixed
// window's w and n). A hash under a policy of another algorithm, or of no saved policy, is
// left out. On one server and on the Cluster.
func TestForeignLimiterHashesShow(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, testForeignLimiterHashesShow)
}

func testForeignLimiterHashesShow(t *testing.T, rdb redis.UniversalClient) {
	ctx := context.Background()
	l, found, _ := newLimitersOn(rdb)
	for _, p := range policies100("") {
		if _, err := l.SetPolicy(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	mustAllow(t, l, "bucket", "own")
	if err := l.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	// Another service's clients, written as its own scripts would (10 ms before t0, so the
	// bucket refilled one token at 100 a second).
	at := t0.UnixMilli() - 10
	for _, c := range []struct {
		key    string
		fields []any
	}{
		{"rate:tb:bucket:{svc-1}", []any{"tokens", "40", "ts", at}},
		{"rate:tb:bucket:{svc-2}", []any{"tokens", "49.5", "ts", at}},
		{"rate:fw:fixed:{svc-3}", []any{"w", t0.UnixMilli(), "n", 7}},
		{"rate:fw:bucket:{not-this-algorithm}", []any{"w", t0.UnixMilli(), "n", 7}},
		{"rate:tb:nosuchpolicy:{svc-4}", []any{"tokens", "1", "ts", at}},
		{"rate:tb:bucket:{no-time}", []any{"tokens", "1"}},
	} {
		if err := rdb.HSet(ctx, c.key, c.fields...).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := found.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	view, err := l.View(ctx, "bucket")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]domain.ClientUsage{}
	for _, c := range view.Clients {
		got[c.Client] = c
	}
	if len(got) != 3 || got["own"].Client == "" || got["svc-1"].Client == "" || got["svc-2"].Client == "" {
		t.Fatalf("bucket's clients = %+v, want own, svc-1 and svc-2", view.Clients)
	}
	if c := got["svc-1"]; c.Remaining != 41 {
		t.Errorf("svc-1 = %+v, want 41 tokens left (40 + 1 refilled)", c)
	}
	if c := got["svc-2"]; c.Remaining != 50 {
		t.Errorf("svc-2 = %+v, want 50 whole tokens left (49.5 + 1)", c)
	}
	fixed, err := l.View(ctx, "fixed")
	if err != nil {
		t.Fatal(err)
	}
	if len(fixed.Clients) != 1 || fixed.Clients[0].Client != "svc-3" || fixed.Clients[0].Used != 7 {
		t.Errorf("fixed's clients = %+v, want svc-3 with 7 used", fixed.Clients)
	}
}
