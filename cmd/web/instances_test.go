package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/redisrepo"
	"github.com/zpulse/zpulse/internal/redisrepo/history"
	"github.com/zpulse/zpulse/internal/redisrepo/locks"
	"github.com/zpulse/zpulse/internal/redistest"
)

// instance is a zpulse process: this test binary running the program (see asProgram).
type instance struct {
	addr   string
	cmd    *exec.Cmd
	out    *syncBuffer
	exited chan struct{}
}

// startInstance starts a zpulse process on a free port against redisURL, with the demo on,
// and waits until it answers /healthz. It is killed when the test ends, if still running.
func startInstance(t *testing.T, redisURL string) *instance {
	t.Helper()
	in := &instance{addr: freeAddr(t), out: &syncBuffer{}, exited: make(chan struct{})}
	in.cmd = exec.Command(os.Args[0], "--addr", in.addr, "--redis-url", redisURL, "--demo", "--demo-every", "200ms")
	in.cmd.Env = append(os.Environ(), asProgram+"=1")
	in.cmd.Stdout, in.cmd.Stderr = in.out, in.out
	if err := in.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = in.cmd.Wait(); close(in.exited) }()
	t.Cleanup(func() {
		_ = in.cmd.Process.Kill()
		<-in.exited
		if t.Failed() {
			t.Logf("instance %d on %s:\n%s", in.cmd.Process.Pid, in.addr, in.out)
		}
	})
	err := redistest.Poll(20*time.Second, func() error {
		select {
		case <-in.exited:
			return fmt.Errorf("exited: %s", in.out)
		default:
		}
		resp, err := http.Get("http://" + in.addr + "/healthz")
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	})
	if err != nil {
		t.Fatalf("instance on %s did not come up: %v", in.addr, err)
	}
	return in
}

// terms returns the fencing tokens of the terms this instance began for loop, from its log.
func (in *instance) terms(loop string) []int64 {
	re := regexp.MustCompile(`msg="running a singleton loop in this instance" loop=` + regexp.QuoteMeta(loop) + ` .*fencing_token=(\d+)`)
	var fences []int64
	for _, m := range re.FindAllStringSubmatch(in.out.String(), -1) {
		f, _ := strconv.ParseInt(m[1], 10, 64)
		fences = append(fences, f)
	}
	return fences
}

// holder is who holds a singleton loop's lock in Redis: the holder's pid (from the token,
// "host:pid:random") and the lock's fencing counter, read together.
type holder struct {
	pid   int
	fence int64
}

func singletonHolder(ctx context.Context, rdb *redis.Client, loop string) (holder, error) {
	k := redisrepo.DefaultKeys
	name := k.SingletonLock(loop)
	var tok *redis.StringCmd
	var fence *redis.StringCmd
	_, err := rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		tok, fence = p.Get(ctx, k.Lock(name)), p.Get(ctx, k.LockFence(name))
		return nil
	})
	if err != nil {
		return holder{}, fmt.Errorf("%s is not held: %w", loop, err)
	}
	parts := strings.Split(tok.Val(), ":")
	if len(parts) < 3 {
		return holder{}, fmt.Errorf("%s's token %q does not name an instance", loop, tok.Val())
	}
	pid, err := strconv.Atoi(parts[len(parts)-2])
	if err != nil {
		return holder{}, fmt.Errorf("%s's token %q: %w", loop, tok.Val(), err)
	}
	f, _ := fence.Int64()
	return holder{pid: pid, fence: f}, nil
}

// Three instances on one Redis with the demo on: the demo traffic, the queue reaper, the
// history recorder and the season rollover each run in exactly one of them. SIGKILL of the
// instance running them hands each to another instance (how soon is logged beside the
// README's bound, locks.SingletonTakeover; the wait, 3 times it, only guards against a hang), one
// holder at a time: the lock's fencing token only grows, and each term an instance begins has
// a token above every earlier term's.
func TestThreeInstancesSingletonHandover(t *testing.T) {
	ctx := context.Background()
	srv, err := redistest.Start() // a Redis of its own: the instances' demo writes stay here
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr})
	t.Cleanup(func() { rdb.Close() })
	url := "redis://" + srv.Addr
	loops := []string{"demo-traffic", "queue-reaper", history.RecorderLoop, "season-rollover", "schedules"}

	// The first instance takes every loop; the others stand by.
	first := startInstance(t, url)
	for _, loop := range loops {
		err := redistest.Poll(10*time.Second, func() error {
			if h, err := singletonHolder(ctx, rdb, loop); err != nil || h.pid != first.cmd.Process.Pid {
				return fmt.Errorf("%s: %+v, %v", loop, h, err)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("the first instance does not run %v", err)
		}
	}
	all := []*instance{first, startInstance(t, url), startInstance(t, url)}
	byPid := map[int]*instance{}
	for _, in := range all {
		byPid[in.cmd.Process.Pid] = in
	}
	// Both others have campaigned and stand by (each says so once, after its first try).
	for _, in := range all[1:] {
		err := redistest.Poll(10*time.Second, func() error {
			if n := strings.Count(in.out.String(), "a singleton loop runs in another instance; standing by"); n != len(loops) {
				return fmt.Errorf("%d standing-by lines", n)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("instance %s: %v\n%s", in.addr, err, in.out)
		}
	}
	// Meanwhile the lock's holder and fence are watched: the fence never goes down.
	var (
		mu       sync.Mutex
		watchErr error
		seen     = map[string][]holder{}
	)
	stopWatch, watched := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watched)
		last := map[string]int64{}
		for {
			for _, loop := range loops {
				h, err := singletonHolder(ctx, rdb, loop)
				if err != nil {
					continue // between terms
				}
				mu.Lock()
				if h.fence < last[loop] && watchErr == nil {
					watchErr = fmt.Errorf("%s's fence went down from %d to %d", loop, last[loop], h.fence)
				}
				if s := seen[loop]; len(s) == 0 || s[len(s)-1] != h {
					seen[loop] = append(s, h)
				}
				mu.Unlock()
				last[loop] = h.fence
			}
			select {
			case <-stopWatch:
				return
			case <-time.After(10 * time.Millisecond): // an observer's sampling rate
			}
		}
	}()
	for _, in := range all {
		for _, loop := range loops {
			want := 0
			if in == first {
				want = 1
			}
			if n := len(in.terms(loop)); n != want {
				t.Errorf("instance %s began %d terms of %s, want %d", in.addr, n, loop, want)
			}
		}
	}

	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	<-first.exited
	// Both loops are watched at once, so each takeover is timed from the kill, not after the
	// other's.
	took := map[string]time.Duration{}
	err = redistest.Poll(3*locks.SingletonTakeover, func() error {
		for _, loop := range loops {
			if _, done := took[loop]; done {
				continue
			}
			if h, err := singletonHolder(ctx, rdb, loop); err == nil && h.pid != first.cmd.Process.Pid {
				took[loop] = time.Since(killed)
				if byPid[h.pid] == nil {
					return fmt.Errorf("%s is held by pid %d, none of the instances", loop, h.pid)
				}
				t.Logf("%s: SIGKILL of its holder; instance %d took over %v later (bound SingletonTakeover = %v)",
					loop, h.pid, took[loop].Round(time.Millisecond), locks.SingletonTakeover)
			}
		}
		if len(took) < len(loops) {
			return fmt.Errorf("taken over: %v", took)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("after SIGKILL of the holder: %v", err)
	}
	close(stopWatch)
	<-watched
	if watchErr != nil {
		t.Error(watchErr)
	}
	// One new term per loop, in one surviving instance, with a fence above the first term's.
	// An instance logs its term just after its lease is taken: the log line may come a moment
	// after the lease that the poll above saw.
	termsAfter := func(loop string) []int64 {
		var next []int64
		for _, in := range all[1:] {
			next = append(next, in.terms(loop)...)
		}
		return next
	}
	redistest.Poll(2*time.Second, func() error {
		for _, loop := range loops {
			if len(termsAfter(loop)) == 0 {
				return fmt.Errorf("%s: no term logged yet", loop)
			}
		}
		return nil
	})
	for _, loop := range loops {
		firstFence := first.terms(loop)[0]
		next := termsAfter(loop)
		if len(next) != 1 || next[0] <= firstFence {
			t.Errorf("%s: terms after the kill %v (the killed holder's fence %d); want one, with a higher fence", loop, next, firstFence)
		}
		mu.Lock()
		t.Logf("%s: holders seen (pid, fence): %v", loop, seen[loop])
		mu.Unlock()
	}
}
