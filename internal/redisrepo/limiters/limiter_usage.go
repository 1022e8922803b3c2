package limiters

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/zpulse/zpulse/internal/domain"
)

// decodeUsage computes a client's usage from its state as the scripts do (limiter_scripts.go;
// TestViewAgreesWithPeek holds them together), with durations rounded up to whole seconds
// so a view changes once a second, not at every read.
func decodeUsage(p domain.LimitPolicy, now int64, s clientState) domain.ClientUsage {
	u := domain.ClientUsage{Client: s.client, Limit: p.Quota()}
	span := max(p.QuotaWindowMs(), 1000)
	var events []domain.LimitEvent
	for _, e := range s.events.Val() { // newest first
		at, mark, _ := strings.Cut(e, ":")
		ms, err := strconv.ParseInt(at, 10, 64)
		if err != nil || ms <= now-span || ms > now {
			continue
		}
		if p.Algorithm == domain.SlidingLog && mark == "1" {
			continue // admitted requests are in the log itself, with other services' ones
		}
		events = append(events, domain.LimitEvent{AtMs: ms, Allowed: mark == "1"})
	}
	switch p.Algorithm {
	case domain.SlidingLog:
		w := p.WindowMs
		log := s.log.Val()
		var inWindow []float64
		for _, z := range log {
			if int64(math.Ceil(z.Score)) > now-w {
				inWindow = append(inWindow, z.Score)
				if z.Score <= float64(now) {
					events = append(events, domain.LimitEvent{AtMs: int64(z.Score), Allowed: true})
				}
			}
		}
		count := s.count.Val()
		if int64(len(log)) < domain.MaxViewEvents || count <= int64(len(inWindow)) {
			count = int64(len(inWindow)) // the whole log was read: count exactly at now
		}
		u.Used = count
		u.Remaining = max(p.Limit-count, 0)
		if u.Remaining == 0 {
			i := count - p.Limit
			if len(inWindow) == int(count) && i < int64(len(inWindow)) {
				u.RetryAfterMs = int64(inWindow[i]) + w - now
			} else if o := s.oldest.Val(); len(o) == 1 {
				u.RetryAfterMs = int64(o[0].Score) + w - now
			}
		}
		if len(log) > 0 {
			u.ResetMs = int64(math.Ceil(log[len(log)-1].Score)) + w - now
		}
	case domain.FixedWindow:
		f := floats(s.fields.Val())
		start := now - now%p.WindowMs
		if f[0] == float64(start) {
			u.Used = int64(orZero(f[1]))
		}
		u.Remaining = max(p.Limit-u.Used, 0)
		if u.Remaining == 0 {
			u.RetryAfterMs = start + p.WindowMs - now
		}
		if u.Used > 0 {
			u.ResetMs = start + p.WindowMs - now
		}
	case domain.SlidingCounter:
		f := floats(s.fields.Val())
		w := p.WindowMs
		start := now - now%w
		c, prev := orZero(f[1]), orZero(f[2])
		if f[0] != float64(start) {
			if f[0] == float64(start-w) {
				prev = c
			} else {
				prev = 0
			}
			c = 0
		}
		limit := float64(p.Limit)
		estimate := prev*float64(w-(now-start))/float64(w) + c
		u.Used = int64(math.Ceil(estimate - 1e-9))
		u.Remaining = max(int64(math.Floor(limit-estimate+1e-9)), 0)
		if u.Remaining == 0 {
			var at float64
			if c+1 <= limit {
				at = float64(start) + float64(w)*(1-(limit-c-1)/prev)
			} else {
				at = float64(start+w) + float64(w)*(1-(limit-1)/c)
			}
			u.RetryAfterMs = max(int64(math.Ceil(at-float64(now))), 0)
		}
		if c > 0 {
			u.ResetMs = start + 2*w - now
		} else if prev > 0 {
			u.ResetMs = start + w - now
		}
	case domain.TokenBucket:
		f := floats(s.fields.Val())
		burst, rate := float64(p.Burst), p.RatePerS/1000
		tokens, ts := f[0], f[1]
		if math.IsNaN(tokens) || math.IsNaN(ts) {
			tokens, ts = burst, float64(now)
		}
		if float64(now) > ts {
			tokens = math.Min(burst, tokens+(float64(now)-ts)*rate)
		}
		u.Remaining = int64(math.Floor(tokens + 1e-9))
		u.Used = p.Burst - u.Remaining
		if u.Remaining < 1 {
			u.RetryAfterMs = int64(math.Ceil((1-tokens)/rate - 1e-9))
		}
		u.ResetMs = max(int64(math.Ceil((burst-tokens)/rate-1e-9)), 0)
	}
	u.RetryAfterMs = CeilSecond(max(u.RetryAfterMs, 0))
	u.ResetMs = CeilSecond(max(u.ResetMs, 0))
	slices.SortFunc(events, func(a, b domain.LimitEvent) int { return int(a.AtMs - b.AtMs) })
	if len(events) > domain.MaxViewEvents {
		events = events[len(events)-domain.MaxViewEvents:]
	}
	u.Events = events
	return u
}

// floats reads HMGET answers as numbers, NaN for a missing field. NaN equals no window
// start; counts go through orZero.
func floats(vals []any) []float64 {
	out := make([]float64, len(vals))
	for i, v := range vals {
		out[i] = math.NaN()
		if s, ok := v.(string); ok {
			if f, err := strconv.ParseFloat(s, 64); err == nil {
				out[i] = f
			}
		}
	}
	return out
}

func orZero(f float64) float64 {
	if math.IsNaN(f) {
		return 0
	}
	return f
}

func CeilSecond(ms int64) int64 { return (ms + 999) / 1000 * 1000 }

// statsField is the field of a limiter's per-minute stats hash (store.Keys.LimiterStats) that
// counts the checks of a unix second: "<second>:a" admitted, "<second>:r" rejected.
func statsField(sec int64, admitted bool) string {
	if admitted {
		return strconv.FormatInt(sec, 10) + ":a"
	}
	return strconv.FormatInt(sec, 10) + ":r"
}

// StatsField reads a field of a limiter's per-minute stats hash (statsField): its unix second
// and whether it counts admitted checks (else rejected ones).
func StatsField(field string) (sec int64, admitted, ok bool) {
	s, kind, _ := strings.Cut(field, ":")
	sec, err := strconv.ParseInt(s, 10, 64)
	return sec, kind == "a", err == nil && (kind == "a" || kind == "r")
}

// decodeSeconds turns two minutes of per-second counts into the last ViewSeconds seconds
// that had checks, oldest first.
func decodeSeconds(now int64, maps ...map[string]string) []domain.SecondCount {
	bySec := map[int64]*domain.SecondCount{}
	nowSec := now / 1000
	for _, m := range maps {
		for field, val := range m {
			s, admitted, ok := StatsField(field)
			n, err := strconv.ParseInt(val, 10, 64)
			if !ok || err != nil || s <= nowSec-domain.ViewSeconds || s > nowSec {
				continue
			}
			c := bySec[s]
			if c == nil {
				c = &domain.SecondCount{Sec: s}
				bySec[s] = c
			}
			if admitted {
				c.Allowed += n
			} else {
				c.Rejected += n
			}
		}
	}
	out := make([]domain.SecondCount, 0, len(bySec))
	for _, c := range bySec {
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b domain.SecondCount) int { return int(a.Sec - b.Sec) })
	if len(out) == 0 {
		return nil
	}
	return out
}
