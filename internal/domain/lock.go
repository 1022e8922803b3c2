package domain

import (
	"context"
	"errors"
	"time"
	"unicode"
	"unicode/utf8"
)

// Lock limits. A lease shorter than MinLockTTL cannot be renewed in time by a watchdog that
// renews every TTL/3 over a real network; one longer than MaxLockTTL is a lock nobody means.
// MaxLockWait bounds how long one call (and so one HTTP request) waits for a lock.
const (
	MinLockTTL     = 100 * time.Millisecond
	MaxLockTTL     = 24 * time.Hour
	MaxLockWait    = 30 * time.Second
	DefaultLockTTL = 30 * time.Second // Redisson's lockWatchdogTimeout
	MaxTokenBytes  = 128
)

// LockOptions say how to take a lock.
type LockOptions struct {
	// TTL is the lease: the lock expires this long after it was taken (or last extended)
	// unless its holder extends it. MinLockTTL..MaxLockTTL.
	TTL time.Duration
	// Wait is how long to keep trying, with jittered backoff, while another owner holds the
	// lock. 0 tries once. 0..MaxLockWait.
	Wait time.Duration
	// Owner makes the lock reentrant: the owner string is the token, and the same owner may
	// take the lock again (its hold count grows) until it released as often as it took it.
	// Empty: a fresh random token, and a second acquire is a conflict like any other.
	Owner string
	// Watchdog asks this process to extend the lease every TTL/3 until it is released, so
	// the holder need not guess how long its work takes. The lock then expires TTL after
	// this process stops renewing it (it crashed, or lost Redis).
	Watchdog bool
}

// Lease is a lock as its holder got it.
type Lease struct {
	Lock  string `json:"lock"`
	Token string `json:"token"`
	// Fence grows with every acquisition of this lock, across holders and Redis restarts
	// (see redisrepo's acquire script), so a resource that remembers the highest fence it
	// saw can refuse a stale holder whose lease ran out while it was paused.
	Fence    int64 `json:"fencing_token"`
	TTLms    int64 `json:"ttl_ms"`
	Holds    int64 `json:"holds"` // how many times the owner holds it (1 unless reentrant)
	Watchdog bool  `json:"watchdog"`
}

// LockInfo is a held lock as Redis shows it to anybody: what the /locks page lists.
// It is a plain value (no pointers, no clock) so live snapshots compare with ==.
type LockInfo struct {
	Lock  string `json:"lock"`
	Token string `json:"token"`         // the holder's token; "" when the key is not a string (another lock library)
	Type  string `json:"type"`          // Redis type of the lock key: "string" for zpulse's and the article's locks
	Fence int64  `json:"fencing_token"` // 0 when the lock was not taken through zpulse
	// RemainingMs is the key's PTTL rounded down to 100 ms; -1 when it never expires.
	RemainingMs int64 `json:"remaining_ms"`
	// ExpiresAtMs is when the lease ends by Redis's clock (PEXPIRETIME), epoch ms; 0 when it
	// never expires or is unknown. Pages count down to it in the browser, so a held lock's
	// live fragment does not change from tick to tick.
	ExpiresAtMs int64 `json:"-"`
	LeaseMs     int64 `json:"lease_ms"`  // the TTL it was taken or last extended with; 0 when unknown (foreign lock)
	Holds       int64 `json:"holds"`     // reentrancy count; 1 for a plain or foreign lock
	Watchdog    bool  `json:"watchdog"`  // a zpulse process renews it every TTL/3
	Reentrant   bool  `json:"reentrant"` // taken with an owner, who may take it again
	// TokenHidden says Token was withheld: the reader's Audience does not see LockTokens (a
	// holder's token releases the lock, so it is a secret).
	TokenHidden bool `json:"token_hidden,omitempty"`
}

// Foreign says whether the lock was taken by another service rather than through zpulse.
func (l LockInfo) Foreign() bool { return l.LeaseMs == 0 }

// HeldLocks is the live content of the /locks page (topic TopicLocks).
type HeldLocks struct {
	Locks []LockInfo `json:"locks"` // sorted by name
	More  int        `json:"more"`  // held locks found but not shown (beyond MaxLocksShown)
}

// MaxLocksShown bounds the locks one live read shows.
const MaxLocksShown = 200

// LockService keeps distributed locks: lock:<name> holds a random owner token with a PX
// lease, exactly as the Chinese reference article's scene 3, so a service written from it
// and zpulse exclude each other on one Redis.
type LockService interface {
	// Acquire takes a lock, retrying with jittered backoff for up to opt.Wait while another
	// owner holds it. Atomic: SET NX PX and the fencing counter move together.
	// Returns ECONFLICT when another owner still holds it after the wait (the message says
	// for how long); EINVALID for a bad name or option; EUNAVAILABLE; ctx's error when ctx
	// ended first.
	Acquire(ctx context.Context, name string, opt LockOptions) (Lease, error)

	// Release gives the lock up when token is its holder's: compare-and-delete. A reentrant
	// owner releases one hold; the lock is free when the count reaches 0. It returns the
	// holds left (0 when the lock is free).
	// Returns ECONFLICT when token is not the holder's (nothing changes: the lock expired
	// and maybe went to another owner); EINVALID; EUNAVAILABLE.
	Release(ctx context.Context, name, token string) (holds int64, err error)

	// Extend sets the lease of a lock that token holds to ttl from now: compare-and-PEXPIRE.
	// Returns ECONFLICT when token is not the holder's (nothing changes); EINVALID;
	// EUNAVAILABLE.
	Extend(ctx context.Context, name, token string, ttl time.Duration) (Lease, error)

	// ForceRelease deletes a lock whoever holds it, for an admin: its holder is not told
	// and may go on acting; only fencing tokens protect the resource then. With a non-empty
	// expectToken it deletes only that holder's lock, so a confirmation made while looking
	// at one holder cannot free the next one. The fencing counter is kept.
	// Returns ENOTFOUND when the lock is not held; ECONFLICT when held by another token
	// than expectToken; EINVALID; EUNAVAILABLE.
	ForceRelease(ctx context.Context, name, expectToken string) error

	// List returns the held locks, sorted by name: the ones zpulse took (an index) and the
	// ones other services took, found by a SCAN of lock:* bounded per call.
	// Returns EUNAVAILABLE.
	List(ctx context.Context) (HeldLocks, error)

	// Inspect returns a held lock as the page shows it.
	// Returns ENOTFOUND when the lock is not held; EINVALID; EUNAVAILABLE.
	Inspect(ctx context.Context, name string) (LockInfo, error)
}

// Singleton runs loops that must run in one zpulse instance at a time (the queue reaper,
// the demo traffic), whichever instances are up.
type Singleton interface {
	// Run campaigns for the lock of name and, once it holds it, runs fn with a context that
	// is cancelled when the lock is lost (its watchdog could not renew it, an admin
	// force-released it, Redis lost it in a restart) or when ctx ends, and with the term's
	// fencing token: it grows with every term, so work that a stale holder could still do
	// after its lease ran out (a paused process) passes the fence to Redis, which refuses a
	// lower one than it has seen. The lock is renewed while fn runs and released when fn
	// returns. When fn returns because the lock was lost, Run campaigns again; an instance
	// that dies is replaced within the lease plus one retry. Run returns fn's result when fn
	// returns on its own, or ctx's error when ctx ends.
	Run(ctx context.Context, name string, fn func(ctx context.Context, fence int64) error) error
}

// ErrLockLost is the cause (context.Cause) of a held lock's context when the lock was lost
// while its holder still worked; the error wrapping it says why.
var ErrLockLost = errors.New("the lock was lost")

// ErrLockReleased is the cause of a held lock's context after its holder released it.
var ErrLockReleased = errors.New("the lock was released")

// ValidateLockOptions checks a lock's TTL, wait and owner. Returns EINVALID.
func ValidateLockOptions(opt LockOptions) error {
	if opt.TTL < MinLockTTL || opt.TTL > MaxLockTTL || opt.TTL%time.Millisecond != 0 {
		return Errorf(EINVALID, "ttl_ms must be a whole number of milliseconds from %d to %d (got %v)",
			MinLockTTL.Milliseconds(), MaxLockTTL.Milliseconds(), opt.TTL)
	}
	if opt.Wait < 0 || opt.Wait > MaxLockWait {
		return Errorf(EINVALID, "wait_ms must be from 0 to %d milliseconds (got %d)", MaxLockWait.Milliseconds(), opt.Wait.Milliseconds())
	}
	if opt.Owner != "" {
		return ValidateToken("owner", opt.Owner)
	}
	return nil
}

// ValidateToken checks a lock token or owner: 1..MaxTokenBytes bytes of printable UTF-8
// without spaces, which covers UUIDs, Redisson's "uuid:threadId" and zpulse's own.
// kind names it in the message. Returns EINVALID.
func ValidateToken(kind, token string) error {
	switch {
	case token == "":
		return Errorf(EINVALID, "%s is required: 1 to %d bytes of printable characters without spaces", kind, MaxTokenBytes)
	case len(token) > MaxTokenBytes:
		return Errorf(EINVALID, "%s must be at most %d bytes (got %d bytes)", kind, MaxTokenBytes, len(token))
	case !utf8.ValidString(token):
		return Errorf(EINVALID, "%s must be valid UTF-8", kind)
	}
	for _, r := range token {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return Errorf(EINVALID, "%s must be printable characters without spaces (found %U)", kind, r)
		}
	}
	return nil
}
