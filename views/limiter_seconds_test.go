package views

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
)

// A limiter's checks per second are drawn at their own seconds (app.js slides them, as a
// queue's sparkline): the same seconds draw the same markup whenever they are read, so the
// panel needs no frame in the minute after a check, only when a second comes or leaves; the
// newest second sits in the viewBox's last slot.
func TestLimiterSecondsDrawnAtTheirSeconds(t *testing.T) {
	t.Parallel()
	policy := domain.LimitPolicy{Name: "api", Algorithm: domain.TokenBucket, RatePerS: 10, Burst: 20}
	seconds := []domain.SecondCount{{Sec: 1_800_000_000, Allowed: 3}, {Sec: 1_800_000_007, Allowed: 1, Rejected: 2}}
	draw := func(nowMs int64) string {
		var b bytes.Buffer
		if err := LimiterPanel(domain.LimiterView{Policy: policy, Exists: true, NowMs: nowMs, Seconds: seconds}, true).Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	if a, b := draw(0), draw(1_800_000_030_000); a != b {
		t.Errorf("the panel differs with the time it was read at:\n%s\n%s", a, b)
	}
	page := draw(0)
	for _, want := range []string{`data-spark-origin="1800000000"`, `data-spark-window="60"`, `viewBox="-53 0 60 40"`, `x="-1"`, `x="6"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the chart has no %s:\n%s", want, page)
		}
	}
}
