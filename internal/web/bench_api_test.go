package web

import (
	"fmt"
	"net/http"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/redistest"
)

// BenchmarkAddPointsHTTP measures add-points through the JSON API (HTTP, validation, the add
// script with its bookkeeping) with 50 concurrent clients, then redis-benchmark's plain
// ZINCRBY with 50 clients on the same Redis in the same run, and reports both and their ratio.
func BenchmarkAddPointsHTTP(b *testing.B) {
	s := newTestServer(b, "", nil)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	var n atomic.Int64
	b.SetParallelism(25) // 25 × GOMAXPROCS (2 here) = 50 clients
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			body := fmt.Sprintf(`{"player":"p%d","points":1}`, i%1000)
			resp, err := client.Post(s.URL+"/api/v1/boards/bench/scores", "application/json", strings.NewReader(body))
			if err != nil {
				b.Error(err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
	httpRate := float64(n.Load()) / time.Since(start).Seconds()
	b.StopTimer()
	rb := redisBenchmark(b, "ZINCRBY", "leaderboard:bench:rb", "1", "player")
	b.ReportMetric(httpRate, "api-adds/s")
	b.ReportMetric(rb, "redis-benchmark-zincrby/s")
	b.ReportMetric(httpRate/rb, "ratio")
}

var rpsLine = regexp.MustCompile(`([0-9.]+) requests per second`)

// redisBenchmark runs redis-benchmark (50 clients, 100,000 requests) against the package's
// Redis and returns its requests per second.
func redisBenchmark(b *testing.B, command ...string) float64 {
	host, port, _ := strings.Cut(redistest.Shared().Addr, ":")
	args := append([]string{"-h", host, "-p", port, "-c", "50", "-n", "100000", "-q"}, command...)
	out, err := exec.Command("redis-benchmark", args...).CombinedOutput()
	if err != nil {
		b.Fatalf("redis-benchmark (from redis-tools): %v\n%s", err, out)
	}
	m := rpsLine.FindStringSubmatch(string(out))
	if m == nil {
		b.Fatalf("redis-benchmark printed no rate:\n%s", out)
	}
	rate, _ := strconv.ParseFloat(m[1], 64)
	return rate
}
