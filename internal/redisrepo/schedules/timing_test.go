package schedules

import (
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
)

// A cron schedule's fields are read in its zone (across a daylight-saving change too); an
// every schedule's periods count from its creation; after an outage the last period due runs.
func TestTiming(t *testing.T) {
	created := time.Date(2026, 3, 28, 12, 0, 0, 0, time.UTC)
	paris, err := timingOf(domain.ScheduleSpec{Cron: "0 3 * * *", Zone: "Europe/Paris"}, created)
	if err != nil {
		t.Fatal(err)
	}
	// 03:00 in Paris is 02:00 UTC in winter, 01:00 UTC from 29 March (summer time).
	if got, want := paris.next(created), time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("next 03:00 in Paris after %v = %v, want %v", created, got, want)
	}
	if got, want := paris.next(time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)), time.Date(2026, 1, 10, 2, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("in winter = %v, want %v", got, want)
	}
	// Three days missed: the last 03:00 runs, and the next is tomorrow's.
	next := time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC)
	now := time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)
	p, f := paris.due(next, now)
	if !p.Equal(time.Date(2026, 4, 1, 1, 0, 0, 0, time.UTC)) || !f.Equal(time.Date(2026, 4, 2, 1, 0, 0, 0, time.UTC)) {
		t.Errorf("due after the outage = %v, next %v", p, f)
	}

	every, err := timingOf(domain.ScheduleSpec{Every: 90 * time.Second}, created)
	if err != nil {
		t.Fatal(err)
	}
	if got := every.next(created); !got.Equal(created.Add(90 * time.Second)) {
		t.Errorf("first period = %v", got)
	}
	p, f = every.due(created.Add(90*time.Second), created.Add(10*time.Minute))
	if !p.Equal(created.Add(9*time.Minute)) || !f.Equal(created.Add(10*time.Minute+30*time.Second)) {
		t.Errorf("every: due %v, next %v", p, f)
	}
	// Exactly on a boundary, that boundary is the period.
	p, f = every.due(created.Add(90*time.Second), created.Add(180*time.Second))
	if !p.Equal(created.Add(180*time.Second)) || !f.Equal(created.Add(270*time.Second)) {
		t.Errorf("every on a boundary: due %v, next %v", p, f)
	}

	for _, bad := range []string{"61 * * * *", "* * * *", "@daily", "CRON_TZ=UTC * * * * *", "0 0 31 2 *"} {
		if _, err := timingOf(domain.ScheduleSpec{Cron: bad}, created); domain.ErrorField(err) != "cron" {
			t.Errorf("cron %q: %v; want refused naming cron", bad, err)
		}
	}
}
