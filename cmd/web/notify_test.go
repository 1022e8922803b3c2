package main

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo"
	"github.com/zpulse/zpulse/internal/redistest"
)

// viewer is one websocket viewer of a live topic, whose frames arrive on frames.
type viewer struct{ frames chan string }

// viewBoard views a board's top ten.
func viewBoard(t *testing.T, addr, board string) *viewer {
	t.Helper()
	return view(t, addr, domain.BoardTopic(board, domain.AllTime, 10))
}

func view(t *testing.T, addr, topic string) *viewer {
	t.Helper()
	q := url.Values{"topic": {domain.TopicStatus, topic}}
	ws, _, err := websocket.DefaultDialer.Dial("ws://"+addr+"/ws?"+q.Encode(), http.Header{"Origin": {"http://" + addr}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	v := &viewer{frames: make(chan string, 100)}
	go func() {
		for {
			_, msg, err := ws.ReadMessage()
			if err != nil {
				close(v.frames)
				return
			}
			v.frames <- string(msg)
		}
	}()
	return v
}

// climb writes n new players above everyone on board, as another service would (ZADD, not
// through zpulse), one every pace, and returns how long each took to show to the viewer.
func climb(t *testing.T, rdb *redis.Client, v *viewer, board string, n int, within time.Duration) []time.Duration {
	t.Helper()
	key := redisrepo.DefaultKeys.Leaderboard(board)
	pace := time.NewTicker(80 * time.Millisecond) // beyond --live-min-gap: each write is a first change
	defer pace.Stop()
	var took []time.Duration
	for i := range n {
		<-pace.C
		player := "climber-" + strconv.Itoa(i)
		began := time.Now()
		if err := rdb.ZAdd(context.Background(), key, redis.Z{Score: float64(1e9 + i), Member: player}).Err(); err != nil {
			t.Fatal(err)
		}
		took = append(took, v.await(t, `data-player="`+player+`"`, began, within))
	}
	return took
}

// await waits for a frame that holds marker and returns how long it took from since.
func (v *viewer) await(t *testing.T, marker string, since time.Time, within time.Duration) time.Duration {
	t.Helper()
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	for {
		select {
		case f, ok := <-v.frames:
			if !ok {
				t.Fatal("the websocket closed")
			}
			if strings.Contains(f, marker) {
				return time.Since(since)
			}
		case <-deadline.C:
			t.Fatalf("%s was not on the viewer's page within %v", marker, within)
		}
	}
}

// quantile returns the q-quantile of ds (sorted in place).
func quantile(ds []time.Duration, q float64) time.Duration {
	slices.Sort(ds)
	return ds[min(len(ds)-1, int(q*float64(len(ds))))]
}

func readyz(t *testing.T, addr string) string { t.Helper(); return get(t, addr, "/readyz") }

func get(t *testing.T, addr, path string) string {
	t.Helper()
	resp, err := http.Get("http://" + addr + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// With notifications on and the poll at a minute, another service's writes reach a viewer
// without waiting for a poll: each is waited for at most 20 s (a third of the poll, so a
// write that waited for one fails), and the figures are logged (median, p95); how fast is
// make bench's subject (bench/wsload, bench/report -only foreign).
func TestForeignWriteReachesAViewerByNotification(t *testing.T) {
	t.Parallel()
	srv := redistest.StartArgs(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer rdb.Close()
	addr, _, logs := startRun(t, []string{"--redis-url", "redis://" + srv.Addr, "--demo=false", "--poll-interval", "1m", "--live-notifications", "on"}, nil)
	if err := redistest.Poll(10*time.Second, func() error {
		if body := readyz(t, addr); !strings.Contains(body, `"live":"live: notifications"`) {
			return errorText(body)
		}
		return nil
	}); err != nil {
		t.Fatalf("%v\n%s", err, logs)
	}
	if m := get(t, addr, "/metrics"); !strings.Contains(m, "\nzpulse_live_notifications 1\n") {
		t.Errorf("/metrics lacks zpulse_live_notifications 1")
	}
	v := viewBoard(t, addr, "climb")
	took := climb(t, rdb, v, "climb", 40, 20*time.Second)
	p50, p95 := quantile(took, 0.5), quantile(took, 0.95)
	t.Logf("foreign ZADD → frame, poll 1 min, notifications on: median %v, p95 %v (%d writes)", p50, p95, len(took))
}

// With notifications off, with the notification connection killed mid-run, or on a server
// that refuses CONFIG (managed Redis) with --live-notifications on, every change still shows,
// a lock another service takes under a new name too, and /readyz says which mode live updates
// are in. The figures are logged; the waits only guard against a hang (that a new lock shows
// at the next poll, not at discovery's sweep, is internal/panels' TestAForeignLockShowsAtTheNextPoll).
func TestForeignWritesShowWithoutNotifications(t *testing.T) {
	t.Parallel()
	const poll = 300 * time.Millisecond
	for _, mode := range []string{"off", "killed", "refused"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			var args []string
			if mode == "refused" {
				args = []string{"--rename-command", "CONFIG", ""}
			}
			srv := redistest.StartArgs(t, args...)
			rdb := redis.NewClient(&redis.Options{Addr: srv.Addr})
			defer rdb.Close()
			flag := map[string]string{"off": "off", "killed": "on", "refused": "on"}[mode]
			addr, _, _ := startRun(t, []string{"--redis-url", "redis://" + srv.Addr, "--demo=false", "--poll-interval", poll.String(), "--live-notifications", flag}, nil)
			want := map[string]string{"off": "live: polling every 300 ms (--live-notifications off)", "killed": "live: notifications",
				"refused": "live: polling every 300 ms (the server refused CONFIG GET notify-keyspace-events"}[mode]
			if err := redistest.Poll(10*time.Second, func() error {
				if body := readyz(t, addr); !strings.Contains(body, want) {
					return errorText(body)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			v, locks := viewBoard(t, addr, "floor"), view(t, addr, domain.TopicLocks)
			if mode == "killed" {
				if err := rdb.ClientKillByFilter(context.Background(), "TYPE", "pubsub").Err(); err != nil {
					t.Fatal(err)
				}
			}
			took := climb(t, rdb, v, "floor", 5, 20*time.Second) // a guard against a hang
			began := time.Now()
			if err := rdb.Do(context.Background(), "set", redisrepo.DefaultKeys.Lock("theirs"), "their-token", "nx", "px", 60000).Err(); err != nil {
				t.Fatal(err)
			}
			lock := locks.await(t, `data-lock="theirs"`, began, 20*time.Second)
			t.Logf("%s: write → frame %v, a new lock %v", mode, took, lock)
		})
	}
}

type errorText string

func (e errorText) Error() string { return string(e) }

// Without REDIS_URL the embedded Redis sends no notifications, and zpulse says so.
func TestEmbeddedRedisSaysItPolls(t *testing.T) {
	t.Parallel()
	addr, _, _ := startRun(t, []string{"--demo=false"}, nil)
	if body := readyz(t, addr); !strings.Contains(body, "live: polling every 250 ms (the embedded Redis sends no keyspace notifications)") {
		t.Errorf("readyz: %s", body)
	}
}
