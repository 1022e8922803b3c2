package notify_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/redisrepo/notify"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// BenchmarkNotificationCost is what keyspace notifications cost Redis per write (ZINCRBY on a
// board, pipelined by 100): its CPU (INFO cpu) with the setting off, on with nobody
// subscribed, and on with zpulse's patterns subscribed, and the bytes the server sends per
// write (INFO stats' output, replies included: the subscribed run's extra is the pub/sub
// message).
func BenchmarkNotificationCost(b *testing.B) {
	srv := redistest.StartArgs(b)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer rdb.Close()
	ctx := context.Background()
	for _, c := range []struct {
		name, setting string
		subscribed    bool
	}{{"off", "", false}, {"on", notify.Classes, false}, {"on+subscribed", notify.Classes, true}} {
		b.Run(c.name, func(b *testing.B) {
			if err := rdb.ConfigSet(ctx, "notify-keyspace-events", c.setting).Err(); err != nil {
				b.Fatal(err)
			}
			if c.subscribed {
				var patterns []string
				for _, f := range store.DefaultKeys.Families() {
					patterns = append(patterns, "__keyspace@0__:"+f.Prefix+"*")
				}
				ps := rdb.PSubscribe(ctx, patterns...)
				defer ps.Close()
				ch := ps.Channel(redis.WithChannelSize(100_000))
				go func() {
					for range ch {
					}
				}()
			}
			cpu0, out0 := serverCost(b, rdb)
			key := store.DefaultKeys.Leaderboard("cost")
			for i := 0; i < b.N; i += 100 {
				pipe := rdb.Pipeline()
				for j := i; j < min(i+100, b.N); j++ {
					pipe.ZIncrBy(ctx, key, 1, "p"+strconv.Itoa(j%1000))
				}
				if _, err := pipe.Exec(ctx); err != nil {
					b.Fatal(err)
				}
			}
			cpu1, out1 := serverCost(b, rdb)
			b.ReportMetric((cpu1-cpu0)*1e6/float64(b.N), "cpu-µs/write")
			b.ReportMetric((out1-out0)/float64(b.N), "out-B/write")
		})
	}
}

// serverCost reads the server's CPU seconds (user + system) and bytes sent so far.
func serverCost(b *testing.B, rdb *redis.Client) (cpu, out float64) {
	info, err := rdb.Info(context.Background(), "cpu", "stats").Result()
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(info, "\r\n") {
		k, v, _ := strings.Cut(line, ":")
		f, _ := strconv.ParseFloat(v, 64)
		switch k {
		case "used_cpu_user", "used_cpu_sys":
			cpu += f
		case "total_net_output_bytes":
			out = f
		}
	}
	return cpu, out
}
