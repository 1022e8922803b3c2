package domain

import (
	"testing"
	"time"
)

func TestFormatDuration(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0 ms"},
		{850 * time.Millisecond, "850 ms"},
		{time.Second, "1 s"},
		{12345 * time.Millisecond, "12.3 s"},
		{10 * time.Second, "10 s"},
		{2 * time.Minute, "2 min"},
		{3*time.Minute + 5*time.Second, "3 min 5 s"},
		{2 * time.Hour, "2 h"},
		{2*time.Hour + 10*time.Minute + 59*time.Second, "2 h 10 min"},
		{72 * time.Hour, "3 d"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			if got := FormatDuration(tc.d); got != tc.want {
				t.Errorf("FormatDuration(%v) = %q, want %q", tc.d, got, tc.want)
			}
		})
	}
}
