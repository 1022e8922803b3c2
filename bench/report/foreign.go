package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/websocket"
	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo"
)

var foreignN = flag.Int("foreign-writes", 20, "foreign writes timed per panel kind and notification mode")

// foreignPoll is the poll interval of the foreign-write runs: the "now" was measured
// at 1 s, so with notifications off a write waits up to one poll.
const foreignPoll = time.Second

// foreignWrites measures "foreign write → frame": another service writes Redis directly (not
// through zpulse) and a websocket viewer of the panel waits for the frame that shows it, for
// a board, a queue, a limiter client and a new lock, on two zpulse instances of one private
// Redis: one with --live-notifications on, one off, both polling every foreignPoll.
func foreignWrites(zpulse string, writes int) {
	addr := privateRedis()
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	urls := map[string]string{}
	for _, mode := range []string{"on", "off"} {
		zPort := freePort()
		startProc(zpulse, "-addr", "127.0.0.1:"+zPort, "-redis-url", "redis://"+addr, "-demo=false",
			"-poll-interval", foreignPoll.String(), "-live-notifications", mode)
		urls[mode] = "127.0.0.1:" + zPort
		waitHTTP("http://" + urls[mode] + "/healthz")
	}
	for deadline := time.Now().Add(10 * time.Second); !liveByNotifications(urls["on"]) && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond) // the notifier's first probe
	}
	k := redisrepo.DefaultKeys
	ctx := context.Background()
	kinds := []struct {
		name, topic string
		write       func(i int, mode string) (marker string, err error)
	}{
		{"a board (ZADD of a new top player)", domain.BoardTopic("fw", domain.AllTime, 10), func(i int, mode string) (string, error) {
			p := mode + "-" + strconv.Itoa(i)
			return `data-player="` + p + `"`, rdb.ZAdd(ctx, k.Leaderboard("fw"), redis.Z{Score: float64(1e9 + time.Now().UnixMilli()), Member: p}).Err()
		}},
		{"a queue (ZADD of a job)", domain.QueueTopic("fw-q"), func(i int, mode string) (string, error) {
			n, err := rdb.ZAdd(ctx, k.Queue("fw-q"), redis.Z{Score: float64(time.Now().UnixMilli()), Member: mode + "-" + strconv.Itoa(i)}).Result()
			if err != nil || n != 1 {
				return "", fmt.Errorf("ZADD: %d %v", n, err)
			}
			waiting, err := rdb.ZCard(ctx, k.Queue("fw-q")).Result()
			return `data-testid="stat-waiting">` + domain.FormatCount(waiting) + `<`, err
		}},
		{"a new limiter client (ZADD rate:<client>)", domain.LimiterTopic("default"), func(i int, mode string) (string, error) {
			c := "fw-" + mode + "-" + strconv.Itoa(i)
			return `data-client="` + c + `"`, rdb.ZAdd(ctx, k.RatePrefix+c, redis.Z{Score: float64(time.Now().UnixMilli()), Member: c}).Err()
		}},
		{"a new lock (SET lock:x tok NX PX)", domain.TopicLocks, func(i int, mode string) (string, error) {
			l := "fw-" + mode + "-" + strconv.Itoa(i)
			return `data-lock="` + l + `"`, rdb.SetNX(ctx, k.Lock(l), "tok", time.Minute).Err()
		}},
	}
	for _, kind := range kinds {
		for _, mode := range []string{"on", "off"} {
			took, err := timeForeignWrites(urls[mode], kind.topic, writes, func(i int) (string, error) { return kind.write(i, mode) })
			figure := "foreign write → frame, " + kind.name + ", notifications " + mode + ", poll 1 s: p50 / p95"
			if err != nil {
				add(figure, "failed: "+err.Error(), "25 ms", "", "p95 ≤ 25 ms")
				continue
			}
			p50, p95 := took[len(took)/2], took[min(len(took)-1, len(took)*95/100)]
			add(figure, ms(p50)+" / "+ms(p95), "25 ms", ratio(float64(p95), float64(25*time.Millisecond)), "p95 ≤ 25 ms")
		}
	}
}

// timeForeignWrites opens a viewer of topic on zpulse at addr, makes n writes at random gaps
// of 0.1 to 0.4 s (so they fall at every phase of the poll), and returns, sorted, how long
// each took until a frame held its marker.
func timeForeignWrites(addr, topic string, n int, write func(i int) (marker string, err error)) ([]time.Duration, error) {
	q := url.Values{"topic": {domain.TopicStatus, topic}}
	ws, _, err := websocket.DefaultDialer.Dial("ws://"+addr+"/ws?"+q.Encode(), http.Header{"Origin": {"http://" + addr}})
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	frames := make(chan string, 256)
	go func() {
		defer close(frames)
		for {
			_, msg, err := ws.ReadMessage()
			if err != nil {
				return
			}
			frames <- string(msg)
		}
	}()
	var took []time.Duration
	for i := range n {
		time.Sleep(time.Duration(100+rand.IntN(300)) * time.Millisecond)
		began := time.Now()
		marker, err := write(i)
		if err != nil {
			return nil, err
		}
		if err := awaitMarker(frames, marker, 5*foreignPoll+5*time.Second); err != nil {
			return nil, err
		}
		took = append(took, time.Since(began))
	}
	slices.Sort(took)
	return took, nil
}

func awaitMarker(frames <-chan string, marker string, within time.Duration) error {
	timeout := time.After(within)
	for {
		select {
		case f, ok := <-frames:
			if !ok {
				return fmt.Errorf("the websocket closed")
			}
			if strings.Contains(f, marker) {
				return nil
			}
		case <-timeout:
			return fmt.Errorf("no frame with %s within %v", marker, within)
		}
	}
}

// liveByNotifications says whether zpulse at addr reports live updates by notifications.
func liveByNotifications(addr string) bool {
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return strings.Contains(string(body), `"live":"live: notifications"`)
}

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64) + " ms"
}

// startProc starts a process this run stops at its end.
func startProc(name string, args ...string) {
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = nil, nil
	if err := cmd.Start(); err != nil {
		fatalf("start %s: %v", name, err)
	}
	procs = append(procs, cmd)
}
