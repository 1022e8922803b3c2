package web

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/panels"
	"github.com/zpulse/zpulse/internal/redisrepo"
	"github.com/zpulse/zpulse/internal/redistest"
)

// BenchmarkWatcherTick measures one watcher tick over real Redis with the real render:
// "unchanged" is the steady state (one pipelined read, compare); "changed" adds rendering and
// publishing every topic. Each topic is a board of 100 players with one subscriber.
func BenchmarkWatcherTick(b *testing.B) {
	rdb := redistest.DB(b)
	ctx := context.Background()
	svc := openRepo(b, rdb)
	lb := svc.Leaderboards
	for _, topics := range []int{1, 10, 100} {
		hub := live.NewHub(nil)
		srv := httptest.NewServer(http.HandlerFunc(hub.ServeWS))
		w := live.NewWatcher(openRepo(b, rdb).Snapshots.Read, TopicRenderer(0, redisrepo.DefaultKeys.Display(), ""), hub, time.Second,
			slog.New(slog.NewTextHandler(io.Discard, nil)), nil, live.WithSame(panels.Same))
		var received atomic.Int64
		boards := make([]string, topics)
		for i := range boards {
			boards[i] = fmt.Sprintf("bench:%d:%d", topics, i)
			for p := range 100 {
				lb.AddPoints(ctx, boards[i], fmt.Sprintf("player-%d", p), int64(p))
			}
			subscribeCounting(b, srv.URL, domain.BoardTopic(boards[i], domain.AllTime, 10), &received)
		}
		waitTopics(b, hub, topics)
		w.Tick(ctx)
		b.Run(fmt.Sprintf("topics=%d/unchanged", topics), func(b *testing.B) {
			for b.Loop() {
				if n := w.Tick(ctx); n != 0 {
					b.Fatalf("published %d", n)
				}
			}
		})
		b.Run(fmt.Sprintf("topics=%d/changed", topics), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				pipe := rdb.Pipeline()
				for _, board := range boards {
					// A new best score: the top always changes.
					pipe.ZAdd(ctx, "leaderboard:"+board, redis.Z{Score: float64(1_000_000 + i), Member: fmt.Sprintf("player-%d", i%100)})
				}
				pipe.Exec(ctx)
				b.StartTimer()
				if n := w.Tick(ctx); n != topics {
					b.Fatalf("published %d, want %d", n, topics)
				}
				b.StopTimer()
				// Let the subscribers read it all, as browsers have a tick's time to do.
				for want := int64(topics * (i + 2)); received.Load() < want; {
					time.Sleep(50 * time.Microsecond)
				}
				b.StartTimer()
			}
		})
		hub.Close()
		srv.Close()
	}
}

// BenchmarkRenderTop100 measures rendering a board panel of 100 entries.
func BenchmarkRenderTop100(b *testing.B) {
	top := domain.BoardTop{Board: "game:2048", Players: 100000}
	for i := range 100 {
		top.Entries = append(top.Entries, domain.NewEntry(domain.TieBreakNone, int64(i+1), fmt.Sprintf("player-%d", i), float64(1e6-i)))
	}
	for b.Loop() {
		if _, err := TopicRenderer(0, redisrepo.DefaultKeys.Display(), "")(domain.BoardTopic(top.Board, domain.AllTime, 100), domain.Admin, top); err != nil {
			b.Fatal(err)
		}
	}
}

// subscribeCounting opens a websocket on topic that counts the fragments it is sent.
func subscribeCounting(b *testing.B, base, topic string, received *atomic.Int64) {
	u := "ws" + strings.TrimPrefix(base, "http") + "/ws?" + url.Values{"topic": {topic}}.Encode()
	c, _, err := websocket.DefaultDialer.Dial(u, http.Header{"Origin": {base}})
	if err != nil {
		b.Fatal(err)
	}
	go func() {
		defer c.Close()
		for {
			if _, _, err := c.ReadMessage(); err != nil {
				return
			}
			received.Add(1)
		}
	}()
}
