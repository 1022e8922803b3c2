package redisrepo

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/redistest"
)

// A client from Connect with the cluster's addresses reaches keys on every master, in both
// documented forms (one URL with a host list, and bare host:port pairs).
func TestClusterConnectReachesEveryMaster(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	redistest.ClusterTurn(t) // flushes every master
	c := redistest.SharedCluster(t)
	for _, url := range []string{c.URL(), strings.Join(c.Addrs(), ",")} {
		t.Run(url, func(t *testing.T) {
			rdb, err := Connect(url)
			if err != nil {
				t.Fatal(err)
			}
			defer rdb.Close()
			if _, ok := rdb.(*redis.ClusterClient); !ok {
				t.Fatalf("Connect(%q) is a %T, want a cluster client", url, rdb)
			}
			const keys = 60
			for i := range keys {
				if err := rdb.Set(ctx, fmt.Sprintf("k:%s:%d", url, i), i, 0).Err(); err != nil {
					t.Fatalf("SET through Connect: %v", err)
				}
			}
			// Each master holds some of the keys (60 keys hash to one third of the slots with
			// negligible chance), and every key reads back through the same client.
			for _, n := range c.Nodes {
				direct := redis.NewClient(&redis.Options{Addr: n.Addr})
				size, err := direct.DBSize(ctx).Result()
				direct.Close()
				if err != nil || size == 0 {
					t.Errorf("master %s holds %d keys (%v): the client did not reach it", n.Addr, size, err)
				}
			}
			for i := range keys {
				if got, err := rdb.Get(ctx, fmt.Sprintf("k:%s:%d", url, i)).Int(); err != nil || got != i {
					t.Errorf("GET k%d = %d, %v", i, got, err)
				}
			}
		})
	}
}

// Every Sentinel URL form reaches the master, including one whose first sentinel is down.
func TestSentinelConnectForms(t *testing.T) {
	// Serial: the package's one Sentinel setup (its master, its failovers) is shared by the Sentinel tests.
	ctx := context.Background()
	redistest.SentinelClient(t) // flushes the master
	s := redistest.SharedSentinel(t)
	addrs := s.SentinelAddrs()
	for _, url := range []string{
		s.URL(),
		"redis://" + addrs[1] + "?master_name=" + s.MasterName,
		"redis://127.0.0.1:1," + addrs[0] + "?master_name=" + s.MasterName,
	} {
		t.Run(url, func(t *testing.T) {
			rdb, err := Connect(url)
			if err != nil {
				t.Fatal(err)
			}
			defer rdb.Close()
			if err := rdb.Set(ctx, "form", url, 0).Err(); err != nil {
				t.Fatalf("SET through Connect(%q): %v", url, err)
			}
			master, err := s.MasterAddr(ctx)
			if err != nil {
				t.Fatal(err)
			}
			direct := redis.NewClient(&redis.Options{Addr: master})
			defer direct.Close()
			if got, err := direct.Get(ctx, "form").Result(); err != nil || got != url {
				t.Fatalf("the master %s holds %q (%v), want the write", master, got, err)
			}
		})
	}
	if _, err := Connect("redis://" + addrs[0] + "?master_name=nosuchmaster"); err != nil {
		t.Fatal(err) // a wrong name is found out by Ping, as an unreachable server is
	}
}

// Behind Sentinel, the client zpulse opens from its REDIS_URL serves writes, and after SENTINEL
// FAILOVER writes again on the new master without a restart. A writer keeps writing through
// the failover, each write a field of one hash; afterwards the new master shows which
// acknowledged writes survived. The figures (how long writes were lost or refused, when they
// landed on the new master again) are logged: the README quotes them.
func TestSentinelConnectFailover(t *testing.T) {
	// Serial: the package's one Sentinel setup (its master, its failovers) is shared by the Sentinel tests.
	ctx := context.Background()
	redistest.SentinelClient(t)
	s := redistest.SharedSentinel(t)
	rdb, err := Connect(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	if err := rdb.Set(ctx, "before", "1", 0).Err(); err != nil {
		t.Fatalf("SET before the failover: %v", err)
	}

	type write struct {
		at  time.Duration // since SENTINEL FAILOVER was sent
		err error
	}
	var (
		mu     sync.Mutex
		writes []write
	)
	stop, done := make(chan struct{}), make(chan struct{})
	start := time.Now()
	go func() {
		defer close(done)
		tick := time.NewTicker(10 * time.Millisecond) // a steady write load, as a running zpulse
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			wctx, cancel := context.WithTimeout(ctx, time.Second)
			err := rdb.HSet(wctx, "writes", i, 1).Err()
			cancel()
			mu.Lock()
			writes = append(writes, write{at: time.Since(start), err: err})
			mu.Unlock()
		}
	}()

	newMaster := s.Failover(t)
	settled := time.Since(start)
	// Wait until a write made after the failover settled is on the new master: the client has
	// followed it.
	direct := redis.NewClient(&redis.Options{Addr: newMaster})
	defer direct.Close()
	err = redistest.Poll(30*time.Second, func() error {
		mu.Lock()
		n := len(writes)
		last := write{}
		if n > 0 {
			last = writes[n-1]
		}
		mu.Unlock()
		if n == 0 || last.at < settled || last.err != nil {
			return fmt.Errorf("no acknowledged write since the failover settled (last: %v)", last.err)
		}
		if ok, err := direct.HExists(ctx, "writes", fmt.Sprint(n-1)).Result(); err != nil || !ok {
			return fmt.Errorf("write %d is not on the new master %s (%v)", n-1, newMaster, err)
		}
		return nil
	})
	close(stop)
	<-done
	if err != nil {
		t.Fatalf("writes through Connect did not reach the new master: %v", err)
	}

	kept, err := direct.HGetAll(ctx, "writes").Result()
	if err != nil {
		t.Fatal(err)
	}
	var refused, lost int
	var lastBad, back time.Duration
	var firstErr error
	for i, w := range writes {
		_, onMaster := kept[fmt.Sprint(i)]
		switch {
		case w.err != nil:
			refused++
			lastBad = w.at
			if firstErr == nil {
				firstErr = w.err
			}
		case !onMaster:
			lost++ // acknowledged by the old master after the new one was promoted
			lastBad = w.at
		}
	}
	for _, w := range writes {
		if w.at > lastBad && w.err == nil {
			back = w.at
			break
		}
	}
	t.Logf("SENTINEL FAILOVER to %s (settled after %v): writes landed on the new master again %v after the failover started; "+
		"of %d writes, %d refused (first error: %v) and %d acknowledged then lost",
		newMaster, settled.Round(time.Millisecond), back.Round(time.Millisecond), len(writes), refused, firstErr, lost)
	if err := rdb.Set(ctx, "later", "1", 0).Err(); err != nil {
		t.Fatalf("SET after the failover: %v", err)
	}
}
