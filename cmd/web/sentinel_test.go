package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/redistest"
)

// The program behind Sentinel, end to end: REDIS_URL names the sentinels, zpulse starts, is
// ready and takes writes through its API; after SENTINEL FAILOVER it takes writes again on the
// new master, without a restart. A writer adds points through the API every 10 ms through the
// failover, each write a player of its own; afterwards the new master shows which acknowledged
// writes survived. The figure (when writes through the API landed on the new master again) is
// logged: the README quotes it.
func TestRunBehindSentinelThroughAFailover(t *testing.T) {
	ctx := context.Background()
	redistest.SentinelClient(t) // flushes the master
	s := redistest.SharedSentinel(t)
	addr, _, logs := startRun(t, []string{"--demo=false"}, map[string]string{"REDIS_URL": s.URL()})
	base := "http://" + addr
	client := &http.Client{Timeout: 2 * time.Second}
	addPoints := func(player string) (int, error) {
		resp, err := client.Post(base+"/api/v1/boards/failover/scores", "application/json",
			strings.NewReader(`{"player":"`+player+`","points":1}`))
		if err != nil {
			return 0, err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	if resp, err := client.Get(base + "/readyz"); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/readyz behind Sentinel: %v %v\n%s", resp, err, logs)
	}
	if status, err := addPoints("before"); err != nil || status != http.StatusOK {
		t.Fatalf("a write through the API: %d %v\n%s", status, err, logs)
	}

	type write struct {
		at time.Duration // since SENTINEL FAILOVER was sent
		ok bool          // answered 200
	}
	var (
		mu     sync.Mutex
		writes []write
	)
	stop, done := make(chan struct{}), make(chan struct{})
	start := time.Now()
	go func() {
		defer close(done)
		tick := time.NewTicker(10 * time.Millisecond) // a steady write load, as users would make
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			status, err := addPoints(fmt.Sprint("w", i))
			mu.Lock()
			writes = append(writes, write{at: time.Since(start), ok: err == nil && status == http.StatusOK})
			mu.Unlock()
		}
	}()

	newMaster := s.Failover(t)
	settled := time.Since(start)
	direct := redis.NewClient(&redis.Options{Addr: newMaster})
	defer direct.Close()
	// Wait until a write made after the failover settled is acknowledged and on the new master.
	err := redistest.Poll(30*time.Second, func() error {
		mu.Lock()
		n := len(writes)
		last := write{}
		if n > 0 {
			last = writes[n-1]
		}
		mu.Unlock()
		if n == 0 || last.at < settled || !last.ok {
			return fmt.Errorf("no acknowledged write since the failover settled")
		}
		if err := direct.ZScore(ctx, "leaderboard:failover", fmt.Sprint("w", n-1)).Err(); err != nil {
			return fmt.Errorf("write %d is not on the new master %s (%v)", n-1, newMaster, err)
		}
		return nil
	})
	close(stop)
	<-done
	if err != nil {
		t.Fatalf("writes through the API did not reach the new master: %v\n%s", err, logs)
	}

	kept, err := direct.ZRangeWithScores(ctx, "leaderboard:failover", 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	onMaster := map[string]bool{}
	for _, z := range kept {
		onMaster[z.Member.(string)] = true
	}
	var refused, lost int
	var lastBad, back time.Duration
	for i, w := range writes {
		switch {
		case !w.ok:
			refused++
			lastBad = w.at
		case !onMaster[fmt.Sprint("w", i)]:
			lost++ // acknowledged by the old master, never replicated
			lastBad = w.at
		}
	}
	for _, w := range writes {
		if w.at > lastBad && w.ok {
			back = w.at
			break
		}
	}
	t.Logf("SENTINEL FAILOVER to %s (settled after %v): writes through the API landed on the new master again %v after the failover began; "+
		"of %d writes, %d refused and %d acknowledged then lost",
		newMaster, settled.Round(time.Millisecond), back.Round(time.Millisecond), len(writes), refused, lost)
	if back == 0 {
		t.Errorf("no write through the API landed on the new master after the failover began")
	}
	if resp, err := client.Get(base + "/readyz"); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("/readyz after the failover: %v %v", resp, err)
	}
}
