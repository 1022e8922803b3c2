package panels_test

import (
	"context"
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

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/panels"
	"github.com/zpulse/zpulse/internal/redisrepo"
	"github.com/zpulse/zpulse/internal/redistest"
)

// wired is a watcher wired as cmd/web wires it, that would not tick for an hour by itself,
// over svc, and a websocket dialled to its hub for topics.
func wired(t *testing.T, svc *redisrepo.Services, topics ...string) (*live.Watcher, *websocket.Conn, *atomic.Int64) {
	t.Helper()
	return wiredSeeing(t, svc, nil, topics...)
}

// wiredSeeing is wired, whose every poll's snapshots also go to seen (nil: nowhere).
func wiredSeeing(t *testing.T, svc *redisrepo.Services, seen func(snaps map[string]any), topics ...string) (*live.Watcher, *websocket.Conn, *atomic.Int64) {
	t.Helper()
	polls := &atomic.Int64{}
	poll := func(ctx context.Context, topics []string, how live.Poll) (map[string]any, error) {
		polls.Add(1)
		snaps, err := svc.Snapshots.Read(ctx, topics, how)
		if seen != nil && err == nil {
			seen(snaps)
		}
		return snaps, err
	}
	hub := live.NewHub(nil)
	render := panels.Renderer(panels.Env{Keys: redisrepo.DefaultKeys.Display()})
	w := live.NewWatcher(poll, render, hub, time.Hour, slog.New(slog.NewTextHandler(io.Discard, nil)), nil,
		live.WithSame(panels.Same), live.WithRouter(svc.Snapshots.Rooms()))
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	t.Cleanup(func() { stop(); <-done })
	srv := httptest.NewServer(http.HandlerFunc(hub.ServeWS))
	t.Cleanup(func() { hub.Close(); srv.Close() })
	u := "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws?" + url.Values{"topic": topics}.Encode()
	conn, _, err := websocket.DefaultDialer.Dial(u, http.Header{"Origin": {srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	wait, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hub.WaitSubscriptions(wait, func() bool { return len(hub.Topics()) == len(topics) }); err != nil {
		t.Fatal(err)
	}
	return w, conn, polls
}

// next is the next message on conn, within 5 s.
func next(t *testing.T, conn *websocket.Conn) string {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, msg, err := conn.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	return string(msg)
}

// Wired as cmd/web wires it, a watcher that would not tick for an hour shows another
// service's write to a board as soon as Changed names the board's key, and polls nothing
// for a key no subscribed panel watches.
func TestChangedShowsAForeignWriteAtOnce(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	svc := seed(t, rdb)
	topic := panels.Board.Topic(panels.BoardParams{Board: "game:2048", Period: domain.AllTime, N: 10})
	w, conn, polls := wired(t, svc, topic)

	w.Changed(context.Background(), []string{"queue:nobody", "zpulse:index:queues"})
	if err := rdb.ZIncrBy(context.Background(), "leaderboard:game:2048", 7, "grace").Err(); err != nil { // another service
		t.Fatal(err)
	}
	w.Changed(context.Background(), []string{"leaderboard:game:2048"})
	if msg := next(t, conn); !strings.Contains(msg, "grace") {
		t.Fatalf("after Changed the board's frame is %.200q, want grace's 7 points", msg)
	}
	if n := polls.Load(); n != 1 {
		t.Errorf("polled %d times, want once: for the board's key, not for keys nobody watches", n)
	}
}

// A poll of Changed's topics alone leaves what the rooms remember for the others: a limiter
// read before still publishes its next change at the next full tick (a forgotten one would
// only learn its policy again, and publish nothing).
func TestChangedKeepsTheOtherPanelsMemory(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	svc := seed(t, rdb)
	board := panels.Board.Topic(panels.BoardParams{Board: "game:2048", Period: domain.AllTime, N: 10})
	limiter := panels.Limiter.Topic(domain.DefaultLimiter)
	w, conn, _ := wired(t, svc, board, limiter)
	ctx := context.Background()
	w.Tick(ctx) // the board's frame and the limiter's (its first read learns its policy and clients, and is read again at once)
	w.Tick(ctx) // nothing, or the limiter's client row if a second passed (the row's timeline moves with the clock)
	// The connection's writer may join the frames into one message.
	for got := next(t, conn); !strings.Contains(got, panels.ElementID(limiter)) || !strings.Contains(got, panels.ElementID(board)); {
		got += next(t, conn)
	}
	if err := rdb.ZIncrBy(ctx, "leaderboard:game:2048", 7, "grace").Err(); err != nil {
		t.Fatal(err)
	}
	w.Changed(context.Background(), []string{"leaderboard:game:2048"})
	// The board's frame comes next, maybe behind the second tick's client row, which the
	// loop above may not have waited for.
	msg := next(t, conn)
	for !strings.Contains(msg, panels.ElementID(board)) {
		if !strings.Contains(msg, panels.ElementID(limiter)) {
			t.Fatalf("after Changed got %.120q, want the board with grace", msg)
		}
		msg = next(t, conn)
	}
	if !strings.Contains(msg, "grace") {
		t.Fatalf("after Changed the board's frame is %.120q, want grace in it", msg)
	}
	if _, err := svc.Limiters.Allow(ctx, domain.DefaultLimiter, "c-42"); err != nil {
		t.Fatal(err)
	}
	if n := w.Tick(ctx); n != 1 {
		t.Fatalf("the full tick after Changed published %d frames, want the limiter's", n)
	}
	if msg := next(t, conn); !strings.Contains(msg, panels.ElementID(limiter)) {
		t.Errorf("got %.120q, want the limiter's frame", msg)
	}
}
