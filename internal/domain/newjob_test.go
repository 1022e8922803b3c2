package domain

import (
	"maps"
	"slices"
	"testing"
	"time"
)

func TestNewJobProblems(t *testing.T) {
	for _, tc := range []struct {
		name string
		job  NewJob
		want []string // fields with a problem
	}{
		{"generated id, no payload", NewJob{HasPriority: true, Priority: 5}, nil},
		{"delayed job", NewJob{ID: "r", Delay: 30 * time.Minute, Payload: []byte(`{"a":1}`)}, nil},
		{"unprintable id", NewJob{ID: "a\x00b"}, []string{"id"}},
		{"priority out of range", NewJob{HasPriority: true, Priority: 10}, []string{"priority"}},
		{"negative delay", NewJob{Delay: -time.Second}, []string{"delay"}},
		{"delay past a year", NewJob{Delay: MaxDelay + time.Millisecond}, []string{"delay"}},
		{"delay below a millisecond", NewJob{Delay: time.Microsecond}, []string{"delay"}},
		{"delay and run-at", NewJob{Delay: time.Second, RunAt: time.Unix(1e9, 0)}, []string{"run_at"}},
		{"payload not JSON", NewJob{Payload: []byte("{")}, []string{"payload"}},
		{"every field at once", NewJob{ID: "a\x00", HasPriority: true, Priority: -1, Payload: []byte("x")}, []string{"id", "payload", "priority"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			problems := tc.job.Problems()
			got := slices.Sorted(maps.Keys(problems))
			if !slices.Equal(got, tc.want) {
				t.Fatalf("fields %v, want %v (%v)", got, tc.want, problems)
			}
			for field, err := range problems {
				if ErrorCode(err) != EINVALID {
					t.Errorf("%s: %v is not EINVALID", field, err)
				}
			}
			var want error
			for _, field := range NewJobFields {
				if want == nil {
					want = problems[field]
				}
			}
			if first := tc.job.FirstProblem(); ErrorMessage(first) != ErrorMessage(want) {
				t.Errorf("first problem %v, want %v", first, want)
			}
		})
	}
}
