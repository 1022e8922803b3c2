package notify_test

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/redisrepo/notify"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// recorder is a notifier under test with what its callbacks received.
type recorder struct {
	n       *notify.Notifier
	disc    *store.Discovery
	keys    chan string
	resubs  chan struct{}
	rateMu  sync.Mutex
	rateNew []string
}

// start runs a notifier of mode over rdb until the test ends, with short probe and refresh
// periods (refresh 0: one minute, so only the probe notices a silence).
func start(t *testing.T, rdb redis.UniversalClient, mode notify.Mode, refresh time.Duration) *recorder {
	t.Helper()
	if refresh == 0 {
		refresh = time.Minute
	}
	r := &recorder{keys: make(chan string, 1000), resubs: make(chan struct{}, 100)}
	r.disc = store.NewDiscovery(rdb, store.DefaultKeys, func(_ context.Context, keys []string) {
		r.rateMu.Lock()
		r.rateNew = append(r.rateNew, keys...)
		r.rateMu.Unlock()
	})
	r.n = notify.New(rdb, notify.Options{
		Mode: mode, Keys: store.DefaultKeys, Discovery: r.disc, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		ProbeEvery: 100 * time.Millisecond, RefreshEvery: refresh,
	})
	on := notify.Handlers{
		OnChange: func(_ context.Context, keys []string) {
			for _, k := range keys {
				r.keys <- k
			}
		},
		OnResubscribed: func() {
			select {
			case r.resubs <- struct{}{}:
			default:
			}
		},
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); r.n.Run(ctx, on) }()
	t.Cleanup(func() { cancel(); <-done })
	return r
}

// waitOn waits until the notifier follows notifications.
func (r *recorder) waitOn(t *testing.T) {
	t.Helper()
	err := redistest.Poll(10*time.Second, func() error {
		if s := r.n.State(); !s.On {
			return errorString(s.Why)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

// await waits for key to reach the callback and returns how long it took from since.
func (r *recorder) await(t *testing.T, key string, since time.Time, within time.Duration) time.Duration {
	t.Helper()
	if !r.arrives(key, within) {
		t.Fatalf("%s did not reach the callback within %v (state %+v)", key, within, r.n.State())
	}
	return time.Since(since)
}

// arrives reports whether key reaches the callback within the time given.
func (r *recorder) arrives(key string, within time.Duration) bool {
	timeout := time.NewTimer(within)
	defer timeout.Stop()
	for {
		select {
		case k := <-r.keys:
			if k == key {
				return true
			}
		case <-timeout.C:
			return false
		}
	}
}

// foreignWrites makes another service's write of each kind and checks each key reaches the
// callback promptly and each new name is known to discovery at once.
func foreignWrites(t *testing.T, rdb redis.UniversalClient, r *recorder, tag string) {
	t.Helper()
	ctx := context.Background()
	k := store.DefaultKeys
	writes := []struct {
		key   string
		write func() error
	}{
		{k.Leaderboard("b" + tag), func() error { return rdb.ZIncrBy(ctx, k.Leaderboard("b"+tag), 5, "ada").Err() }},
		{k.Queue("q" + tag), func() error {
			return rdb.ZAdd(ctx, k.Queue("q"+tag), redis.Z{Score: 1, Member: "job-1"}).Err()
		}},
		{k.Lock("l" + tag), func() error { return rdb.SetNX(ctx, k.Lock("l"+tag), "tok", 5*time.Second).Err() }},
		{k.RatePrefix + "c" + tag, func() error {
			return rdb.ZAdd(ctx, k.RatePrefix+"c"+tag, redis.Z{Score: float64(time.Now().UnixMilli()), Member: "r1"}).Err()
		}},
	}
	for _, w := range writes {
		began := time.Now()
		if err := w.write(); err != nil {
			t.Fatal(err)
		}
		took := r.await(t, w.key, began, 10*time.Second) // a guard against a hang
		t.Logf("%s: write → callback %v", w.key, took)
	}
	for kind, name := range map[store.Kind]string{store.KindBoard: "b" + tag, store.KindQueue: "q" + tag, store.KindLock: "l" + tag} {
		if !slices.Contains(r.disc.Names(kind), name) {
			t.Errorf("discovery does not know %q of kind %d without a sweep: %v", name, kind, r.disc.Names(kind))
		}
	}
	r.rateMu.Lock()
	defer r.rateMu.Unlock()
	if !slices.Contains(r.rateNew, k.RatePrefix+"c"+tag) {
		t.Errorf("the new sliding log was not handed to the limiters: %v", r.rateNew)
	}
}

func TestForeignWritesReachTheCallback(t *testing.T) {
	redistest.ForEachTopology(t, func(t *testing.T, rdb redis.UniversalClient) {
		r := start(t, rdb, notify.On, 0)
		r.waitOn(t)
		foreignWrites(t, rdb, r, "1")
		// Boards on every master of a Cluster (their names' slots spread over the three).
		for i := range 12 {
			key := store.DefaultKeys.Leaderboard("spread-" + strconv.Itoa(i))
			began := time.Now()
			if err := rdb.ZAdd(context.Background(), key, redis.Z{Score: 1, Member: "p"}).Err(); err != nil {
				t.Fatal(err)
			}
			r.await(t, key, began, 10*time.Second) // a guard against a hang
		}
		if c, ok := rdb.(*redis.ClusterClient); ok {
			masters := map[string]bool{}
			for i := range 12 {
				key := store.DefaultKeys.Leaderboard("spread-" + strconv.Itoa(i))
				node, err := c.MasterForKey(context.Background(), key)
				if err != nil {
					t.Fatal(err)
				}
				masters[node.Options().Addr] = true
			}
			if len(masters) < 3 {
				t.Errorf("the boards fell on %d masters only", len(masters))
			}
		}
	})
}

func TestFollowsASentinelFailover(t *testing.T) {
	s := redistest.SharedSentinel(t)
	rdb := redistest.SentinelClient(t)
	r := start(t, rdb, notify.On, 200*time.Millisecond)
	r.waitOn(t)
	foreignWrites(t, rdb, r, "before")
	s.Failover(t)
	// The new master's setting is added at the next refresh, and a subscription left on the
	// old master that stops hearing its probe is made again: within a few probes, notifications
	// are on again on the new master. The state may still say on from before the failover
	// until a probe goes unheard, so what is awaited is a write on the new master heard.
	ctx := context.Background()
	err := redistest.Poll(30*time.Second, func() error {
		key := store.DefaultKeys.Leaderboard("after-failover")
		if err := rdb.ZIncrBy(ctx, key, 1, "p").Err(); err != nil {
			return err
		}
		if !r.arrives(key, 250*time.Millisecond) {
			return errorString("a write on the new master was not heard (state " + r.n.State().Why + ")")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	foreignWrites(t, rdb, r, "after")
}

func TestOffOnlyPolls(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	r := start(t, rdb, notify.Off, 0)
	if s := r.n.State(); s.On || s.Why != "--live-notifications off" {
		t.Fatalf("state %+v", s)
	}
	n := notify.New(rdb, notify.Options{Mode: notify.On, Embedded: true})
	if s := n.State(); s.On || !strings.Contains(s.Why, "embedded Redis sends no keyspace notifications") {
		t.Fatalf("embedded state %+v", s)
	}
}

func TestResubscribesAfterItsConnectionIsKilled(t *testing.T) {
	t.Parallel()
	srv := redistest.StartArgs(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer rdb.Close()
	r := start(t, rdb, notify.On, 0)
	r.waitOn(t)
	<-r.resubs // the first subscription
	seen := r.heardAfterAGap(t, 0)
	if err := rdb.ClientKillByFilter(context.Background(), "TYPE", "pubsub").Err(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.resubs:
	case <-time.After(5 * time.Second):
		t.Fatalf("no resubscription after CLIENT KILL TYPE pubsub (state %+v)", r.n.State())
	}
	r.heardAfterAGap(t, seen)
	foreignWrites(t, rdb, r, "k")
}

// heardAfterAGap checks that, right after a subscription (re)started, Heard counts one gap
// more than before it (seen: the count before; the events of the gap are lost, so the locks'
// read makes one lock step), that asking changes nothing, and that it says on once the
// notifier follows notifications again.
func (r *recorder) heardAfterAGap(t *testing.T, seen uint64) uint64 {
	t.Helper()
	_, gaps := r.n.Heard()
	if gaps <= seen {
		t.Errorf("Heard counts %d gaps after a subscription (re)started, %d before", gaps, seen)
	}
	if _, again := r.n.Heard(); again != gaps {
		t.Errorf("asking Heard again changed its count from %d to %d", gaps, again)
	}
	r.waitOn(t)
	if err := redistest.Poll(5*time.Second, func() error {
		if on, _ := r.n.Heard(); !on {
			return errorString("Heard says off while notifications are on")
		}
		return nil
	}); err != nil {
		t.Error(err)
	}
	_, gaps = r.n.Heard()
	return gaps
}

func TestConfigRefusedSaysSoAndPolls(t *testing.T) {
	t.Parallel()
	srv := redistest.StartArgs(t, "--rename-command", "CONFIG", "")
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer rdb.Close()
	for _, mode := range []notify.Mode{notify.On, notify.Auto} {
		r := start(t, rdb, mode, 0)
		err := redistest.Poll(5*time.Second, func() error {
			if s := r.n.State(); s.On || !strings.Contains(s.Why, "refused CONFIG") || !strings.Contains(s.Why, notify.Classes) {
				return errorString(s.Why)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("mode %s: %v", mode, err)
		}
	}
}

func TestOnAddsClassesAndRemovesNone(t *testing.T) {
	t.Parallel()
	srv := redistest.StartArgs(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer rdb.Close()
	ctx := context.Background()
	if err := rdb.ConfigSet(ctx, "notify-keyspace-events", "Elt").Err(); err != nil {
		t.Fatal(err)
	}
	auto := start(t, rdb, notify.Auto, 0)
	err := redistest.Poll(5*time.Second, func() error {
		if s := auto.n.State(); s.On || !strings.Contains(s.Why, "without "+notify.Missing("Elt")) {
			return errorString(s.Why)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("auto on a server without the classes: %v", err)
	}
	r := start(t, rdb, notify.On, 0)
	r.waitOn(t)
	have := rdb.ConfigGet(ctx, "notify-keyspace-events").Val()["notify-keyspace-events"]
	if notify.Missing(have) != "" || !strings.ContainsAny(have, "E") || !strings.Contains(have, "l") || !strings.Contains(have, "t") {
		t.Fatalf("notify-keyspace-events is %q: want Elt kept and %s added", have, notify.Classes)
	}
}

func TestProbeNoticesSilenceAndRecovers(t *testing.T) {
	t.Parallel()
	srv := redistest.StartArgs(t, "--notify-keyspace-events", "KA")
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer rdb.Close()
	ctx := context.Background()
	r := start(t, rdb, notify.Auto, 0) // refresh once a minute: only the probe can notice
	r.waitOn(t)
	if err := rdb.ConfigSet(ctx, "notify-keyspace-events", "").Err(); err != nil {
		t.Fatal(err)
	}
	err := redistest.Poll(5*time.Second, func() error {
		if s := r.n.State(); s.On || !strings.Contains(s.Why, "no keyspace event came back for the probe") {
			return errorString("state " + s.Why)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := rdb.ConfigSet(ctx, "notify-keyspace-events", "KA").Err(); err != nil {
		t.Fatal(err)
	}
	r.waitOn(t)
}

func TestMissing(t *testing.T) {
	t.Parallel()
	for have, want := range map[string]string{"": "Kg$hzx", "KA": "", "AK": "", "Ez": "Kg$hx", "Kg$hzxE": "", "gxK": "$hz"} {
		if got := notify.Missing(have); got != want {
			t.Errorf("Missing(%q) = %q, want %q", have, got, want)
		}
	}
}
