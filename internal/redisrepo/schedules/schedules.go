package schedules

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/queues"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// Schedules keeps recurring schedules in Redis and runs them (Tick, Run).
type Schedules struct {
	rdb    redis.UniversalClient
	keys   store.Keys
	queues *queues.Queues
	clock  domain.Clock // periods and the jobs' enqueue time (the queues' clock)
}

var _ domain.ScheduleService = (*Schedules)(nil)

// NewSchedules returns the schedules kept in rdb under keys, enqueueing on q.
func NewSchedules(rdb redis.UniversalClient, keys store.Keys, q *queues.Queues, c store.Clocks) *Schedules {
	return &Schedules{rdb: rdb, keys: keys, queues: q, clock: c.Local()}
}

// Now is the schedules' clock.
func (s *Schedules) Now() time.Time { return s.clock.Now() }

func (s *Schedules) CreateSchedule(ctx context.Context, spec domain.ScheduleSpec) (domain.Schedule, error) {
	if err := spec.Validate(); err != nil {
		return domain.Schedule{}, err
	}
	now := s.clock.Now().Truncate(time.Millisecond)
	t, err := timingOf(spec, now)
	if err != nil {
		return domain.Schedule{}, err
	}
	if spec.Zone == "" {
		spec.Zone = "UTC"
	}
	if err := s.checkQueue(ctx, spec); err != nil {
		return domain.Schedule{}, err
	}
	sc := domain.Schedule{ScheduleSpec: spec, Created: now, NextRun: t.next(now)}
	claimed, err := claimScript.Run(ctx, s.rdb, []string{s.keys.ScheduleIndex()}, spec.Name, spec.Queue).Int()
	if err != nil {
		return domain.Schedule{}, store.OpWriteError("schedules.Schedules.CreateSchedule", err)
	}
	if claimed == 0 {
		return domain.Schedule{}, domain.FieldErrorf("name", domain.ECONFLICT, "a schedule named %q exists already (on another queue); delete it first or choose another name", spec.Name)
	}
	created, err := createScript.Run(ctx, s.rdb, []string{s.keys.Schedule(spec.Queue, spec.Name)}, encode(sc)...).Int()
	if err != nil {
		return domain.Schedule{}, store.OpWriteError("schedules.Schedules.CreateSchedule", err)
	}
	if created == 0 {
		return domain.Schedule{}, domain.FieldErrorf("name", domain.ECONFLICT, "a schedule named %q exists already on queue %q; delete it first or choose another name", spec.Name, spec.Queue)
	}
	return sc, nil
}

// checkQueue refuses a queue zpulse does not know (never written to, no settings, not in the
// index) and a job that does not fit the queue's kind. Returns EINVALID naming the field.
func (s *Schedules) checkQueue(ctx context.Context, spec domain.ScheduleSpec) error {
	var member *redis.BoolCmd
	var exists, settings *redis.IntCmd
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		member = p.SIsMember(ctx, s.keys.QueueIndex(), spec.Queue)
		exists = p.Exists(ctx, s.keys.Queue(spec.Queue))
		settings = p.Exists(ctx, s.keys.QueueSettings(spec.Queue))
		return nil
	})
	if err != nil {
		return store.OpError("schedules.Schedules.checkQueue", err)
	}
	if !member.Val() && exists.Val() == 0 && settings.Val() == 0 {
		return domain.FieldErrorf("queue", domain.EINVALID, "queue %q is unknown: enqueue a job on it or save its settings first", spec.Queue)
	}
	qs, err := s.queues.Settings(ctx, spec.Queue)
	if err != nil {
		return err
	}
	return spec.CheckKind(qs.Kind)
}

func (s *Schedules) Schedules(ctx context.Context) ([]domain.Schedule, error) {
	index, err := s.rdb.HGetAll(ctx, s.keys.ScheduleIndex()).Result()
	if err != nil {
		return nil, store.OpError("schedules.Schedules.Schedules", err)
	}
	if len(index) == 0 {
		return []domain.Schedule{}, nil
	}
	cmds := make(map[string]*redis.MapStringStringCmd, len(index))
	_, err = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for name, queue := range index {
			cmds[name] = p.HGetAll(ctx, s.keys.Schedule(queue, name))
		}
		return nil
	})
	if err != nil {
		return nil, store.OpError("schedules.Schedules.Schedules", err)
	}
	out := make([]domain.Schedule, 0, len(index))
	for name, cmd := range cmds {
		if len(cmd.Val()) == 0 {
			continue // a create or delete cut short between the index and the schedule
		}
		out = append(out, decode(name, index[name], cmd.Val()))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (s *Schedules) Schedule(ctx context.Context, name string) (domain.Schedule, error) {
	if err := domain.ValidateScheduleName(name); err != nil {
		return domain.Schedule{}, err
	}
	queue, err := s.rdb.HGet(ctx, s.keys.ScheduleIndex(), name).Result()
	if err == redis.Nil {
		return domain.Schedule{}, notFound(name)
	}
	if err != nil {
		return domain.Schedule{}, store.OpError("schedules.Schedules.Schedule", err)
	}
	h, err := s.rdb.HGetAll(ctx, s.keys.Schedule(queue, name)).Result()
	if err != nil {
		return domain.Schedule{}, store.OpError("schedules.Schedules.Schedule", err)
	}
	if len(h) == 0 {
		return domain.Schedule{}, notFound(name)
	}
	return decode(name, queue, h), nil
}

func notFound(name string) error {
	return domain.Errorf(domain.ENOTFOUND, "no schedule named %q", name)
}

func (s *Schedules) DeleteSchedule(ctx context.Context, name string) error {
	sc, err := s.Schedule(ctx, name)
	if err != nil {
		return err
	}
	// The schedule first, then its name: a delete cut short leaves a name without a
	// schedule, which lists and runs ignore and a create of that name on that queue reuses.
	if err := s.rdb.Del(ctx, s.keys.Schedule(sc.Queue, name)).Err(); err != nil {
		return store.OpWriteError("schedules.Schedules.DeleteSchedule", err)
	}
	if err := unclaimScript.Run(ctx, s.rdb, []string{s.keys.ScheduleIndex()}, name, sc.Queue).Err(); err != nil {
		return store.OpWriteError("schedules.Schedules.DeleteSchedule", err)
	}
	return nil
}

func (s *Schedules) PauseSchedule(ctx context.Context, name string) (domain.Schedule, error) {
	return s.pause(ctx, name, true)
}

func (s *Schedules) ResumeSchedule(ctx context.Context, name string) (domain.Schedule, error) {
	return s.pause(ctx, name, false)
}

func (s *Schedules) pause(ctx context.Context, name string, pause bool) (domain.Schedule, error) {
	sc, err := s.Schedule(ctx, name)
	if err != nil {
		return domain.Schedule{}, err
	}
	t, err := timingOf(sc.ScheduleSpec, sc.Created)
	if err != nil {
		return domain.Schedule{}, err
	}
	next := t.next(s.clock.Now())
	ok, err := pauseScript.Run(ctx, s.rdb, []string{s.keys.Schedule(sc.Queue, name)}, boolArg(pause), next.UnixMilli()).Int()
	if err != nil {
		return domain.Schedule{}, store.OpWriteError("schedules.Schedules.pause", err)
	}
	if ok == 0 {
		return domain.Schedule{}, notFound(name)
	}
	return s.Schedule(ctx, name)
}

func (s *Schedules) RunScheduleNow(ctx context.Context, name string) (domain.ScheduleRun, error) {
	sc, err := s.Schedule(ctx, name)
	if err != nil {
		return domain.ScheduleRun{}, err
	}
	run, err := s.fire(ctx, sc, s.clock.Now(), true)
	if err != nil {
		return domain.ScheduleRun{}, err
	}
	return run, nil
}

// errNotRun marks a fire that ran nothing: the schedule is gone, paused, or another run
// advanced it first.
var errNotRun = domain.Errorf(domain.ECONFLICT, "the schedule did not run: it changed meanwhile")

// fire runs a schedule once at now: its due period (the last period start at or before now)
// or, with manual, now itself (run now). One script on the queue's slot (fireScript).
func (s *Schedules) fire(ctx context.Context, sc domain.Schedule, now time.Time, manual bool) (domain.ScheduleRun, error) {
	now = now.Truncate(time.Millisecond)
	t, err := timingOf(sc.ScheduleSpec, sc.Created)
	if err != nil {
		return domain.ScheduleRun{}, err
	}
	period, following, mode := now, time.Time{}, "now"
	if !manual {
		period, following = t.due(sc.NextRun, now)
		mode = "period"
	}
	job := domain.NewJob{ID: domain.ScheduledJobID(sc.Name, period), Type: sc.Job.Type, Priority: sc.Job.Priority, HasPriority: sc.Job.HasPriority,
		Delay: sc.Job.Delay, Payload: sc.Job.Payload}
	qkeys, qargs, err := s.queues.EnqueueStep(sc.Queue, &job, now)
	if err != nil {
		return domain.ScheduleRun{}, err
	}
	keys := append([]string{s.keys.Schedule(sc.Queue, sc.Name)}, qkeys...)
	args := append([]any{mode, sc.NextRun.UnixMilli(), period.UnixMilli(), following.UnixMilli()}, qargs...)
	vals, err := fireScript.Run(ctx, s.rdb, keys, args...).Slice()
	if err != nil {
		return domain.ScheduleRun{}, store.OpWriteError("schedules.Schedules.fire", err)
	}
	code, _ := vals[0].(int64)
	switch code {
	case 1:
	case -10:
		return domain.ScheduleRun{}, notFound(sc.Name)
	case -11, -12:
		return domain.ScheduleRun{}, errNotRun
	default:
		return domain.ScheduleRun{}, fmt.Errorf("schedules.Schedules.fire: unexpected reply %v", vals)
	}
	run := domain.ScheduleRun{Schedule: sc.Name, Queue: sc.Queue, Period: period, JobID: job.ID}
	_, err = s.queues.EnqueueReply(sc.Queue, job, vals[1:])
	switch {
	case err == nil:
		run.Enqueued = true
	case domain.ErrorCode(err) == domain.ECONFLICT: // the period's job is there already, or ran
	case domain.ErrorCode(err) == domain.EINVALID: // the queue's kind changed: last_error says so
	default:
		return domain.ScheduleRun{}, err
	}
	return run, nil
}

// Tick runs every schedule whose next period has started by the clock's now, once each (the
// last period due, however many were missed), and returns what ran. A schedule that fails is
// left for the next tick; the others run all the same, and the first error is returned.
func (s *Schedules) Tick(ctx context.Context) ([]domain.ScheduleRun, error) {
	all, err := s.Schedules(ctx)
	if err != nil {
		return nil, err
	}
	now := s.clock.Now()
	var runs []domain.ScheduleRun
	var first error
	for _, sc := range all {
		if sc.Paused || sc.NextRun.IsZero() || sc.NextRun.After(now) {
			continue
		}
		run, err := s.fire(ctx, sc, now, false)
		switch {
		case err == nil:
			runs = append(runs, run)
		case err == errNotRun:
		case first == nil:
			first = fmt.Errorf("schedule %q: %w", sc.Name, err)
		}
	}
	return runs, first
}

// Run ticks every `every` until ctx ends, in one instance at a time (the "schedules"
// singleton), calling ran after a tick that ran something and failed after one that failed.
func (s *Schedules) Run(ctx context.Context, every time.Duration, ran func([]domain.ScheduleRun), failed func(error)) error {
	tk := time.NewTicker(every)
	defer tk.Stop()
	for {
		runs, err := s.Tick(ctx)
		if len(runs) > 0 && ran != nil {
			ran(runs)
		}
		if err != nil && failed != nil && ctx.Err() == nil {
			failed(err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tk.C:
		}
	}
}

func boolArg(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// encode is a schedule's HASH fields, as createScript's arguments.
func encode(sc domain.Schedule) []any {
	prio := ""
	if sc.Job.HasPriority {
		prio = strconv.Itoa(sc.Job.Priority)
	}
	return []any{
		"queue", sc.Queue, "every_ms", sc.Every.Milliseconds(), "cron", sc.Cron, "zone", sc.Zone,
		"type", sc.Job.Type, "priority", prio, "delay_ms", sc.Job.Delay.Milliseconds(), "payload", string(sc.Job.Payload),
		"created_ms", sc.Created.UnixMilli(), "next_ms", sc.NextRun.UnixMilli(), "last_ms", 0, "last_job", "", "last_error", "",
		"paused", boolArg(sc.Paused),
	}
}

// decode reads a schedule's HASH.
func decode(name, queue string, h map[string]string) domain.Schedule {
	ms := func(f string) time.Time {
		n, _ := strconv.ParseInt(h[f], 10, 64)
		if n == 0 {
			return time.Time{}
		}
		return time.UnixMilli(n).UTC()
	}
	every, _ := strconv.ParseInt(h["every_ms"], 10, 64)
	delay, _ := strconv.ParseInt(h["delay_ms"], 10, 64)
	sc := domain.Schedule{
		ScheduleSpec: domain.ScheduleSpec{Name: name, Queue: queue, Every: time.Duration(every) * time.Millisecond, Cron: h["cron"], Zone: h["zone"],
			Job: domain.ScheduledJob{Type: h["type"], Delay: time.Duration(delay) * time.Millisecond}},
		Created: ms("created_ms"), NextRun: ms("next_ms"), LastRun: ms("last_ms"), LastJob: h["last_job"], LastError: h["last_error"],
		Paused: h["paused"] == "1",
	}
	if sc.Paused {
		sc.NextRun = time.Time{} // a resume starts at the first period after it
	}
	if p, err := strconv.Atoi(h["priority"]); err == nil && h["priority"] != "" {
		sc.Job.Priority, sc.Job.HasPriority = p, true
	}
	if h["payload"] != "" {
		sc.Job.Payload = json.RawMessage(h["payload"])
	}
	return sc
}
