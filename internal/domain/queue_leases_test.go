package domain

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestClipUTF8(t *testing.T) {
	for _, c := range []struct {
		name, in string
		n        int
		want     string
	}{
		{"short", "boom", 10, "boom"},
		{"cut", "abcdef", 3, "abc"},
		{"cut inside a rune", "aé", 2, "a"},
		{"invalid bytes", "a\xffb", 10, "a?b"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := clipUTF8(c.in, c.n); got != c.want || !utf8.ValidString(got) {
				t.Errorf("clipUTF8(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
			}
		})
	}
}

func TestLeaseInputs(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		ok   bool
	}{
		{"lease 1 s", ValidateLease(time.Second), true},
		{"lease under 1 s", ValidateLease(999 * time.Millisecond), false},
		{"lease over a day", ValidateLease(MaxLease + time.Millisecond), false},
		{"lease in µs", ValidateLease(time.Second + time.Microsecond), false},
		{"token", ValidateLeaseToken("5e0c"), true},
		{"no token", ValidateLeaseToken(""), false},
		{"long token", ValidateLeaseToken(strings.Repeat("a", 65)), false},
		{"error 4 KiB", ValidateAttemptError(strings.Repeat("x", MaxErrorBytes)), true},
		{"error over 4 KiB", ValidateAttemptError(strings.Repeat("x", MaxErrorBytes+1)), false},
		{"error not UTF-8", ValidateAttemptError("\xff"), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if (c.err == nil) != c.ok || (c.err != nil && ErrorCode(c.err) != EINVALID) {
				t.Errorf("= %v, want ok=%v (else EINVALID)", c.err, c.ok)
			}
		})
	}
}
