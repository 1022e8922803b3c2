package views

import (
	"net/url"
	"strconv"

	"github.com/zpulse/zpulse/internal/domain"
)

// LocksPanelID is the id of the /locks page's live panel (topic domain.TopicLocks).
const LocksPanelID = "locks-panel"

// LockForms is the state of the /locks page's acquire and release forms: what was typed,
// errors per field, and the outcome of the last action.
type LockForms struct {
	Lock, TTL, Wait, Owner string // acquire
	Watchdog               bool
	ReleaseLock, Token     string            // release
	Errors                 map[string]string // field -> message; "acquire" and "release" for a whole form
	Acquired               *domain.Lease
	Released               string // what the last release did, for people
}

// NewLockForms is the forms' state on a fresh page: a 30 s lease, no wait.
func NewLockForms() LockForms { return LockForms{TTL: "30", Wait: "0"} }

func lockURL(name string) string { return "/locks/" + url.PathEscape(name) }

// formatCountdown shows what is left of a lease: "never" for a key without expiry.
func formatCountdown(ms int64) string {
	if ms < 0 {
		return "never"
	}
	return formatMs(ms)
}

// leaseBarWidths are the widths of the lease bar, in twelfths; spelled out so Tailwind
// generates them (the CSP forbids inline styles).
var leaseBarWidths = []string{"w-0", "w-1/12", "w-2/12", "w-3/12", "w-4/12", "w-5/12", "w-6/12", "w-7/12", "w-8/12", "w-9/12", "w-10/12", "w-11/12", "w-full"}

// leaseBar is the width class of what is left of a lease, rounded up so a live lock never
// shows an empty bar.
func leaseBar(l domain.LockInfo) string {
	if l.LeaseMs <= 0 || l.RemainingMs < 0 {
		return leaseBarWidths[12]
	}
	i := (l.RemainingMs*12 + l.LeaseMs - 1) / l.LeaseMs
	return leaseBarWidths[min(max(i, 1), 12)]
}

// leaseBarColor turns the bar amber in the last third of the lease (where a watchdog would
// have renewed it) and red in the last tenth.
func leaseBarColor(l domain.LockInfo) string {
	switch {
	case l.LeaseMs <= 0 || l.RemainingMs < 0 || l.RemainingMs*3 > l.LeaseMs:
		return "bg-indigo-500"
	case l.RemainingMs*10 > l.LeaseMs:
		return "bg-amber-500"
	default:
		return "bg-rose-500"
	}
}

// formatFence shows a fencing token as the identifier it is, without separators.
func formatFence(f int64) string {
	if f <= 0 {
		return "—"
	}
	return strconv.FormatInt(f, 10)
}

// acquiredText says what a successful acquire got, after the lock's name.
func acquiredText(l domain.Lease) string {
	s := "is yours"
	if l.Holds > 1 {
		s += " (" + strconv.FormatInt(l.Holds, 10) + " holds)"
	}
	s += " for " + formatMs(l.TTLms)
	if l.Watchdog {
		s += ", renewed by the watchdog until released"
	}
	return s + "."
}

// holderText is a lock's holder as a page shows it: its token, or that it is withheld.
func holderText(l domain.LockInfo) string {
	if l.TokenHidden {
		return "hidden"
	}
	return l.Token
}

// holderTitle explains a withheld token on hover.
func holderTitle(l domain.LockInfo) string {
	if l.TokenHidden {
		return "The holder's token releases the lock: only a signed-in admin sees it"
	}
	return l.Token
}
