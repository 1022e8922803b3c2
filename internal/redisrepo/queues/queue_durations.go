package queues

import (
	"strconv"
	"strings"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
)

// How long jobs take: the ack script measures each lease-to-ack time from the
// lease start kept in the holders hash (Keys.QueueHolders) and counts it into a fixed set of
// buckets (domain.DurationBoundsMs) twice: per 10 s, in the minute's hash the history
// recorder reads (Keys.QueueDurations), and in all, for /metrics (Keys.QueueDurationTotals).

// luaDurationBounds defines durationBounds, domain.DurationBoundsMs as a Lua table.
var luaDurationBounds = func() string {
	b := make([]string, len(domain.DurationBoundsMs))
	for i, v := range domain.DurationBoundsMs {
		b[i] = strconv.FormatInt(v, 10)
	}
	return "\nlocal durationBounds = {" + strings.Join(b, ", ") + "}\n"
}()

// luaHolder defines releaseHolder(holders, id): the lease start (epoch ms, nil when not
// known) and consumer ("" when none) of a job's lease, whose field it removes (see
// Keys.QueueHolders).
const luaHolder = `
local function releaseHolder(hkey, id)
  local h = redis.call('HGET', hkey, id)
  if not h then return nil, '' end
  redis.call('HDEL', hkey, id)
  local bar = string.find(h, '|', 1, true)
  if not bar then return nil, '' end
  return tonumber(string.sub(h, 1, bar - 1)), string.sub(h, bar + 1)
end
`

// luaRecordDuration defines recordDuration(minute, totals, ms, part, ttl): counts a
// lease-to-ack time of ms in its bucket of the minute's hash, under the 10 s part of the
// minute part (keeping that part's max), and in the totals (with the sum); the minute's hash
// expires ttl ms after this write.
var luaRecordDuration = luaDurationBounds + `
local function recordDuration(mkey, tkey, ms, part, ttl)
  local i = #durationBounds -- longer than the last bound
  for k, b in ipairs(durationBounds) do
    if ms <= b then i = k - 1 break end
  end
  redis.call('HINCRBY', mkey, part .. ':b' .. i, 1)
  local top = tonumber(redis.call('HGET', mkey, part .. ':max')) or -1
  if ms > top then redis.call('HSET', mkey, part .. ':max', ms) end
  redis.call('PEXPIRE', mkey, ttl)
  redis.call('HINCRBY', tkey, 'b' .. i, 1)
  redis.call('HINCRBY', tkey, 'sum', ms)
end
`

// durationPart is the 10 s part of its minute that t falls in: 0..5.
func durationPart(t time.Time) int64 { return t.Unix() % 60 / 10 }

// DecodeDurationTotals reads a totals hash (Keys.QueueDurationTotals).
func DecodeDurationTotals(fields map[string]string) domain.DurationHistogram {
	h := domain.DurationHistogram{}
	if len(fields) == 0 {
		return h
	}
	h.Counts = make([]int64, len(domain.DurationBoundsMs)+1)
	for f, v := range fields {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			continue
		}
		if f == "sum" {
			h.SumMs = n
		} else if i, err := strconv.Atoi(strings.TrimPrefix(f, "b")); err == nil && strings.HasPrefix(f, "b") && i >= 0 && i < len(h.Counts) {
			h.Counts[i] = n
		}
	}
	return h
}

// DecodeDurations reads a minute's hash (Keys.QueueDurations) into the histogram of its parts
// from..to (0..5, both included).
func DecodeDurations(fields map[string]string, from, to int64) domain.DurationHistogram {
	h := domain.DurationHistogram{Counts: make([]int64, len(domain.DurationBoundsMs)+1)}
	for f, v := range fields {
		partS, what, ok := strings.Cut(f, ":")
		part, err := strconv.ParseInt(partS, 10, 64)
		n, err2 := strconv.ParseInt(v, 10, 64)
		if !ok || err != nil || err2 != nil || part < from || part > to {
			continue
		}
		if what == "max" {
			h.MaxMs = max(h.MaxMs, n)
		} else if i, err := strconv.Atoi(strings.TrimPrefix(what, "b")); err == nil && strings.HasPrefix(what, "b") && i >= 0 && i < len(h.Counts) {
			h.Counts[i] += n
		}
	}
	return h
}

// DurationValues are the history's duration series of h: p50, p95 and max, ms.
func DurationValues(h domain.DurationHistogram) []int64 {
	return []int64{h.Quantile(0.5), h.Quantile(0.95), h.MaxMs}
}

// leaseStart reads the lease start of a holders hash's field ("<epoch ms>|<consumer>"); nil
// when there is none.
func leaseStart(field string) *time.Time {
	ms, _, ok := strings.Cut(field, "|")
	n, err := strconv.ParseInt(ms, 10, 64)
	if !ok || err != nil {
		return nil
	}
	t := time.UnixMilli(n).UTC()
	return &t
}
