// Package views holds zpulse's templ components: the layout, the pages, and the fragments the
// live path pushes. Components take domain types and plain values; they never read Redis.
package views

import (
	"encoding/hex"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
)

// Chrome is what every page's frame shows besides the page itself.
type Chrome struct {
	Title      string
	Topics     []string // live topics the page subscribes to, besides domain.TopicStatus
	Embedded   bool     // data lives in an in-memory Redis inside this process
	AdminToken bool     // access is protected: an admin token or an authenticating proxy is configured
	SignedIn   bool     // this browser holds a session
	SSO        bool     // single sign-on (OpenID Connect) is configured: the sign-in page offers it
	// Actor is who is looking and the role they act with (the HTTP layer's identity): a
	// session's holder, a token's name, the client's address under open access, "anonymous".
	Actor      domain.Actor
	OpenAccess bool   // without an admin token, changes are accepted from every address, not only loopback
	CSRF       string // token for forms
	Status     Status
	Unread     bool              // the page's own read found Redis down: panels say so, never "nothing here"
	Path       string            // the page's own path, for "back here after sign-in"
	Keys       domain.KeyDisplay // Redis key names as pages show them
	LiveMode   domain.LiveMode   // how live updates learn of changes, for the footer; none shows nothing
	Flash      Flash             // what the last form did, shown once at the top of the page
	// Recent is the latest changes recorded about what the page shows, for admins; nil
	// shows none.
	Recent *Recent
	Notes  []string // notes about zpulse's own keys (an index of another type), atop the page
}

// Recent is a page's latest changes from the audit trail, and the trail's query that shows
// them all ("target=board:game").
type Recent struct {
	Entries []domain.AuditEntry
	Query   string
}

// Status is Redis availability as a page shows it.
type Status struct {
	Available bool
	Detail    string
	Notice    string // a warning while Redis answers: a partial outage (which slots), a failover
}

// CanWrite says whether this browser may use the forms that act on single things (points,
// jobs, locks, a limiter's try): the operator's. Can(domain.RoleAdmin) is the admin's forms.
func (c Chrome) CanWrite() bool { return c.Can(domain.RoleOperator) }

// Can says whether this browser may use the forms that need role r.
func (c Chrome) Can(r domain.Role) bool { return c.Actor.Role.Allows(r) }

// ReadOnlyWhy is the one line a disabled form shows: why it may not be used here and how to
// get access, in every mode.
func (c Chrome) ReadOnlyWhy(need domain.Role) string {
	switch {
	case !c.AdminToken && !c.OpenAccess:
		return "Read-only from this address: changes are accepted from this machine only. Ask whoever runs zpulse for an admin token (--admin-token) to sign in."
	case c.Actor.Role == domain.RoleNone:
		return "Read-only: sign in with a token (or your single sign-on) that has the " + need.String() + " role to use this."
	}
	return "Your role is " + c.Actor.Role.String() + ": this needs the " + need.String() + " role. Ask an admin for a token with it."
}

func (c Chrome) wsURL() string {
	q := url.Values{"topic": append([]string{domain.TopicStatus}, c.Topics...)}
	return "/ws?" + q.Encode()
}

// navLinks are the header's links, in order.
var navLinks = []struct{ href, label string }{
	{"/", "Overview"}, {"/boards", "Leaderboards"}, {"/queues", "Queues"}, {"/limiters", "Limiters"}, {"/locks", "Locks"},
	{"/sources", "Sources"},
	{"/schedules", "Schedules"},
}

// navLinksFor are the header's links for this reader: the audit trail for admins too.
func (c Chrome) navLinksFor() []struct{ href, label string } {
	if !c.Can(domain.RoleAdmin) {
		return navLinks
	}
	return append(slices.Clip(navLinks), struct{ href, label string }{"/audit", "Audit"})
}

// navCurrent says whether the page is href's or below it, for aria-current.
func (c Chrome) navCurrent(href string) bool {
	path, _, _ := strings.Cut(c.Path, "?")
	if href == "/" {
		return path == "/"
	}
	return path == href || strings.HasPrefix(path, href+"/")
}

func (c Chrome) loginURL() string {
	return "/login?" + url.Values{"next": {c.Path}}.Encode()
}

// domID turns a name into a string safe as an HTML id (and CSS selector) that is unique per name.
func domID(kind, name string) string { return kind + "-" + hex.EncodeToString([]byte(name)) }

// FormatCount shows a count with thousands separators (domain.FormatCount).
func FormatCount(n int64) string { return domain.FormatCount(n) }

// rankClass colours a rank's badge: gold, silver and bronze for the first three (app.css;
// the names are written out whole for Tailwind to find them).
func rankClass(rank int64) string {
	switch rank {
	case 1:
		return "rank-1"
	case 2:
		return "rank-2"
	case 3:
		return "rank-3"
	default:
		return "rank-n"
	}
}

// Plural picks the word for a count.
func Plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func statusText(status int) string { return strconv.Itoa(status) + " · " + http.StatusText(status) }

// formatMs shows milliseconds as people read them (domain.FormatDuration).
func formatMs(ms int64) string { return domain.FormatDuration(time.Duration(ms) * time.Millisecond) }

// timeValue is t as a filter's text box shows it: RFC 3339 in UTC, or "" for the zero time.
func timeValue(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)

}

// roleLabel is a role as the header says it: "viewer (read-only)", "operator", "admin".
func roleLabel(r domain.Role) string {
	if r == domain.RoleViewer {
		return "viewer (read-only)"
	}
	return r.String()
}

// Flash is a form's success message carried across its redirect (post/redirect/get): the
// form's id and what it did; shown once, at the top of the page it returned to.
type Flash struct {
	ID, Message string
}
