package limiters

import (
	"context"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// Limiter clients whose (policy, client) pairs spell alike keep separate state, for every
// algorithm: one's checks never use up the other's quota, either way round.
func TestLimiterLookAlikePairsStayApart(t *testing.T) {
	t.Parallel()
	one := func(name string, a domain.Algorithm) domain.LimitPolicy {
		if a == domain.TokenBucket {
			return domain.LimitPolicy{Name: name, Algorithm: a, RatePerS: domain.MinRatePerS, Burst: 1}
		}
		return domain.LimitPolicy{Name: name, Algorithm: a, Limit: 1, WindowMs: 10_000}
	}
	type pc struct{ policy, client string }
	for _, alg := range domain.Algorithms {
		for _, pair := range [][2]pc{{{"default", "pa:c"}, {"pa", "c"}}, {{"pb", "x:y"}, {"pb:x", "y"}}} {
			for _, order := range [][2]pc{pair, {pair[1], pair[0]}} {
				first, second := order[0], order[1]
				t.Run(string(alg)+" "+first.policy+"/"+first.client+" then "+second.policy+"/"+second.client, func(t *testing.T) {
					t.Parallel()
					l, rdb, _ := newTestLimiters(t)
					ctx := context.Background()
					for _, p := range []domain.LimitPolicy{one("default", domain.SlidingLog), one("pa", alg), one("pb", alg), one("pb:x", alg)} {
						if _, err := l.SetPolicy(ctx, p); err != nil {
							t.Fatal(err)
						}
					}
					if r1, r2 := mustAllow(t, l, first.policy, first.client), mustAllow(t, l, first.policy, first.client); !r1.Allowed || r2.Allowed {
						t.Fatalf("%v: %+v then %+v, want the limit of 1 met", first, r1, r2)
					}
					if r := mustAllow(t, l, second.policy, second.client); !r.Allowed {
						t.Errorf("%v after %v used its quota: %+v; want its own quota untouched", second, first, r)
					}
					var states []string
					for _, c := range order {
						p, _ := l.Policy(ctx, c.policy)
						states = append(states, store.DefaultKeys.LimiterState(p, c.client))
					}
					if states[0] == states[1] || rdb.Exists(ctx, states[0], states[1]).Val() != 2 {
						t.Errorf("%v: want two keys, both written", states)
					}
				})
			}
		}
	}
}
