package domain

import (
	"strings"
	"testing"
	"time"
)

func TestValidateLockOptions(t *testing.T) {
	for _, ok := range []LockOptions{{TTL: MinLockTTL}, {TTL: MaxLockTTL, Wait: MaxLockWait}, {TTL: time.Second, Owner: "uuid:42"}} {
		if err := ValidateLockOptions(ok); err != nil {
			t.Errorf("%+v: %v", ok, err)
		}
	}
	bad := map[string]LockOptions{
		"ttl_ms must be a whole number of milliseconds from 100": {TTL: MinLockTTL - time.Millisecond},
		"from 100 to 86400000":            {TTL: time.Second + 500*time.Microsecond},
		"wait_ms must be from 0 to 30000": {TTL: time.Second, Wait: MaxLockWait + time.Millisecond},
		"owner must be printable":         {TTL: time.Second, Owner: "a\tb"},
	}
	for want, opt := range bad {
		if err := ValidateLockOptions(opt); ErrorCode(err) != EINVALID || !strings.Contains(ErrorMessage(err), want) {
			t.Errorf("%+v = %v, want EINVALID mentioning %q", opt, err, want)
		}
	}
}

func TestValidateToken(t *testing.T) {
	for _, ok := range []string{"550e8400-e29b-41d4-a716-446655440000", "uuid:1", "Thread-1@host", strings.Repeat("t", MaxTokenBytes)} {
		if err := ValidateToken("token", ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for in, want := range map[string]string{"": "required", "a b": "without spaces", strings.Repeat("t", 129): "at most 128 bytes", "\xff": "UTF-8"} {
		if err := ValidateToken("token", in); ErrorCode(err) != EINVALID || !strings.Contains(ErrorMessage(err), want) {
			t.Errorf("%q = %v, want EINVALID mentioning %q", in, err, want)
		}
	}
}
