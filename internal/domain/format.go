package domain

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// FormatDuration shows a duration as people read it, the one way zpulse writes durations in
// pages and messages: "850 ms", "12.3 s", "10 s", "3 min 5 s", "2 h 10 min", "3 d". Seconds
// keep one decimal below a minute (lock countdowns move in tenths); longer spans round down
// to their two largest units.
func FormatDuration(d time.Duration) string {
	ms := d.Milliseconds()
	switch {
	case ms < 1000:
		return strconv.FormatInt(ms, 10) + " ms"
	case ms < 60_000:
		return strings.TrimSuffix(strconv.FormatFloat(float64(ms/100)/10, 'f', 1, 64), ".0") + " s"
	case ms < 3_600_000:
		return twoUnits(ms/60_000, "min", ms/1000%60, "s")
	case ms < 48*3_600_000:
		return twoUnits(ms/3_600_000, "h", ms/60_000%60, "min")
	default:
		return strconv.FormatInt(ms/(24*3_600_000), 10) + " d"
	}
}

func twoUnits(n int64, unit string, m int64, small string) string {
	s := strconv.FormatInt(n, 10) + " " + unit
	if m > 0 {
		s += " " + strconv.FormatInt(m, 10) + " " + small
	}
	return s
}

// FormatCount groups a whole number's digits by thousands, the one way zpulse writes numbers
// in pages and messages: 12,345,678 and -9,007,199,254,740,991.
func FormatCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return sign + b.String()
}

// Shorten is s cut to at most n bytes on a rune boundary, ending in "…" when cut.
func Shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const ellipsis = "…"
	cut := max(n-len(ellipsis), 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ellipsis
}
