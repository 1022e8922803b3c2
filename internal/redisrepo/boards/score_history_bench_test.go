package boards

import (
	"context"
	"strconv"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// BenchmarkAddPointsHistory is one add on one client with the score history off and on (its
// XADD inside the add script: no other round trip). The HTTP figure beside one ZINCRBY is
// internal/web's BenchmarkAddPointsHTTP (make bench's "add points" line).
func BenchmarkAddPointsHistory(b *testing.B) {
	for _, c := range []struct {
		name    string
		history int64
	}{{"history-off", 0}, {"history-10k", domain.DefaultScoreHistory}} {
		b.Run(c.name, func(b *testing.B) {
			rdb := redistest.DB(b)
			keys := store.DefaultKeys
			lb := NewLeaderboards(rdb, keys, store.NewDiscovery(rdb, keys, nil), store.Clocks{}, c.history)
			ctx := domain.WithActor(context.Background(), domain.Actor{Name: "bench"})
			b.ResetTimer()
			for i := range b.N {
				if _, err := lb.AddPoints(ctx, "bench", "p"+strconv.Itoa(i%1000), 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
