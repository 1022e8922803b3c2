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

// Wired as cmd/web wires it, a watcher that would not tick for an hour shows another
// service's write to a board as soon as Changed names the board's key, and polls nothing
// for a key no subscribed panel watches.
func TestChangedShowsAForeignWriteAtOnce(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	svc := seed(t, rdb)
	var polls atomic.Int64
	poll := func(ctx context.Context, topics []string) (map[string]any, error) {
		polls.Add(1)
		return svc.Snapshots.Read(ctx, topics)
	}
	hub := live.NewHub(nil)
	render := panels.Renderer(panels.Env{Ctx: context.Background(), Keys: redisrepo.DefaultKeys.Display()})
	w := live.NewWatcher(poll, render, hub, time.Hour, slog.New(slog.NewTextHandler(io.Discard, nil)), nil,
		live.WithSame(panels.Same), live.WithRouter(svc.Snapshots.Rooms()))
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	t.Cleanup(func() { stop(); <-done })
	srv := httptest.NewServer(http.HandlerFunc(hub.ServeWS))
	t.Cleanup(func() { hub.Close(); srv.Close() })

	topic := panels.Board.Topic(panels.BoardParams{Board: "game:2048", Period: domain.AllTime, N: 10})
	u := "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws?" + url.Values{"topic": {topic}}.Encode()
	conn, _, err := websocket.DefaultDialer.Dial(u, http.Header{"Origin": {srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	wait, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hub.WaitSubscriptions(wait, func() bool { return len(hub.Topics()) == 1 }); err != nil {
		t.Fatal(err)
	}

	w.Changed([]string{"queue:nobody", "zpulse:index:queues"})
	if err := rdb.ZIncrBy(context.Background(), "leaderboard:game:2048", 7, "grace").Err(); err != nil { // another service
		t.Fatal(err)
	}
	w.Changed([]string{"leaderboard:game:2048"})
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, msg, err := conn.ReadMessage()
	if err != nil || !strings.Contains(string(msg), "grace") {
		t.Fatalf("after Changed the board's frame is %.200q (%v), want grace's 7 points", msg, err)
	}
	if n := polls.Load(); n != 1 {
		t.Errorf("polled %d times, want once: for the board's key, not for keys nobody watches", n)
	}
}
