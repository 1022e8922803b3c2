package sources

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
)

// The second article's token bucket in the service's own hash fields, its time in seconds:
// the view refills lazily as the service would, a try takes a token and writes both fields
// in the service's unit, and an empty bucket refuses.
func TestAdoptedTokenBucket(t *testing.T) {
	t.Parallel()
	s, rdb, clock := newTestSources(t)
	ctx := context.Background()
	save(t, s, domain.Source{Name: "tb", Kind: domain.SourceLimiter, Key: "limit:tb:{{client}}", Encoding: domain.SourceTokenBucket,
		Limit: 5, RatePerS: 1, TokensField: "令牌数", TimeField: "last_refill", TimeUnit: domain.SourceSeconds})
	now := clock.Now().Unix()
	rdb.HSet(ctx, "limit:tb:{u1}", "令牌数", "0", "last_refill", strconv.FormatInt(now-2, 10))
	if err := s.found.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	v, err := s.SourceView(ctx, "tb")
	if err != nil || len(v.Clients) != 1 || v.Clients[0].Client != "u1" || v.Clients[0].Count != 2 {
		t.Fatalf("view after 2 s at 1 token/s: %+v %v", v.Clients, err)
	}
	for i, want := range []bool{true, true, false} {
		r, err := s.TrySource(ctx, "tb", "u1")
		if err != nil || r.Allowed != want {
			t.Fatalf("try %d: %+v %v, want allowed %v", i, r, err, want)
		}
	}
	h := rdb.HGetAll(ctx, "limit:tb:{u1}").Val()
	if h["last_refill"] != strconv.FormatInt(now, 10) || h["令牌数"] != "0" {
		t.Errorf("the service's fields after the tries: %v", h)
	}
	clock.Advance(1500 * time.Millisecond) // one whole second in the service's unit
	if r, _ := s.TrySource(ctx, "tb", "u1"); !r.Allowed || r.Remaining != 0 {
		t.Errorf("after 1.5 s: %+v", r)
	}
	rdb.Set(ctx, "limit:tb:{u2}", "a string", 0)
	if _, err := s.TrySource(ctx, "tb", "u2"); domain.ErrorCode(err) != domain.CodeWrongType {
		t.Errorf("a string at the bucket's key: %v", err)
	}
	if rdb.Get(ctx, "limit:tb:{u2}").Val() != "a string" {
		t.Error("the string was changed")
	}
}
