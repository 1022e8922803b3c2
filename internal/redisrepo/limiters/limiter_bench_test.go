package limiters

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-redis/redis_rate/v10"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// BenchmarkAllow measures Allow for each algorithm, with the time from Redis TIME as in
// production, beside go-redis/redis_rate's GCRA on the same Redis in the same run: 100
// requests a second per client, spread over 10,000 clients, from parallel goroutines.
// "vs_gcra" is our throughput over redis_rate's (1 = as fast). redis_rate is used here only.
func BenchmarkAllow(b *testing.B) {
	rdb := redistest.DB(b)
	ctx := context.Background()
	l, _ := openLimiters(rdb, nil)
	const clients = 10_000
	clientName := func(i int64) string { return "bench-" + strconv.FormatInt(i%clients, 10) }

	var gcraNs float64
	b.Run("redis_rate_gcra", func(b *testing.B) {
		rl := redis_rate.NewLimiter(rdb)
		limit := redis_rate.PerSecond(100)
		var n atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := rl.Allow(ctx, clientName(n.Add(1)), limit); err != nil {
					b.Error(err)
					return
				}
			}
		})
		gcraNs = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		b.ReportMetric(1e9/gcraNs, "allows/s")
	})
	ratios := map[string]float64{}
	for _, p := range policies100("bench-") {
		if _, err := l.SetPolicy(ctx, p); err != nil {
			b.Fatal(err)
		}
		b.Run(string(p.Algorithm), func(b *testing.B) {
			var n atomic.Int64
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := l.Allow(ctx, p.Name, clientName(n.Add(1))); err != nil {
						b.Error(err)
						return
					}
				}
			})
			ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(1e9/ns, "allows/s")
			if gcraNs > 0 {
				ratios[string(p.Algorithm)] = gcraNs / ns
				b.ReportMetric(gcraNs/ns, "vs_gcra")
			}
		})
		l.Rec.Take() // the recorded checks are not what is measured
	}
	for _, a := range domain.Algorithms {
		if r, ok := ratios[string(a)]; ok {
			fmt.Printf("Allow %-16s %.2f× the throughput of go-redis/redis_rate's GCRA (same Redis, same run)\n", a, r)
		}
	}
}

// BenchmarkMemoryPerClient measures, with MEMORY USAGE, the Redis memory one client takes
// under each algorithm at a limit of 100,000 requests an hour once it used all of them:
// the sliding log keeps every request, the others a few numbers.
func BenchmarkMemoryPerClient(b *testing.B) {
	rdb := redistest.DB(b)
	ctx := context.Background()
	const perHour = 100_000
	policies := []domain.LimitPolicy{
		{Name: "mem-log", Algorithm: domain.SlidingLog, Limit: perHour, WindowMs: 3_600_000},
		{Name: "mem-fixed", Algorithm: domain.FixedWindow, Limit: perHour, WindowMs: 3_600_000},
		{Name: "mem-counter", Algorithm: domain.SlidingCounter, Limit: perHour, WindowMs: 3_600_000},
		{Name: "mem-bucket", Algorithm: domain.TokenBucket, RatePerS: perHour / 3600.0, Burst: perHour},
	}
	clock := domain.NewManualClock(time.UnixMilli(1_800_000_000_000))
	l, _ := openLimiters(rdb, clock)
	for _, p := range policies {
		if _, err := l.SetPolicy(ctx, p); err != nil {
			b.Fatal(err)
		}
		b.Run(string(p.Algorithm), func(b *testing.B) {
			key := l.Keys.LimiterState(p, "client-1")
			if rdb.Exists(ctx, key).Val() == 0 {
				fill(b, l, p, perHour, clock)
			}
			var bytes int64
			for b.Loop() {
				bytes = rdb.MemoryUsage(ctx, key, 0).Val() // SAMPLES 0: every element
			}
			b.ReportMetric(float64(bytes), "bytes/client")
			b.Logf("%-16s %s: %d bytes per client at %d requests an hour", p.Algorithm, key, bytes, perHour)
		})
	}
}

// fill sends n requests for client-1, spread over the first 90% of the window, running the
// Script in pipelines of 1,000 (the scripts loaded first, so EVALSHA finds them).
func fill(b *testing.B, l *Limiters, p domain.LimitPolicy, n int, clock *domain.ManualClock) {
	ctx := context.Background()
	for _, s := range []*store.Script{SlidingLogScript, FixedWindowScript, SlidingCounterScript, TokenBucketScript} {
		if err := l.Rdb.ScriptLoad(ctx, s.Source()).Err(); err != nil {
			b.Fatal(err)
		}
	}
	start := clock.Now()
	step := time.Duration(p.QuotaWindowMs()) * time.Millisecond * 9 / 10 / time.Duration(n)
	for done := 0; done < n; {
		pipe := l.Rdb.Pipeline()
		for i := 0; i < 1000 && done < n; i, done = i+1, done+1 {
			now := strconv.FormatInt(start.Add(time.Duration(done)*step).UnixMilli(), 10)
			key := []string{l.Keys.LimiterState(p, "client-1")}
			switch p.Algorithm {
			case domain.SlidingLog:
				SlidingLogScript.Run(ctx, pipe, key, now, "1", p.WindowMs, p.Limit, NewUUID())
			case domain.FixedWindow:
				FixedWindowScript.Run(ctx, pipe, key, now, "1", p.WindowMs, p.Limit)
			case domain.SlidingCounter:
				SlidingCounterScript.Run(ctx, pipe, key, now, "1", p.WindowMs, p.Limit)
			case domain.TokenBucket:
				TokenBucketScript.Run(ctx, pipe, key, now, "1", fmt.Sprint(p.RatePerS/1000), p.Burst)
			}
		}
		if _, err := pipe.Exec(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
