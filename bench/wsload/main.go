// Command wsload measures zpulse's live path from the outside: it opens N websocket viewers
// of one board over real TCP, subscribed the way the board page is (the status topic and the
// board's top-10 topic), writes to the board in Redis itself with ZINCRBY (not through zpulse,
// so the watcher's tick finds the change), and times each write until a frame shows it to
// each viewer. It prints the write-to-frame p50/p99/max, frames per second, and viewers
// dropped or failed.
//
//	go run ./bench/wsload -url http://127.0.0.1:8080 -redis 127.0.0.1:6379 -viewers 1000
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/redisrepo"
)

// marker starts the name of every player wsload writes; the number after it is the write's
// sequence number, so a frame tells which writes it shows.
const marker = `data-player="wsload-`

func main() {
	base := flag.String("url", "http://127.0.0.1:8080", "zpulse's base URL")
	redisAddr := flag.String("redis", "127.0.0.1:6379", "address of the Redis zpulse reads")
	board := flag.String("board", "wsload", "board to watch and write to")
	viewers := flag.Int("viewers", 1000, "websocket viewers to open")
	dialers := flag.Int("dialers", 50, "viewers opened at the same time")
	rate := flag.Float64("writes", 4, "writes per second during the measurement")
	duration := flag.Duration("duration", 20*time.Second, "how long to measure")
	apiRate := flag.Int("api-writes", 0, "writes per second made through zpulse's API meanwhile (each nudges the watcher), to see how a flood of writes reaches viewers")
	apiClients := flag.Int("api-clients", 50, "concurrent API clients for -api-writes")
	hold := flag.Duration("hold", time.Second, "how long to hold the viewers idle before measuring (e.g. to read the server's memory)")
	deflate := flag.Bool("deflate", true, "offer permessage-deflate, as browsers do")
	mode := flag.String("mode", "fanout", "fanout: N viewers of one board; pages: bytes per change and idle frames of each page (pages.go)")
	flag.Parse()
	if *mode == "pages" {
		pagesMode(*base, *redisAddr)
		return
	}

	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: *redisAddr})
	key := redisrepo.DefaultKeys.Leaderboard(*board)
	// A fresh board: the players of an earlier run, with the same names and scores, would
	// make this run's writes change nothing.
	if err := rdb.Del(ctx, key).Err(); err != nil {
		log.Fatalf("wsload: DEL: %v", err)
	}
	if err := rdb.ZIncrBy(ctx, key, 1, "wsload-0").Err(); err != nil {
		log.Fatalf("wsload: ZINCRBY: %v", err)
	}

	u, err := url.Parse(*base)
	if err != nil {
		log.Fatalf("wsload: -url: %v", err)
	}
	origin := u.Scheme + "://" + u.Host
	u.Scheme = strings.Replace(u.Scheme, "http", "ws", 1)
	u.Path = "/ws"
	u.RawQuery = url.Values{"topic": {"status", "board.all.10:" + *board}}.Encode()

	r := &run{writes: make([]atomic.Int64, 1<<20)}
	memBefore := serverMemory(*base)
	start := time.Now()
	var wg sync.WaitGroup
	sem := make(chan struct{}, *dialers)
	var opened atomic.Int64
	for range *viewers {
		sem <- struct{}{}
		wg.Go(func() {
			dialer := *websocket.DefaultDialer
			dialer.EnableCompression = *deflate
			conn, _, err := dialer.Dial(u.String(), http.Header{"Origin": {origin}})
			<-sem
			if err != nil {
				r.failed.Add(1)
				log.Printf("wsload: dial: %v", err)
				return
			}
			opened.Add(1)
			r.mu.Lock()
			r.conns = append(r.conns, conn)
			r.mu.Unlock()
			r.view(conn)
		})
	}
	for len(sem) > 0 || opened.Load()+r.failed.Load() < int64(*viewers) {
		time.Sleep(10 * time.Millisecond) // a load tool polls its own progress; not a test
	}
	fmt.Printf("viewers: %d open, %d failed to connect, in %v\n", opened.Load(), r.failed.Load(), time.Since(start).Round(time.Millisecond))
	// The first frames (replays) arrive; nothing is written meanwhile. The server's memory is
	// sampled through the hold: the lowest reading is the nearest to its live heap after a GC.
	memHeld := holdAndSample(*base, *hold)
	if memBefore.ok && memHeld.ok && opened.Load() > 0 {
		n := float64(opened.Load())
		fmt.Printf("memory per connection: %.1f KB (heap %.1f KB, stacks %.1f KB; %d held %v)\n",
			(memHeld.heap+memHeld.stack-memBefore.heap-memBefore.stack)/n/1024, (memHeld.heap-memBefore.heap)/n/1024,
			(memHeld.stack-memBefore.stack)/n/1024, opened.Load(), *hold)
	}

	r.measuring.Store(true)
	measureStart := time.Now()
	stopFlood := make(chan struct{})
	floodDone := flood(*base, *board, *apiRate, *apiClients, stopFlood)
	every := float64(time.Second) / *rate
	seq := 0
	for time.Since(measureStart) < *duration {
		// Random gaps (0.5 to 1.5 times the mean): writes at a fixed rate would fall at the
		// same point of every watcher tick and measure one phase only.
		time.Sleep(time.Duration(every * (0.5 + rand.Float64())))
		seq++
		r.writes[seq].Store(time.Now().UnixNano())
		// A new player with a score above everyone else's: it enters the top 10 at once.
		if err := rdb.ZAdd(ctx, key, redis.Z{Score: float64(1_000_000_000 + seq), Member: "wsload-" + strconv.Itoa(seq)}).Err(); err != nil {
			log.Fatalf("wsload: write: %v", err)
		}
	}
	close(stopFlood)
	apiOK, apiFailed := floodDone()
	time.Sleep(2 * time.Second) // the last write's frames
	r.measuring.Store(false)
	elapsed := time.Since(measureStart)
	r.mu.Lock()
	for _, c := range r.conns {
		c.Close() // each viewer hands over its samples as it ends
	}
	r.mu.Unlock()
	wg.Wait()
	r.report(seq, int(opened.Load()), elapsed)
	fmt.Printf("load client CPU: %.0f%% of a core over %v\n", 100*clientCPU().Seconds()/time.Since(start).Seconds(), time.Since(start).Round(time.Second))
	if *apiRate > 0 {
		fmt.Printf("API writes: %d ok, %d failed (%.0f/s); frames per viewer: %.1f/s\n",
			apiOK, apiFailed, float64(apiOK)/elapsed.Seconds(), float64(r.frames.Load())/float64(opened.Load())/elapsed.Seconds())
	}
}

// flood adds points through zpulse's API at rate per second from clients connections until
// stop is closed, to one player kept at the top of the board so every write changes the
// board's top 10. The returned function waits for the clients and counts their writes.
func flood(base, board string, rate, clients int, stop <-chan struct{}) func() (ok, failed int64) {
	if rate <= 0 {
		return func() (int64, int64) { return 0, 0 }
	}
	var okN, failedN atomic.Int64
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	u := base + "/api/v1/boards/" + url.PathEscape(board) + "/scores"
	post := func(points int64) {
		body := fmt.Sprintf(`{"player":"wsload-flood","points":%d}`, points)
		resp, err := hc.Post(u, "application/json", strings.NewReader(body))
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		if err != nil || resp.StatusCode != http.StatusOK {
			failedN.Add(1)
			return
		}
		okN.Add(1)
	}
	post(2_000_000_000) // above every wsload-N player
	tick := time.NewTicker(time.Second / time.Duration(rate))
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					post(1)
				}
			}
		})
	}
	return func() (int64, int64) {
		wg.Wait()
		tick.Stop()
		return okN.Load(), failedN.Load()
	}
}

type run struct {
	writes    []atomic.Int64 // sequence number -> unix nanos of the write
	measuring atomic.Bool
	failed    atomic.Int64 // viewers that could not connect
	dropped   atomic.Int64 // viewers the server closed or that failed while measuring
	frames    atomic.Int64
	bytes     atomic.Int64

	mu        sync.Mutex
	conns     []*websocket.Conn
	latencies []time.Duration
}

// view reads one viewer's frames and records, for each write a frame shows for the first
// time, how long after the write it came.
func (r *run) view(conn *websocket.Conn) {
	defer conn.Close()
	var lat []time.Duration
	last := 0 // highest write sequence this viewer has seen
	defer func() {
		r.mu.Lock()
		r.latencies = append(r.latencies, lat...)
		r.mu.Unlock()
	}()
	var buf bytes.Buffer // one per viewer, reused: 10,000 viewers must not load the client's GC
	for {
		buf.Reset()
		_, rd, err := conn.NextReader()
		if err == nil {
			_, err = buf.ReadFrom(rd)
		}
		now := time.Now()
		msg := buf.Bytes()
		if err != nil {
			var ce *websocket.CloseError
			if r.measuring.Load() || errors.As(err, &ce) {
				r.dropped.Add(1)
				log.Printf("wsload: viewer ended: %v", err)
			}
			return
		}
		if !r.measuring.Load() {
			if top := highest(msg); top > last {
				last = top
			}
			continue
		}
		r.frames.Add(1)
		r.bytes.Add(int64(len(msg)))
		top := highest(msg)
		for s := last + 1; s <= top; s++ {
			if at := r.writes[s].Load(); at != 0 {
				lat = append(lat, now.Sub(time.Unix(0, at)))
			}
		}
		last = max(last, top)
	}
}

// highest returns the highest write sequence number a frame shows.
func highest(msg []byte) int {
	top := 0
	for {
		i := bytes.Index(msg, []byte(marker))
		if i < 0 {
			return top
		}
		msg = msg[i+len(marker):]
		end := bytes.IndexByte(msg, '"')
		if end < 0 {
			return top
		}
		if n, err := strconv.Atoi(string(msg[:end])); err == nil {
			top = max(top, n)
		}
	}
}

func (r *run) report(writes, viewers int, elapsed time.Duration) {
	lat := r.latencies // every viewer has ended
	slices.Sort(lat)
	q := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(p*float64(len(lat))))].Round(100 * time.Microsecond)
	}
	fmt.Printf("writes: %d in %v; samples %d of %d (writes x viewers)\n", writes, elapsed.Round(time.Millisecond), len(lat), writes*viewers)
	fmt.Printf("write-to-frame: p50 %v  p90 %v  p99 %v  max %v\n", q(0.50), q(0.90), q(0.99), q(1))
	fmt.Printf("frames: %.0f/s (%.1f MB/s); dropped viewers: %d\n",
		float64(r.frames.Load())/elapsed.Seconds(), float64(r.bytes.Load())/elapsed.Seconds()/1e6, r.dropped.Load())
}
