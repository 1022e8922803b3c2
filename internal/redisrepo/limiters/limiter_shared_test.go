package limiters

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/compat"
	"github.com/zpulse/zpulse/internal/domain"
)

// serviceAdmits runs the article's limiter (5 per minute) on rate:<client> at now.
func serviceAdmits(t *testing.T, rdb *redis.Client, client string, now time.Time) bool {
	t.Helper()
	n, err := compat.SlidingWindow.Run(context.Background(), rdb, []string{"rate:" + client}, now.UnixMilli(), 60_000, 5, NewUUID()).Int64()
	if err != nil {
		t.Fatal(err)
	}
	return n == 1
}

// A service with a 1-minute window shares rate:<client> with zpulse's 10-second default
// policy. Whether the policy states the service's window or not, zpulse keeps the entries the
// service still counts, so the service never admits more than its 5 a minute; unstated, the
// policy records the longer writer for the page's warning.
func TestSharedSlidingLogKeepsTheLongerWindow(t *testing.T) {
	t.Parallel()
	for _, stated := range []bool{true, false} {
		name := map[bool]string{true: "stated", false: "seen"}[stated]
		t.Run(name, func(t *testing.T) {
			l, rdb, clock := newTestLimiters(t)
			ctx := context.Background()
			if stated {
				p := domain.DefaultPolicy
				p.SharedWindowMs = 60_000
				if _, err := l.SetPolicy(ctx, p); err != nil {
					t.Fatal(err)
				}
			}
			admitted := 0
			for range 3 {
				if serviceAdmits(t, rdb, "c", clock.Now()) {
					admitted++
				}
			}
			clock.Advance(15 * time.Second) // past zpulse's window, inside the service's
			for range 2 {
				if !mustAllow(t, l, domain.DefaultLimiter, "c").Allowed {
					t.Fatal("zpulse refused within its own limit")
				}
			}
			if n := rdb.ZCard(ctx, "rate:c").Val(); n != 5 {
				t.Errorf("log holds %d entries after zpulse's checks, want the service's 3 and zpulse's 2", n)
			}
			clock.Advance(5 * time.Second)
			for range 4 {
				if serviceAdmits(t, rdb, "c", clock.Now()) {
					admitted++
				}
			}
			if admitted != 3 {
				t.Errorf("the service admitted %d of its own requests in a minute with 2 of zpulse's, want 3 (5 per minute)", admitted)
			}
			p, err := l.Policy(ctx, domain.DefaultLimiter)
			if err != nil {
				t.Fatal(err)
			}
			if p.LongerWriter() == stated {
				t.Errorf("LongerWriter = %v with the window %s (seen %d ms)", p.LongerWriter(), name, p.SeenWindowMs)
			}
		})
	}
}

// zpulse never shortens the key's expiry below a longer writer's.
func TestSharedSlidingLogKeepsTheExpiry(t *testing.T) {
	t.Parallel()
	l, rdb, clock := newTestLimiters(t)
	ctx := context.Background()
	serviceAdmits(t, rdb, "c", clock.Now())
	mustAllow(t, l, domain.DefaultLimiter, "c")
	if ttl := rdb.PTTL(ctx, "rate:c").Val(); ttl <= 10*time.Second {
		t.Errorf("PTTL after zpulse's check = %v, want the service's minute kept", ttl)
	}
}
