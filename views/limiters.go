package views

import (
	"net/url"
	"strconv"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
)

// PolicyForm is the policy form's state: what was typed and the errors per field
// ("" for the whole form).
type PolicyForm struct {
	Algorithm, Limit, Window, Rate, Burst string
	Shared                                string // sliding_log: the longest window of services sharing the keys, "" for none
	Exists                                bool   // a policy is saved under this name
	Saved                                 bool   // it was just saved
	Errors                                map[string]string
}

// PolicyFormFrom fills the form with a policy; for a name with no policy, with a suggestion.
func PolicyFormFrom(p domain.LimitPolicy, exists bool) PolicyForm {
	if !exists {
		return PolicyForm{Algorithm: string(domain.SlidingLog), Limit: "100", Window: "1m", Rate: "10", Burst: "20"}
	}
	f := PolicyForm{Algorithm: string(p.Algorithm), Exists: true, Limit: "100", Window: "1m", Rate: "10", Burst: "20"}
	if p.Algorithm == domain.TokenBucket {
		f.Rate, f.Burst = strconv.FormatFloat(p.RatePerS, 'f', -1, 64), strconv.FormatInt(p.Burst, 10)
	} else {
		f.Limit, f.Window = strconv.FormatInt(p.Limit, 10), (time.Duration(p.WindowMs) * time.Millisecond).String()
		if p.SharedWindowMs > 0 {
			f.Shared = (time.Duration(p.SharedWindowMs) * time.Millisecond).String()
		}
	}
	return f
}

// TryForm is the "try" form's state and the answers to the requests it fired.
type TryForm struct {
	Client, N string
	Errors    map[string]string
	Results   []domain.LimitResult
}

// Counts returns how many of the fired requests were admitted and rejected.
func (f TryForm) Counts() (allowed, rejected int) {
	for _, r := range f.Results {
		if r.Allowed {
			allowed++
		} else {
			rejected++
		}
	}
	return allowed, rejected
}

// LimiterPanelID is the id of a limiter's live panel.
func LimiterPanelID(limiter string) string { return domID("limiter", limiter) }

// limiterPartID is the id of a part of a limiter's live panel (live/parts.go): the checks
// per second, the clients' card, a client's row (domID of it), so that a check sends its
// client's row and the chart rather than the panel.
func limiterPartID(limiter, part string) string { return LimiterPanelID(limiter) + "-" + part }

func limiterURL(limiter string) string { return "/limiters/" + url.PathEscape(limiter) }

// describePolicy says a policy in words: "3 requests per 10 s · sliding-window log".
func describePolicy(p domain.LimitPolicy) string {
	switch p.Algorithm {
	case domain.TokenBucket:
		return formatRate(p.RatePerS) + " tokens/s, burst " + FormatCount(p.Burst) + " · token bucket"
	case domain.FixedWindow:
		return FormatCount(p.Limit) + " " + Plural(p.Limit, "request", "requests") + " per " + formatMs(p.WindowMs) + " · fixed window"
	case domain.SlidingCounter:
		return FormatCount(p.Limit) + " " + Plural(p.Limit, "request", "requests") + " per " + formatMs(p.WindowMs) + " · sliding-window counter"
	case domain.SlidingLog:
		return FormatCount(p.Limit) + " " + Plural(p.Limit, "request", "requests") + " per " + formatMs(p.WindowMs) + " · sliding-window log"
	default:
		return "no policy"
	}
}

func formatRate(r float64) string { return strconv.FormatFloat(r, 'f', -1, 64) }

// timelineWidth is the width of a client's timeline in SVG units.
const timelineWidth = 300

// timelineSpan is the time a client's timeline covers: the window (a bucket's time to refill
// from empty), at least a second.
func timelineSpan(p domain.LimitPolicy) int64 { return max(p.QuotaWindowMs(), 1000) }

// eventX places a request on a client's timeline: the window ending at now, left to right.
func eventX(p domain.LimitPolicy, now, at int64) string {
	span := timelineSpan(p)
	x := float64(at-(now-span)) / float64(span) * timelineWidth
	return strconv.FormatFloat(min(max(x, 1), timelineWidth-1), 'f', 1, 64)
}

// usedPercent is the width of a client's used/limit bar, 0..100.
func usedPercent(u domain.ClientUsage) string {
	if u.Limit <= 0 {
		return "0"
	}
	return strconv.FormatFloat(min(float64(u.Used)/float64(u.Limit)*100, 100), 'f', 1, 64)
}

func barClass(u domain.ClientUsage) string {
	switch {
	case u.Full():
		return "fill-rose-500"
	case u.Used*4 >= u.Limit*3:
		return "fill-amber-500"
	default:
		return "fill-emerald-500"
	}
}

// secondBar is one second of the allowed/rejected chart.
type secondBar struct {
	X                      string
	AllowedY, AllowedH     string
	RejectedY, RejectedH   string
	Label                  string
	Allowed, Rejected, Sec int64
}

const chartHeight = 40 // the height of app.js's sliding viewBox (data-spark-origin)

// secondBars lays out the last ViewSeconds seconds at their absolute seconds, as a queue's
// sparkline is: x is the second less the origin (the first second with a count) less one,
// so that app.js's viewBox of the ViewSeconds seconds before the browser's now ends with the
// current second; nothing drawn depends on when it was read. Tallest second full height.
func secondBars(v domain.LimiterView) (bars []secondBar, allowed, rejected int64) {
	var top int64 = 1
	for _, s := range v.Seconds {
		top = max(top, s.Allowed+s.Rejected)
		allowed += s.Allowed
		rejected += s.Rejected
	}
	origin := secondsOrigin(v)
	for _, s := range v.Seconds {
		ah := float64(s.Allowed) / float64(top) * chartHeight
		rh := float64(s.Rejected) / float64(top) * chartHeight
		f := func(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }
		bars = append(bars, secondBar{
			X:        strconv.FormatInt(s.Sec-origin-1, 10),
			AllowedY: f(chartHeight - ah), AllowedH: f(ah),
			RejectedY: f(chartHeight - ah - rh), RejectedH: f(rh),
			Label:   time.Unix(s.Sec, 0).UTC().Format("15:04:05") + " UTC: " + FormatCount(s.Allowed) + " allowed, " + FormatCount(s.Rejected) + " rejected",
			Allowed: s.Allowed, Rejected: s.Rejected, Sec: s.Sec,
		})
	}
	return bars, allowed, rejected
}

// secondsOrigin is the Unix second of a view's first counted second, or 0 when it has none.
func secondsOrigin(v domain.LimiterView) int64 {
	if len(v.Seconds) == 0 {
		return 0
	}
	return v.Seconds[0].Sec
}

// secondsViewBox is the chart's viewBox as drawn: the ViewSeconds seconds ending with the
// newest counted one (app.js moves it to the browser's now).
func secondsViewBox(v domain.LimiterView) string {
	x := int64(0)
	if n := len(v.Seconds); n > 0 {
		x = v.Seconds[n-1].Sec - secondsOrigin(v) - domain.ViewSeconds
	}
	return strconv.FormatInt(x, 10) + " 0 " + strconv.Itoa(domain.ViewSeconds) + " " + strconv.Itoa(chartHeight)
}

// secondsBaseline spans the chart's baseline over every window app.js can show while the
// view's seconds are the same (two minutes either side of them).
func secondsBaseline(v domain.LimiterView) (x1, x2 string) {
	last := int64(0)
	if n := len(v.Seconds); n > 0 {
		last = v.Seconds[n-1].Sec - secondsOrigin(v)
	}
	return strconv.FormatInt(-2*domain.ViewSeconds, 10), strconv.FormatInt(last+2*domain.ViewSeconds, 10)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func algorithmLabel(a domain.Algorithm) string {
	switch a {
	case domain.SlidingLog:
		return "Sliding-window log (exact, ZSET)"
	case domain.FixedWindow:
		return "Fixed window (counter)"
	case domain.SlidingCounter:
		return "Sliding-window counter (two windows)"
	case domain.TokenBucket:
		return "Token bucket (rate and burst)"
	default:
		return string(a)
	}
}

// ClientsSection is a limiter page's "All clients": a page of every client seen (Prev the
// previous page's cursor, nil on the first) and the lookup of Client (Result, or Err).
type ClientsSection struct {
	Page   domain.ClientPage
	Prev   *string
	Client string
	Result domain.LimitResult
	Err    string
}
