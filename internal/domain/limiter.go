package domain

import (
	"context"
	"math"
	"strings"
)

// Algorithm is how a limiter policy counts requests.
type Algorithm string

// The four algorithms. Each keeps its state in Redis and decides in one Lua script.
const (
	// SlidingLog keeps the time of every admitted request in a ZSET (the articles' sliding
	// window): exact, memory grows with the limit.
	SlidingLog Algorithm = "sliding_log"
	// FixedWindow counts requests per window aligned on the epoch: constant memory, but up to
	// twice the limit can pass around a window boundary.
	FixedWindow Algorithm = "fixed_window"
	// SlidingCounter weighs the previous fixed window's count by how much of it still
	// overlaps the sliding window: constant memory, an estimate that assumes the previous
	// window's requests were spread evenly.
	SlidingCounter Algorithm = "sliding_counter"
	// TokenBucket refills RatePerS tokens a second up to Burst; a request takes one.
	TokenBucket Algorithm = "token_bucket"
)

// Algorithms lists the algorithms in the order the page offers them.
var Algorithms = []Algorithm{SlidingLog, FixedWindow, SlidingCounter, TokenBucket}

// DefaultLimiter is the policy whose sliding-window log lives on rate:<client>, the key of the
// articles' service, so zpulse and that service count the same requests. It always exists:
// until it is saved it is DefaultPolicy.
const DefaultLimiter = "default"

// BuiltinLimiter says a policy is one zpulse itself needs ("default", the sign-in limit
// SignInAttempts), so it cannot be deleted.
func BuiltinLimiter(name string) bool { return name == DefaultLimiter || name == SignInAttempts.Name }

// DefaultPolicy is the policy "default" before anybody saved one: the articles' test, 3
// requests per 10 seconds.
var DefaultPolicy = LimitPolicy{Name: DefaultLimiter, Algorithm: SlidingLog, Limit: 3, WindowMs: 10_000}

// Bounds of a policy's numbers.
const (
	MaxLimit    = 1_000_000
	MinWindowMs = 10
	MaxWindowMs = 86_400_000 // one day
	MaxRatePerS = 1_000_000
	MaxBurst    = 1_000_000
	// MinRatePerS keeps a bucket's time to refill one token under a day.
	MinRatePerS = 0.001
)

// LimitPolicy is a named rate limit. Window algorithms use Limit and WindowMs; the token
// bucket uses RatePerS and Burst.
type LimitPolicy struct {
	Name      string    `json:"name"`
	Algorithm Algorithm `json:"algorithm"`
	Limit     int64     `json:"limit,omitempty"`
	WindowMs  int64     `json:"window_ms,omitempty"`
	RatePerS  float64   `json:"rate_per_s,omitempty"`
	Burst     int64     `json:"burst,omitempty"`
	// SharedWindowMs (sliding_log only) is the longest window of any other service that
	// keeps its log on the same keys (the article's service on rate:<client>, say): zpulse
	// then keeps every entry younger than that window, not just its own, and never shortens
	// the key's expiry below it, so the service still counts all its requests. 0: none stated;
	// zpulse then trims nothing while it sees a writer with a longer window (see SeenWindowMs).
	SharedWindowMs int64 `json:"shared_window_ms,omitempty"`
	// SeenWindowMs (read only) is the longest window zpulse has seen another writer use on
	// this policy's keys, a lower bound read from the key's expiry; the limiter page warns when
	// it is longer than the window zpulse keeps (KeepMs).
	SeenWindowMs int64 `json:"seen_window_ms,omitempty"`
}

// KeepMs is how far back a sliding log keeps entries: the policy's window, or the longest
// window of the services sharing its keys.
func (p LimitPolicy) KeepMs() int64 { return max(p.WindowMs, p.SharedWindowMs) }

// LongerWriter says whether zpulse has seen a writer on the policy's keys whose window is
// longer than the entries it keeps.
func (p LimitPolicy) LongerWriter() bool {
	return p.Algorithm == SlidingLog && p.SeenWindowMs > p.KeepMs()
}

// Quota is how many requests the policy admits at once: Limit, or Burst for a bucket.
func (p LimitPolicy) Quota() int64 {
	if p.Algorithm == TokenBucket {
		return p.Burst
	}
	return p.Limit
}

// QuotaWindowMs is the time over which Quota applies: the window, or for a bucket the time
// it takes to refill from empty to full.
func (p LimitPolicy) QuotaWindowMs() int64 {
	if p.Algorithm == TokenBucket {
		if p.RatePerS <= 0 {
			return 0
		}
		return int64(math.Ceil(float64(p.Burst) * 1000 / p.RatePerS))
	}
	return p.WindowMs
}

// Validate checks a policy and clears the fields its algorithm does not use.
// Returns EINVALID with a message that says what is allowed.
func (p *LimitPolicy) Validate() error {
	if err := ValidateLimiterName(p.Name); err != nil {
		return err
	}
	switch p.Algorithm {
	case SlidingLog, FixedWindow, SlidingCounter:
		if p.Limit < 1 || p.Limit > MaxLimit {
			return FieldErrorf("limit", EINVALID, "limit must be a whole number of requests from 1 to %s (got %s)", FormatCount(MaxLimit), FormatCount(p.Limit))
		}
		if p.WindowMs < MinWindowMs || p.WindowMs > MaxWindowMs {
			return FieldErrorf("window_ms", EINVALID, "window_ms must be from %s (10 ms) to %s (one day) (got %s)", FormatCount(MinWindowMs), FormatCount(MaxWindowMs), FormatCount(p.WindowMs))
		}
		if p.SharedWindowMs != 0 && p.Algorithm != SlidingLog {
			return FieldErrorf("shared_window_ms", EINVALID, "shared_window_ms applies to sliding_log policies only")
		}
		if p.SharedWindowMs != 0 && (p.SharedWindowMs < p.WindowMs || p.SharedWindowMs > MaxWindowMs) {
			return FieldErrorf("shared_window_ms", EINVALID, "shared_window_ms must be 0 (none) or from window_ms (%d) to %d (one day) (got %d)", p.WindowMs, MaxWindowMs, p.SharedWindowMs)
		}
		p.RatePerS, p.Burst = 0, 0
	case TokenBucket:
		if math.IsNaN(p.RatePerS) || p.RatePerS < MinRatePerS || p.RatePerS > MaxRatePerS {
			return FieldErrorf("rate_per_s", EINVALID, "rate_per_s must be from %g to %d tokens a second (got %g)", MinRatePerS, MaxRatePerS, p.RatePerS)
		}
		if p.Burst < 1 || p.Burst > MaxBurst {
			return FieldErrorf("burst", EINVALID, "burst must be a whole number of tokens from 1 to %s (got %s)", FormatCount(MaxBurst), FormatCount(p.Burst))
		}
		if p.SharedWindowMs != 0 {
			return FieldErrorf("shared_window_ms", EINVALID, "shared_window_ms applies to sliding_log policies only")
		}
		p.Limit, p.WindowMs = 0, 0
	case "":
		return FieldErrorf("algorithm", EINVALID, "algorithm is required: one of %s", algorithmList())
	default:
		return FieldErrorf("algorithm", EINVALID, "algorithm must be one of %s (got %q)", algorithmList(), clip(string(p.Algorithm)))
	}
	if p.Name == DefaultLimiter && p.Algorithm != SlidingLog {
		return FieldErrorf("algorithm", EINVALID, "the policy %q is the articles' sliding-window log on rate:<client> and stays sliding_log; create another policy for %s", DefaultLimiter, p.Algorithm)
	}
	return nil
}

// ValidateLimiterName checks a limiter policy's name (see ValidateName). Any name is safe:
// every policy but "default" keeps its clients' state under an algorithm tag and the client
// in braces (see redisrepo.Keys), so no name can reach another policy's keys. Returns EINVALID.
func ValidateLimiterName(name string) error { return ValidateName("limiter", name) }

// ValidateClient checks a limiter client id: a member (see ValidateMember) without braces.
// The braces mark where the client starts and ends in the keys of every policy but
// "default" (rate:<algorithm>:<policy>:{<client>}), which keeps its keys apart from the
// default policy's rate:<client> and from other policies' clients. Returns EINVALID.
func ValidateClient(client string) error {
	if err := ValidateMember("client", client); err != nil {
		return err
	}
	if strings.ContainsAny(client, "{}") {
		return Errorf(EINVALID, "client may not contain { or }: zpulse keeps a client's state under rate:<algorithm>:<policy>:{<client>}, where braces mark the client (got %q)", clip(client))
	}
	return nil
}

func algorithmList() string {
	names := make([]string, len(Algorithms))
	for i, a := range Algorithms {
		names[i] = string(a)
	}
	return strings.Join(names, ", ")
}

// LimitResult is a limiter's answer for one client.
type LimitResult struct {
	Allowed bool `json:"allowed"`
	// Limit is the policy's quota (Limit, or Burst for a bucket).
	Limit int64 `json:"limit"`
	// Remaining is how many more requests would be admitted right now.
	Remaining int64 `json:"remaining"`
	// RetryAfterMs is how long until the next request would be admitted; 0 when it would be now.
	RetryAfterMs int64 `json:"retry_after_ms"`
	// ResetMs is how long until the client has its whole quota again.
	ResetMs int64 `json:"reset_ms"`
	// AtMs is the epoch ms the decision was made at, by the limiter's clock (Redis TIME
	// unless a clock was injected).
	AtMs int64 `json:"-"`
	// Policy is the policy the decision was made under.
	Policy LimitPolicy `json:"-"`
}

// LimiterService limits the rate of clients' requests under named policies kept in Redis and
// shared by every instance.
type LimiterService interface {
	// Allow counts one request of client under the policy and says whether it is admitted.
	// A rejected request is not counted. Atomic: one Lua script.
	// Returns ENOTFOUND when there is no such policy (DefaultLimiter always exists);
	// EINVALID for a bad name or client; EUNAVAILABLE.
	Allow(ctx context.Context, limiter, client string) (LimitResult, error)

	// Peek is Allow without counting: what the next request would get.
	// Returns ENOTFOUND, EINVALID, EUNAVAILABLE.
	Peek(ctx context.Context, limiter, client string) (LimitResult, error)

	// Policy returns a policy. Returns ENOTFOUND, EINVALID, EUNAVAILABLE.
	Policy(ctx context.Context, limiter string) (LimitPolicy, error)

	// Clients pages through every client the limiter has seen, the latest seen first
	// (1 ≤ limit ≤ MaxPageLimit, after a NextCursor or ""). Reads only: nothing is counted.
	// Returns EINVALID (naming cursor or limit), EUNAVAILABLE.
	Clients(ctx context.Context, limiter, cursor string, limit int) (ClientPage, error)

	// SetPolicy creates or replaces a policy; every instance uses it within a second.
	// Clients' state is kept when the algorithm stays the same.
	// Returns EINVALID, EUNAVAILABLE.
	SetPolicy(ctx context.Context, p LimitPolicy) (LimitPolicy, error)

	// DeletePolicy deletes a saved policy and its list of clients; the clients' counters
	// expire with their windows. Every instance stops using it within a second.
	// Returns ECONFLICT for a BuiltinLimiter; ENOTFOUND when no such policy is saved;
	// EINVALID; EUNAVAILABLE.
	DeletePolicy(ctx context.Context, limiter string) error

	// Policies lists the saved policies and DefaultLimiter, sorted by name.
	// Returns EUNAVAILABLE.
	Policies(ctx context.Context) ([]LimitPolicy, error)

	// View reads what a limiter's page shows (see LimiterView).
	// Returns EINVALID, EUNAVAILABLE; a policy that does not exist gives Exists false.
	View(ctx context.Context, limiter string) (LimiterView, error)

	// Views reads the view of every saved limiter (and DefaultLimiter), sorted by name, as the
	// limiters overview shows them, in a fixed number of round trips. Returns EUNAVAILABLE.
	Views(ctx context.Context) ([]LimiterView, error)
}

// LimiterView is a limiter's live state as its page shows it. It is a plain value: two views
// of the same state are equal, so the live path pushes only changes.
type LimiterView struct {
	Policy LimitPolicy
	// StateKey names, for people, the Redis key that holds a client's state under the policy
	// (type and pattern, e.g. "ZSET rate:<client>"): views never spell keys.
	StateKey string
	// Exists is false for a name nobody saved a policy under.
	Exists bool
	// NowMs is the time the view was read at, in whole seconds (as ms) so the view changes
	// at most once a second while clients are active; 0 when no client is active (Seconds
	// are drawn at their own seconds, and the browser slides them).
	NowMs int64
	// Clients are the active clients, sorted by name, at most MaxViewClients.
	Clients []ClientUsage
	// More is how many more active clients there are than Clients shows.
	More int
	// Seconds counts the checks zpulse made in each of the last ViewSeconds seconds, oldest
	// first; empty when there were none.
	Seconds []SecondCount
}

// How much a limiter view shows.
const (
	MaxViewClients = 50
	MaxViewEvents  = 120
	ViewSeconds    = 60
)

// ClientUsage is one client's state under a policy.
type ClientUsage struct {
	Client    string
	Used      int64 // requests counted in the window (for a bucket: tokens taken and not yet refilled)
	Limit     int64
	Remaining int64
	// ResetMs is how long until the client has its whole quota again.
	ResetMs int64
	// RetryAfterMs is how long until the next request would be admitted.
	RetryAfterMs int64
	// Events are the client's recent requests in the window, oldest first.
	Events []LimitEvent
}

// Full says the client's next request would be rejected.
func (u ClientUsage) Full() bool { return u.Remaining <= 0 }

// LimitEvent is one request on a client's timeline.
type LimitEvent struct {
	AtMs    int64
	Allowed bool
}

// SecondCount is how many checks zpulse admitted and rejected in one second.
type SecondCount struct {
	Sec      int64 // unix seconds
	Allowed  int64
	Rejected int64
}

// ClientSeen is a client a limiter has seen and when it last did.
type ClientSeen struct {
	Client     string `json:"client"`
	LastSeenMs int64  `json:"last_seen_ms"`
}

// ClientPage is one page of a limiter's clients: NextCursor is nil on the last page.
type ClientPage struct {
	Clients    []ClientSeen `json:"clients"`
	NextCursor *string      `json:"next_cursor"`
	Total      int64        `json:"total"`
}
