package redisrepo

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/locks"
	"github.com/zpulse/zpulse/internal/redistest"
)

// scheduledIDs is the ids of the jobs waiting in queue, sorted.
func scheduledIDs(t *testing.T, rdb redis.UniversalClient, queue string) []string {
	t.Helper()
	ids, err := rdb.ZRange(context.Background(), "queue:"+queue, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(ids)
	return ids
}

// Three instances on one Redis (and on the Cluster) tick at the same moments of one clock,
// side by side: each period enqueues exactly one job, whose id is the schedule's and the
// period's; a tick between two periods enqueues nothing; a schedule that missed five periods
// (no instance ran) runs once, for the last of them, and then goes on from the next.
func TestScheduleOneJobPerPeriodOnThreeInstances(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		clock := domain.NewManualClock(testNow)
		instances := []*Services{openTest(t, rdb, clock), openTest(t, rdb, clock), openTest(t, rdb, clock)}
		if _, err := instances[0].Queues.Enqueue(ctx, "digest", domain.NewJob{ID: "first", Priority: 1, HasPriority: true}); err != nil {
			t.Fatal(err)
		}
		sc, err := instances[1].Schedules.CreateSchedule(ctx, domain.ScheduleSpec{Name: "nightly-digest", Queue: "digest", Every: time.Minute,
			Job: domain.ScheduledJob{Type: "digest.send", Priority: 5, HasPriority: true, Payload: []byte(`{"to":"all"}`)}})
		if err != nil {
			t.Fatal(err)
		}
		if !sc.NextRun.Equal(testNow.Add(time.Minute)) || sc.Zone != "UTC" {
			t.Fatalf("created %+v; want the first run a minute after creation, in UTC", sc)
		}
		tickAll := func() []domain.ScheduleRun {
			t.Helper()
			var mu sync.Mutex
			var runs []domain.ScheduleRun
			var wg sync.WaitGroup
			for _, in := range instances {
				wg.Go(func() {
					r, err := in.Schedules.Tick(ctx)
					if err != nil {
						t.Error(err)
					}
					mu.Lock()
					runs = append(runs, r...)
					mu.Unlock()
				})
			}
			wg.Wait()
			return runs
		}
		want := []string{"first"}
		for i := 1; i <= 4; i++ {
			clock.Advance(30 * time.Second)
			if runs := tickAll(); len(runs) != 0 {
				t.Fatalf("half a period on: %+v ran; want nothing", runs)
			}
			clock.Advance(30 * time.Second)
			runs := tickAll()
			period := testNow.Add(time.Duration(i) * time.Minute)
			id := domain.ScheduledJobID("nightly-digest", period)
			if len(runs) != 1 || runs[0].JobID != id || !runs[0].Enqueued {
				t.Fatalf("period %d: runs %+v; want one, of %s", i, runs, id)
			}
			want = append(want, id)
		}
		// An outage of five periods: the last one runs, once.
		clock.Advance(5*time.Minute + 10*time.Second)
		runs := tickAll()
		last := testNow.Add(9 * time.Minute)
		if len(runs) != 1 || runs[0].JobID != domain.ScheduledJobID("nightly-digest", last) {
			t.Fatalf("after the outage: runs %+v; want one, for %v", runs, last)
		}
		want = append(want, runs[0].JobID)
		slices.Sort(want)
		if got := scheduledIDs(t, rdb, "digest"); !slices.Equal(got, want) {
			t.Fatalf("queue holds %v; want %v", got, want)
		}
		got, err := instances[2].Schedules.Schedule(ctx, "nightly-digest")
		if err != nil {
			t.Fatal(err)
		}
		if !got.LastRun.Equal(last) || got.LastJob != runs[0].JobID || !got.NextRun.Equal(last.Add(time.Minute)) || got.Job.Type != "digest.send" {
			t.Fatalf("schedule after the outage %+v; want last run %v, next %v", got, last, last.Add(time.Minute))
		}
		// The job carries the schedule's priority and payload.
		job, err := instances[0].Queues.Job(ctx, "digest", runs[0].JobID)
		if err != nil {
			t.Fatal(err)
		}
		if job.Priority == nil || *job.Priority != 5 || string(job.Payload) != `{"to":"all"}` {
			t.Fatalf("job %+v; want priority 5 and the payload", job)
		}
	})
}

// The instance running the schedules (under the "schedules" singleton, as run.go runs them)
// stops and comes back as a new instance, twice, while three instances share the Redis: every
// period's job is enqueued once, none twice, none lost. The clock moves one period at a time,
// and the test waits for that period's job (polling Redis), never for time itself.
func TestScheduleSurvivesARestartOfItsInstance(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		clock := domain.NewManualClock(testNow)
		type instance struct {
			name string
			svc  *Services
			stop context.CancelFunc
			done sync.WaitGroup
		}
		var mu sync.Mutex
		ranBy := map[string]string{} // job id -> the instance that enqueued it
		twice := []string{}
		start := func(name string) *instance {
			in := &instance{name: name, svc: openTest(t, rdb, clock)}
			ictx, stop := context.WithCancel(ctx)
			in.stop = stop
			in.done.Go(func() { in.svc.Locks.Watchdog().Run(ictx) })
			in.done.Go(func() {
				_ = in.svc.Singletons.Run(ictx, "schedules", func(ctx context.Context, _ int64) error {
					return in.svc.Schedules.Run(ctx, 20*time.Millisecond, func(runs []domain.ScheduleRun) {
						mu.Lock()
						defer mu.Unlock()
						for _, r := range runs {
							if !r.Enqueued {
								continue
							}
							if _, ok := ranBy[r.JobID]; ok {
								twice = append(twice, r.JobID)
							}
							ranBy[r.JobID] = name
						}
					}, func(err error) { t.Error(err) })
				})
			})
			t.Cleanup(func() { stop(); in.done.Wait() })
			return in
		}
		instances := []*instance{start("a"), start("b"), start("c")}
		if _, err := instances[0].svc.Queues.PatchSettings(ctx, "reports", domain.QueueSettingsPatch{Kind: ptr(domain.DelayedQueue)}); err != nil {
			t.Fatal(err)
		}
		if _, err := instances[0].svc.Queues.Enqueue(ctx, "reports", domain.NewJob{ID: "seed", Delay: time.Hour}); err != nil {
			t.Fatal(err)
		}
		if _, err := instances[0].svc.Schedules.CreateSchedule(ctx, domain.ScheduleSpec{Name: "minutely", Queue: "reports", Cron: "* * * * *"}); err != nil {
			t.Fatal(err)
		}
		period := 0
		nextPeriod := func() string {
			t.Helper()
			period++
			clock.Advance(time.Minute)
			id := domain.ScheduledJobID("minutely", testNow.Add(time.Duration(period)*time.Minute))
			err := redistest.Poll(4*locks.SingletonTakeover, func() error {
				mu.Lock()
				defer mu.Unlock()
				if _, ok := ranBy[id]; !ok {
					return fmt.Errorf("period %d's job %s has not run", period, id)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			return ranBy[id]
		}
		for restart := range 2 {
			holder := nextPeriod()
			nextPeriod()
			// The instance running the schedules stops; a new one takes its place.
			for i, in := range instances {
				if in.name == holder {
					in.stop()
					in.done.Wait()
					instances[i] = start(fmt.Sprintf("%s-restarted-%d", holder, restart))
				}
			}
			nextPeriod()
		}
		mu.Lock()
		defer mu.Unlock()
		if len(twice) != 0 {
			t.Fatalf("jobs enqueued twice: %v", twice)
		}
		want := []string{"seed"}
		for p := 1; p <= period; p++ {
			want = append(want, domain.ScheduledJobID("minutely", testNow.Add(time.Duration(p)*time.Minute)))
		}
		slices.Sort(want)
		if got := scheduledIDs(t, rdb, "reports"); !slices.Equal(got, want) {
			t.Fatalf("queue holds %v; want %v (one job a period)", got, want)
		}
		t.Logf("periods ran by %v", ranBy)
	})
}

func ptr[T any](v T) *T { return &v }

// Bad input is refused before anything is written, naming the field.
func TestScheduleCreateRefusesBadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc := openTest(t, redistest.DB(t), domain.NewManualClock(testNow))
	if _, err := svc.Queues.Enqueue(ctx, "mail", domain.NewJob{ID: "x", Priority: 1, HasPriority: true}); err != nil {
		t.Fatal(err)
	}
	ok := domain.ScheduleSpec{Name: "s", Queue: "mail", Every: time.Minute, Job: domain.ScheduledJob{Priority: 1, HasPriority: true}}
	for _, c := range []struct {
		name  string
		edit  func(*domain.ScheduleSpec)
		field string
	}{
		{"bad name", func(s *domain.ScheduleSpec) { s.Name = "a b" }, "name"},
		{"zero every", func(s *domain.ScheduleSpec) { s.Every = 0 }, "every"},
		{"negative every", func(s *domain.ScheduleSpec) { s.Every = -time.Minute }, "every"},
		{"every under a second", func(s *domain.ScheduleSpec) { s.Every = 500 * time.Millisecond }, "every"},
		{"both", func(s *domain.ScheduleSpec) { s.Cron = "* * * * *" }, "every"},
		{"bad cron field", func(s *domain.ScheduleSpec) { s.Every, s.Cron = 0, "61 * * * *" }, "cron"},
		{"six cron fields", func(s *domain.ScheduleSpec) { s.Every, s.Cron = 0, "0 0 * * * *" }, "cron"},
		{"unknown zone", func(s *domain.ScheduleSpec) { s.Zone = "Mars/Olympus" }, "zone"},
		{"unknown queue", func(s *domain.ScheduleSpec) { s.Queue = "nobody-uses-this" }, "queue"},
		{"bad queue name", func(s *domain.ScheduleSpec) { s.Queue = "a b" }, "queue"},
		{"no priority on a priority queue", func(s *domain.ScheduleSpec) { s.Job.HasPriority = false }, "job.priority"},
		{"long type", func(s *domain.ScheduleSpec) { s.Job.Type = string(make([]byte, 65)) }, "job.type"},
	} {
		spec := ok
		c.edit(&spec)
		_, err := svc.Schedules.CreateSchedule(ctx, spec)
		if domain.ErrorCode(err) != domain.EINVALID || domain.ErrorField(err) != c.field {
			t.Errorf("%s: %v (field %q); want invalid, field %q", c.name, err, domain.ErrorField(err), c.field)
		}
	}
	if all, err := svc.Schedules.Schedules(ctx); err != nil || len(all) != 0 {
		t.Fatalf("schedules %v, %v; want none written", all, err)
	}
	if _, err := svc.Schedules.CreateSchedule(ctx, ok); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Schedules.CreateSchedule(ctx, ok); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Fatalf("the same name again: %v; want conflict", err)
	}
}

// Pause stops the periods, resume starts again at the next one after it (the paused ones do
// not run), run now enqueues beside the periods, delete removes the schedule and leaves its jobs.
func TestSchedulePauseResumeRunNowDelete(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rdb := redistest.DB(t)
	clock := domain.NewManualClock(testNow)
	svc := openTest(t, rdb, clock)
	if _, err := svc.Queues.Enqueue(ctx, "mail", domain.NewJob{ID: "x", Priority: 1, HasPriority: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Schedules.CreateSchedule(ctx, domain.ScheduleSpec{Name: "s", Queue: "mail", Every: 10 * time.Second, Job: domain.ScheduledJob{Priority: 2, HasPriority: true}}); err != nil {
		t.Fatal(err)
	}
	sc, err := svc.Schedules.PauseSchedule(ctx, "s")
	if err != nil || !sc.Paused || !sc.NextRun.IsZero() {
		t.Fatalf("paused: %+v, %v", sc, err)
	}
	clock.Advance(35 * time.Second)
	if runs, err := svc.Schedules.Tick(ctx); err != nil || len(runs) != 0 {
		t.Fatalf("a paused schedule ran %+v, %v", runs, err)
	}
	run, err := svc.Schedules.RunScheduleNow(ctx, "s")
	if err != nil || !run.Enqueued || run.JobID != domain.ScheduledJobID("s", testNow.Add(35*time.Second)) {
		t.Fatalf("run now: %+v, %v", run, err)
	}
	sc, err = svc.Schedules.ResumeSchedule(ctx, "s")
	if err != nil || sc.Paused || !sc.NextRun.Equal(testNow.Add(40*time.Second)) || sc.LastJob != run.JobID {
		t.Fatalf("resumed: %+v, %v; want next at 40 s", sc, err)
	}
	clock.Advance(5 * time.Second)
	if runs, err := svc.Schedules.Tick(ctx); err != nil || len(runs) != 1 || runs[0].JobID != domain.ScheduledJobID("s", testNow.Add(40*time.Second)) {
		t.Fatalf("after resume: %+v, %v", runs, err)
	}
	if err := svc.Schedules.DeleteSchedule(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Schedules.Schedule(ctx, "s"); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("deleted schedule: %v", err)
	}
	for _, f := range []func() error{
		func() error { return svc.Schedules.DeleteSchedule(ctx, "s") },
		func() error { _, err := svc.Schedules.PauseSchedule(ctx, "s"); return err },
		func() error { _, err := svc.Schedules.RunScheduleNow(ctx, "s"); return err },
	} {
		if err := f(); domain.ErrorCode(err) != domain.ENOTFOUND {
			t.Errorf("on a deleted schedule: %v; want not found", err)
		}
	}
	if got := scheduledIDs(t, rdb, "mail"); len(got) != 3 {
		t.Fatalf("queue holds %v; want x and the two runs", got)
	}
}
