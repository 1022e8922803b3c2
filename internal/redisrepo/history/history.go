package history

import (
	"context"
	"encoding/binary"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/limiters"
	"github.com/zpulse/zpulse/internal/redisrepo/queues"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// History records and reads the history of queues, limiters and boards (domain.HistoryService).
//
// Layout. An entity's history over a range is one STRING, a ring of fixed-size slots (see
// Keys.HistoryRing): slot i holds the bucket whose index (bucket start / step) is ≡ i modulo
// the ring's length. A slot is a big-endian uint32 stamp (the bucket index, so a slot left
// from an older lap reads as "not recorded") followed by one uint32 per series of the kind
// (domain.HistorySeries), saturated at 2^32-1. So the memory is fixed whatever the traffic:
//
//	queue   (10 series, 44-byte slots): 360 × 44 + 1,440 × 44 = 79,200 bytes
//	limiter (2 series, 12-byte slots): 360 × 12 + 1,440 × 12 = 21,600 bytes
//	board   (5 series, 24-byte slots): 43,200 bytes
//
// plus Redis's per-key overhead (about 100 bytes for each of the two strings), and, for
// /metrics, a few fields of its kind's totals hash (Keys.HistoryTotals). A slot is written with one SETRANGE, never read and modified: the recorder computes
// every value from what Redis holds (gauges sampled, counters summed from the per-second
// throughput, limiter and board-add hashes), so a bucket written twice (two recorders during
// a handover, a restart) holds the same value. The rings carry a TTL past their span, so an
// entity that disappears leaves nothing behind.
type History struct {
	rdb   redis.UniversalClient
	keys  store.Keys
	clock domain.Clock
	found *store.Discovery
}

var _ domain.HistoryService = (*History)(nil)

const (
	// HistoryDelay is how long after a bucket ends the recorder writes it: the limiters'
	// per-second counts are flushed every 200 ms (flushEvery), so they are in by then.
	HistoryDelay = time.Second
	// historyHourTTL and historyDayTTL keep a ring a little longer than its span after the
	// last write.
	historyHourTTL = 2 * time.Hour
	historyDayTTL  = 25 * time.Hour
	// maxHistoryValue is what a slot's uint32 holds at most.
	maxHistoryValue = math.MaxUint32
)

func NewHistory(rdb redis.UniversalClient, keys store.Keys, found *store.Discovery, c store.Clocks) *History {
	return &History{rdb: rdb, keys: keys, clock: c.Local(), found: found}
}

// addTotalsScript adds one 10 s bucket's counts of an entity to its kind's totals, once: a
// bucket at or before the last one added for that entity is ignored, so two recorders, or
// one recording again after a restart, never count a bucket twice.
//
// KEYS[1]  zpulse:history:totals:<kind>
// ARGV[1]  the bucket's index (start / 10 s)
// ARGV[2]  the entity's name
// ARGV[3..] series, count, series, count, ...
// Returns  1 added; 0 the bucket was added before
var addTotalsScript = store.NewScript(`
local mark = 'bucket:' .. ARGV[2]
local last = tonumber(redis.call('HGET', KEYS[1], mark))
if last and last >= tonumber(ARGV[1]) then return 0 end
for i = 3, #ARGV, 2 do
  redis.call('HINCRBY', KEYS[1], ARGV[i] .. ':' .. ARGV[2], ARGV[i + 1])
end
redis.call('HSET', KEYS[1], mark, ARGV[1])
return 1
`)

// slotSize is the bytes of one slot of a kind's rings.
func slotSize(kind domain.HistoryKind) int { return 4 + 4*len(domain.HistorySeries[kind]) }

// encodeSlot builds a slot: the stamp, then the values.
func encodeSlot(stamp int64, values []int64) string {
	b := make([]byte, 4+4*len(values))
	binary.BigEndian.PutUint32(b, uint32(stamp))
	for i, v := range values {
		binary.BigEndian.PutUint32(b[4+4*i:], uint32(min(max(v, 0), maxHistoryValue)))
	}
	return string(b)
}

// lastEnded is the index of the newest 10 s bucket that has ended at now.
func lastEnded(now time.Time) int64 {
	return floorDiv(now.UnixMilli(), domain.HistoryStep.Milliseconds()) - 1
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// sample is what the recorder read of one entity, decoded at the end of the read round trip.
type sample struct {
	kind domain.HistoryKind
	name string
	// read returns the values of the 10 s bucket and of its minute so far, in series order.
	read func() (tenSec, minute []int64)
}

// Record reads every known queue, limiter and board and writes the 10 s bucket that ended
// last, and its minute so far, into their rings, and adds the 10 s bucket's counts to the
// totals. Three round trips: the limiters' names, the reads, the writes. Returns EUNAVAILABLE.
func (h *History) Record(ctx context.Context) error {
	now := h.clock.Now()
	bucket := lastEnded(now)
	start := bucket * int64(domain.HistoryStep/time.Second) // unix seconds
	minuteAt := time.Unix(floorDiv(start, 60)*60, 0)
	queues, err := h.found.NamesWarm(ctx, store.KindQueue)
	if err != nil {
		return err
	}
	limiters, err := h.limiterNames(ctx)
	if err != nil {
		return err
	}
	pipe := h.rdb.Pipeline()
	var samples []sample
	for _, q := range queues {
		samples = append(samples, h.planQueue(ctx, pipe, q, now, start, minuteAt))
	}
	for _, l := range limiters {
		samples = append(samples, h.planLimiter(ctx, pipe, l, start, minuteAt))
	}
	for _, b := range h.found.Names(store.KindBoard) {
		samples = append(samples, h.planBoard(ctx, pipe, b, start, minuteAt, now))
	}
	if len(samples) == 0 {
		return nil
	}
	// A queue key of another type samples as empty, and the others are recorded.
	if err := store.ExecTyped(ctx, h.rdb, pipe); err != nil {
		return store.OpError("history.History.Record", err)
	}
	minute := floorDiv(start, 60)
	hourLen, dayLen := int64(domain.HistoryHour.Buckets()), int64(domain.HistoryDay.Buckets())
	write := h.rdb.Pipeline()
	for _, s := range samples {
		ten, soFar := s.read()
		size := int64(slotSize(s.kind))
		hour, day := h.keys.HistoryRing(s.kind, s.name, domain.HistoryHour), h.keys.HistoryRing(s.kind, s.name, domain.HistoryDay)
		write.SetRange(ctx, hour, (bucket%hourLen)*size, encodeSlot(bucket, ten))
		write.PExpire(ctx, hour, historyHourTTL)
		write.SetRange(ctx, day, (minute%dayLen)*size, encodeSlot(minute, soFar))
		write.PExpire(ctx, day, historyDayTTL)
		args := []any{bucket, s.name}
		for i, info := range domain.HistorySeries[s.kind] {
			if info.Kind == domain.Counter {
				args = append(args, info.Name, ten[i])
			}
		}
		addTotalsScript.Run(ctx, write, []string{h.keys.HistoryTotals(s.kind)}, args...)
	}
	return store.OpError("history.History.Record", store.Exec(ctx, h.rdb, write))
}

// limiterNames are the saved policies and the default one.
func (h *History) limiterNames(ctx context.Context) ([]string, error) {
	names, err := h.rdb.SMembers(ctx, h.keys.LimiterIndex()).Result()
	if err != nil {
		return nil, store.OpError("history.History.limiterNames", err)
	}
	names = append(names, domain.DefaultLimiter)
	slices.Sort(names)
	return slices.Compact(names), nil
}

// planQueue samples a queue's depths (as the overview reads them) and its throughput hash of
// the bucket's minute: "e<second>" enqueued, "c<second>" completed, "f<second>" failed; and
// its lease-to-ack times of the bucket and of the minute so far (p50, p95, max).
func (h *History) planQueue(ctx context.Context, pipe redis.Pipeliner, queue string, now time.Time, start int64, minuteAt time.Time) sample {
	depth := queues.PlanQueueSummary(ctx, pipe, h.keys, queue, now)
	tput := pipe.HGetAll(ctx, h.keys.QueueThroughput(queue, minuteAt))
	durations := pipe.HGetAll(ctx, h.keys.QueueDurations(queue, minuteAt))
	part := (start - minuteAt.Unix()) / 10
	return sample{kind: domain.HistoryQueue, name: queue, read: func() ([]int64, []int64) {
		d := depth()
		gauges := []int64{d.Due, d.Waiting - d.Due, d.Processing, d.Dead}
		ten, soFar := sumSeconds(tput.Val(), start, minuteAt.Unix(), func(field string) (int, int64, bool) {
			kind, sec, ok := queues.ThroughputField(field)
			return kind, minuteAt.Unix() + sec, ok
		}, 3)
		ten = append(ten, queues.DurationValues(queues.DecodeDurations(durations.Val(), part, part))...)
		soFar = append(soFar, queues.DurationValues(queues.DecodeDurations(durations.Val(), 0, part))...)
		return append(slices.Clone(gauges), ten...), append(gauges, soFar...)
	}}
}

// planLimiter reads a policy's per-second counts of the bucket's minute: "<unix second>:a"
// admitted, ":r" rejected.
func (h *History) planLimiter(ctx context.Context, pipe redis.Pipeliner, policy string, start int64, minuteAt time.Time) sample {
	stats := pipe.HGetAll(ctx, h.keys.LimiterStats(policy, minuteAt.Unix()/60))
	return sample{kind: domain.HistoryLimiter, name: policy, read: func() ([]int64, []int64) {
		return sumSeconds(stats.Val(), start, minuteAt.Unix(), func(field string) (int, int64, bool) {
			at, admitted, ok := limiters.StatsField(field)
			if admitted {
				return 0, at, ok
			}
			return 1, at, ok
		}, 2)
	}}
}

// planBoard samples a board's player count (all time, and on its daily, weekly and monthly
// boards of now: a period the board does not keep has no key, so 0) and reads its adds of
// the bucket's minute.
func (h *History) planBoard(ctx context.Context, pipe redis.Pipeliner, board string, start int64, minuteAt, now time.Time) sample {
	players := pipe.ZCard(ctx, h.keys.Leaderboard(board))
	var periods [3]*redis.IntCmd
	for i, p := range []domain.Period{domain.Daily, domain.Weekly, domain.Monthly} {
		periods[i] = pipe.ZCard(ctx, h.keys.PeriodBoard(board, p, now))
	}
	adds := pipe.HGetAll(ctx, h.keys.BoardAdds(board, minuteAt))
	return sample{kind: domain.HistoryBoard, name: board, read: func() ([]int64, []int64) {
		ten, soFar := sumSeconds(adds.Val(), start, minuteAt.Unix(), func(field string) (int, int64, bool) {
			sec, err := strconv.ParseInt(field, 10, 64)
			return 0, minuteAt.Unix() + sec, err == nil
		}, 1)
		d, w, m := periods[0].Val(), periods[1].Val(), periods[2].Val()
		return []int64{players.Val(), ten[0], d, w, m}, []int64{players.Val(), soFar[0], d, w, m}
	}}
}

// sumSeconds sums a per-second hash into n counters: over the 10 s bucket from start, and
// over its minute (from minuteStart) up to the bucket's end. parse says which counter a
// field counts and at which unix second.
func sumSeconds(fields map[string]string, start, minuteStart int64, parse func(field string) (int, int64, bool), n int) (tenSec, minute []int64) {
	tenSec, minute = make([]int64, n), make([]int64, n)
	end := start + int64(domain.HistoryStep/time.Second)
	for field, v := range fields {
		i, at, ok := parse(field)
		count, err := strconv.ParseInt(v, 10, 64)
		if !ok || err != nil || at >= end || at < minuteStart {
			continue
		}
		minute[i] += count
		if at >= start {
			tenSec[i] += count
		}
	}
	return tenSec, minute
}

// Ring reads an entity's ring over a range. The last bucket is the newest recorded when
// the recorder is on time (so the chart moves exactly when a bucket lands), else the newest
// that has ended. Returns EINVALID, EUNAVAILABLE.
func (h *History) Ring(ctx context.Context, kind domain.HistoryKind, name string, r domain.HistoryRange) (domain.History, error) {
	if err := domain.ValidateHistoryName(kind, name); err != nil {
		return domain.History{}, err
	}
	pipe := h.rdb.Pipeline()
	read := PlanHistory(ctx, pipe, h.keys, kind, name, r, h.clock.Now())
	if err := store.Exec(ctx, h.rdb, pipe); err != nil {
		return domain.History{}, store.OpError("history.History.Ring", err)
	}
	return read(), nil
}

// PlanHistory adds the read of an entity's ring to pipe (the page's read and the live
// topic's alike).
func PlanHistory(ctx context.Context, pipe redis.Pipeliner, keys store.Keys, kind domain.HistoryKind, name string, r domain.HistoryRange, now time.Time) func() domain.History {
	ring := pipe.Get(ctx, keys.HistoryRing(kind, name, r))
	return func() domain.History {
		return decodeHistory(kind, name, r, now, []byte(ring.Val()))
	}
}

func decodeHistory(kind domain.HistoryKind, name string, r domain.HistoryRange, now time.Time, ring []byte) domain.History {
	step := r.Step().Milliseconds()
	n := int64(r.Buckets())
	series := domain.HistorySeries[kind]
	size := int64(slotSize(kind))
	// The newest bucket that has ended, in this range's steps.
	newest := floorDiv((lastEnded(now) * domain.HistoryStep.Milliseconds()), step)
	stampAt := func(i int64) (int64, bool) {
		off := i * size
		if off+size > int64(len(ring)) {
			return 0, false
		}
		return int64(binary.BigEndian.Uint32(ring[off:])), true
	}
	// The window ends at the newest recorded bucket when the recorder is on time (within a
	// bucket: it writes historyDelay after each boundary), so it moves once per bucket, when
	// the bucket lands; else at the newest that has ended.
	end := newest
	for _, idx := range []int64{newest + 1, newest, newest - 1} { // newest+1: a recorder's clock a little ahead
		if s, ok := stampAt(idx % n); ok && s == idx&math.MaxUint32 {
			end = idx
			break
		}
	}
	hist := domain.History{Kind: kind, Name: name, Range: r, StepMs: step, Series: series, Buckets: make([]domain.HistoryBucket, n)}
	for j := range n {
		idx := end - n + 1 + j
		b := domain.HistoryBucket{AtMs: idx * step}
		if s, ok := stampAt(idx % n); ok && s == idx&math.MaxUint32 {
			off := (idx%n)*size + 4
			b.Recorded = true
			b.Values = make([]int64, len(series))
			for k := range series {
				b.Values[k] = int64(binary.BigEndian.Uint32(ring[off+4*int64(k):]))
			}
		}
		hist.Buckets[j] = b
	}
	return hist
}

// RunRecorder records every 10 s, historyDelay after each bucket ends, until ctx ends; run it
// inside a domain.Singleton so that one instance records at a time. It records once at once,
// so a new recorder (a restart, a handover) fills the bucket that just ended. after, when not
// nil, is told of each bucket written (the watcher's nudge). Redis errors wait for the next
// bucket.
func (h *History) RunRecorder(ctx context.Context, after func()) error {
	for {
		if err := h.Record(ctx); err == nil && after != nil {
			after()
		}
		now := h.clock.Now()
		next := now.Truncate(domain.HistoryStep).Add(domain.HistoryStep + HistoryDelay)
		t := time.NewTimer(next.Sub(now))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
	}
}

// RecorderLoop names the recorder's singleton loop (its lock is lock:zpulse:history-recorder).
const RecorderLoop = "history-recorder"
