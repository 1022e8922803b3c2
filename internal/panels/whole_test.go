package panels_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/panels"
	"github.com/zpulse/zpulse/internal/redisrepo"
	"github.com/zpulse/zpulse/internal/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// recorder keeps the arguments of every command its client sends while on.
type recorder struct {
	mu   sync.Mutex
	on   bool
	cmds [][]any
}

func (r *recorder) DialHook(next redis.DialHook) redis.DialHook { return next }

func (r *recorder) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		r.keep(cmd)
		return next(ctx, cmd)
	}
}

func (r *recorder) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, cmd := range cmds {
			r.keep(cmd)
		}
		return next(ctx, cmds)
	}
}

func (r *recorder) keep(cmd redis.Cmder) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.on && cmd.Name() != "hello" && cmd.Name() != "client" {
		r.cmds = append(r.cmds, cmd.Args())
	}
}

// record runs f with the recorder on and returns the commands f sent.
func (r *recorder) record(f func()) [][]any {
	r.mu.Lock()
	r.on, r.cmds = true, nil
	r.mu.Unlock()
	f()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.on = false
	return r.cmds
}

// keysOf asks Redis which keys each command touches (COMMAND GETKEYS, which knows every
// command's key positions, EVALSHA's numkeys included); commands with no key give none.
func keysOf(t *testing.T, rdb *redis.Client, cmds [][]any) []string {
	t.Helper()
	var keys []string
	for _, args := range cmds {
		if len(args) < 2 { // PING
			continue
		}
		got, err := rdb.Do(context.Background(), append([]any{"command", "getkeys"}, args...)...).StringSlice()
		if err != nil {
			if strings.Contains(err.Error(), "no key arguments") || strings.Contains(err.Error(), "Invalid arguments") {
				continue
			}
			t.Fatalf("COMMAND GETKEYS %v: %v", args, err)
		}
		keys = append(keys, got...)
	}
	return keys
}

// uncovered is the keys w does not watch.
func uncovered(keys []string, w live.Watch) []string {
	var out []string
	for _, k := range keys {
		watched := false
		for _, e := range w.Keys {
			watched = watched || e == k
		}
		for _, p := range w.Prefixes {
			watched = watched || strings.HasPrefix(k, p)
		}
		if !watched {
			out = append(out, k)
		}
	}
	return out
}

// examples is a topic of every kind of panel, over the data seed writes.
var examples = []string{
	domain.TopicStatus,
	domain.TopicBoards,
	panels.Board.Topic(panels.BoardParams{Board: "game:2048", Period: domain.AllTime, N: 10}),
	panels.Board.Topic(panels.BoardParams{Board: "game:2048", Period: domain.Daily, N: 25}),
	domain.TopicQueues,
	panels.Queue.Topic("email"),
	panels.Job.Topic(panels.JobParams{Queue: "email", ID: "job-1"}),
	domain.TopicLimiters,
	panels.Limiter.Topic(domain.DefaultLimiter),
	domain.TopicLocks,
	domain.TopicAudit,
	domain.TopicSchedules,
	panels.History.Topic(panels.ChartParams{Kind: domain.HistoryQueue, Name: "email", Range: domain.HistoryHour}),
	panels.Source.Topic("rl"),
	panels.Source.Topic("sb"),
	panels.Source.Topic("lk"),
}

// open opens the services over rdb as cmd/web does, on the test server's clock; notified is
// OpenOptions.Notified (nil: keyspace notifications never reach discovery).
func open(t *testing.T, rdb redis.UniversalClient, notified func() (on bool, gaps uint64)) *redisrepo.Services {
	t.Helper()
	svc, err := redisrepo.Open(context.Background(), redisrepo.OpenOptions{Client: rdb, Clock: redistest.ServerClock{}, TakePool: 2, Notified: notified})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

// seed writes a board, a queue with a job, a limiter's client, a lock and three adopted
// sources, and lets discovery find them once.
func seed(t *testing.T, rdb *redis.Client) *redisrepo.Services {
	t.Helper()
	ctx := context.Background()
	svc := open(t, rdb, nil)
	must := func(err error) {
		if err != nil {
			t.Helper()
			t.Fatal(err)
		}
	}
	_, err := svc.Leaderboards.UpdateSettings(ctx, "game:2048", domain.BoardSettings{TieBreak: domain.TieBreakNone, Periods: domain.Periods, RetentionDays: 7})
	must(err)
	_, err = svc.Leaderboards.AddPoints(ctx, "game:2048", "ada", 5)
	must(err)
	_, err = svc.Queues.Enqueue(ctx, "email", domain.NewJob{ID: "job-1", Priority: 1, HasPriority: true, Payload: []byte(`{"to":"ada"}`)})
	must(err)
	_, err = svc.Limiters.Allow(ctx, domain.DefaultLimiter, "c-42")
	must(err)
	_, err = svc.Schedules.CreateSchedule(ctx, domain.ScheduleSpec{Name: "digest", Queue: "email", Every: time.Minute, Job: domain.ScheduledJob{Priority: 2, HasPriority: true}})
	must(err)
	_, err = svc.Locks.Acquire(ctx, "order:1", domain.LockOptions{TTL: time.Minute})
	must(err)
	_, err = svc.Sources.SaveSource(ctx, domain.Source{Name: "rl", Kind: domain.SourceLimiter, Key: "ratelog:{client}", Encoding: domain.SourceSlidingLog, Limit: 5, WindowMs: 1000})
	must(err)
	_, err = svc.Sources.SaveSource(ctx, domain.Source{Name: "sb", Kind: domain.SourceBoard, Key: "scores:{yyyymmdd}", Encoding: string(domain.TieBreakNone)})
	must(err)
	_, err = svc.Sources.SaveSource(ctx, domain.Source{Name: "lk", Kind: domain.SourceLock, Key: "mutex:"})
	must(err)
	must(rdb.Set(ctx, "mutex:orders", "tok", time.Minute).Err())
	must(rdb.ZAdd(ctx, "ratelog:c1", redis.Z{Score: float64(time.Now().UnixMilli()), Member: "1"}).Err())
	loop, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { svc.Run(loop); close(done) }()
	must(svc.Discovery.Warm(ctx))
	stop() // the loops send nothing while the panels' reads are recorded
	<-done
	return svc
}

// Every panel watches every key its read touches: a keyspace notification for any of them
// reaches it. Each example is read three times (the first reads of locks and limiters only
// learn what to read) and every key the reads send is held to the panel's watch.
func TestEveryPanelIsWhole(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	rec := &recorder{}
	rdb.AddHook(rec)
	svc := seed(t, rdb)
	keys := redistest.DB(t) // asks COMMAND GETKEYS, unrecorded
	ctx := context.Background()
	for _, topic := range examples {
		cmds := rec.record(func() {
			for range 3 { // the overview learns the names, then each policy, then reads its clients
				if _, err := svc.Snapshots.Read(ctx, []string{topic}, live.Poll{}); err != nil {
					t.Fatalf("%s: %v", topic, err)
				}
			}
		})
		touched := keysOf(t, keys, cmds)
		w := svc.Snapshots.Rooms().Watches(context.Background(), topic)
		t.Logf("%s reads %q", topic, touched)
		if miss := uncovered(touched, w); len(miss) > 0 {
			t.Errorf("%s reads keys it does not watch: %q (it watches %+v)", topic, miss, w)
		}
		if topic != domain.TopicStatus && len(touched) == 0 {
			t.Errorf("%s read no key: the example proves nothing", topic)
		}
	}
}

// The check fails a panel whose read touches a key its watch leaves out.
func TestWholenessCatchesAnUnwatchedKey(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	rec := &recorder{}
	rdb.AddHook(rec)
	svc := seed(t, rdb)
	topic := panels.Board.Topic(panels.BoardParams{Board: "game:2048", Period: domain.AllTime, N: 10})
	cmds := rec.record(func() { _, _ = svc.Snapshots.Read(context.Background(), []string{topic}, live.Poll{}) })
	w := svc.Snapshots.Rooms().Watches(context.Background(), topic)
	w.Prefixes = w.Prefixes[:1] // leaves out the board's own keys (settings, unique players)
	if miss := uncovered(keysOf(t, redistest.DB(t), cmds), w); len(miss) == 0 {
		t.Errorf("a watch without the board's settings passed")
	}
}

// Every panel's fragment replaces the element its declaration names: its root carries ID.
func TestEveryPanelRendersItsElementID(t *testing.T) {
	t.Parallel()
	svc := seed(t, redistest.DB(t))
	render := panels.Renderer(panels.Env{Keys: redisrepo.DefaultKeys.Display()})
	ctx := context.Background()
	for range 3 { // the first reads of locks and limiters only learn what to read
		if _, err := svc.Snapshots.Read(ctx, examples, live.Poll{}); err != nil {
			t.Fatal(err)
		}
	}
	snaps, err := svc.Snapshots.Read(ctx, examples, live.Poll{})
	if err != nil {
		t.Fatal(err)
	}
	snaps[domain.TopicStatus] = live.Status{Available: true}
	for _, topic := range examples {
		snap, ok := snaps[topic]
		if !ok {
			t.Errorf("%s: no snapshot", topic)
			continue
		}
		html, err := render(topic, domain.Admin, snap)
		if err != nil {
			t.Fatalf("%s: %v", topic, err)
		}
		_, rest, _ := strings.Cut(string(html), `id="`)
		id, _, _ := strings.Cut(rest, `"`)
		if want := panels.ElementID(topic); id != want || want == "" {
			t.Errorf("%s: the fragment's root id is %q, its declaration says %q", topic, id, want)
		}
	}
}
