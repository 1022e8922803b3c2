// Command httpload is the HTTP load generator of the add-points figures: N concurrent
// keep-alive connections posting JSON for a while, then requests/s and latency p50/p99.
// It posts the same body to zpulse and to bench/minimal, so the two compare side by side.
//
//	go run ./bench/httpload -url http://127.0.0.1:8080/api/v1/boards/load/scores -c 50 -duration 10s
//	go run ./bench/httpload -url http://127.0.0.1:8080/api/v1/boards/load/scores/batch -batch 1000
//
// Each request adds points for a player drawn from -players; with -batch N the body is
// {"scores": [{"player", "points"} × N]} and the figure counts players as well as requests.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Result is one run's figures; -json prints it as one line for bench/report.
type Result struct {
	Requests   int64   `json:"requests"`
	Errors     int64   `json:"errors"`
	ReqPerSec  float64 `json:"req_per_sec"`
	ItemPerSec float64 `json:"items_per_sec"` // players (or jobs) per second: req/s × batch
	P50Ms      float64 `json:"p50_ms"`
	P99Ms      float64 `json:"p99_ms"`
	FirstError string  `json:"first_error,omitempty"`
}

func main() {
	target := flag.String("url", "http://127.0.0.1:8080/api/v1/boards/load/scores", "the URL to POST to")
	conns := flag.Int("c", 50, "concurrent keep-alive connections, one request in flight on each")
	duration := flag.Duration("duration", 10*time.Second, "how long to send")
	warmup := flag.Duration("warmup", time.Second, "sending before the measured run (connections, caches)")
	players := flag.Int("players", 10_000, "distinct players the adds are spread over")
	batch := flag.Int("batch", 0, "players per request (a batch endpoint's body); 0: one add per request")
	token := flag.String("token", "", "a bearer token to send")
	asJSON := flag.Bool("json", false, "print the figures as one JSON line")
	flag.Parse()

	tr := &http.Transport{MaxIdleConns: *conns, MaxIdleConnsPerHost: *conns, MaxConnsPerHost: *conns,
		DialContext: (&net.Dialer{Timeout: 5 * time.Second}).DialContext}
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	run := func(d time.Duration, record bool) Result {
		var requests, errors atomic.Int64
		var firstErr atomic.Value
		lat := make([][]time.Duration, *conns)
		var wg sync.WaitGroup
		deadline := time.Now().Add(d)
		for w := range *conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(w), uint64(time.Now().UnixNano())))
				for time.Now().Before(deadline) {
					body := requestBody(r, *players, *batch)
					req, _ := http.NewRequest(http.MethodPost, *target, bytes.NewReader(body))
					req.Header.Set("Content-Type", "application/json")
					if *token != "" {
						req.Header.Set("Authorization", "Bearer "+*token)
					}
					start := time.Now()
					resp, err := client.Do(req)
					if err == nil {
						_, _ = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						if resp.StatusCode >= 300 {
							err = fmt.Errorf("status %d", resp.StatusCode)
						}
					}
					if err != nil {
						errors.Add(1)
						firstErr.CompareAndSwap(nil, err.Error())
						continue
					}
					requests.Add(1)
					if record {
						lat[w] = append(lat[w], time.Since(start))
					}
				}
			}()
		}
		wg.Wait()
		all := slices.Concat(lat...)
		slices.Sort(all)
		res := Result{Requests: requests.Load(), Errors: errors.Load(), ReqPerSec: float64(requests.Load()) / d.Seconds()}
		res.ItemPerSec = res.ReqPerSec * float64(max(*batch, 1))
		if len(all) > 0 {
			res.P50Ms = ms(all[len(all)/2])
			res.P99Ms = ms(all[len(all)*99/100])
		}
		if e, ok := firstErr.Load().(string); ok {
			res.FirstError = e
		}
		return res
	}
	if *warmup > 0 {
		run(*warmup, false)
	}
	res := run(*duration, true)
	if *asJSON {
		_ = json.NewEncoder(os.Stdout).Encode(res)
	} else {
		fmt.Printf("%d requests in %s over %d connections: %.0f req/s", res.Requests, *duration, *conns, res.ReqPerSec)
		if *batch > 0 {
			fmt.Printf(" (%.0f players/s)", res.ItemPerSec)
		}
		fmt.Printf(", p50 %.2f ms, p99 %.2f ms, %d errors\n", res.P50Ms, res.P99Ms, res.Errors)
		if res.FirstError != "" {
			fmt.Println("first error:", res.FirstError)
		}
	}
	if res.Requests == 0 {
		log.Fatal("httpload: no request succeeded")
	}
}

// requestBody is one add, {"player": "p-123", "points": 1}, or a batch of them.
func requestBody(r *rand.Rand, players, batch int) []byte {
	one := func(b []byte) []byte {
		b = append(b, `{"player":"p-`...)
		b = strconv.AppendInt(b, int64(r.IntN(players)), 10)
		return append(b, `","points":1}`...)
	}
	if batch <= 0 {
		return one(nil)
	}
	b := make([]byte, 0, batch*32+16)
	b = append(b, `{"scores":[`...)
	for i := range batch {
		if i > 0 {
			b = append(b, ',')
		}
		b = one(b)
	}
	return append(b, "]}"...)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
