package domain

import (
	"context"
	"strings"
	"time"
)

// AuditEntry is one change request to zpulse, accepted or refused: who asked (Actor, Role,
// Via, Client), what for (Action, Target, Detail), and how it ended (Outcome: "ok" or the
// error code). Detail is a short summary for people; it never holds a payload, a token's
// secret, a lock token or a password.
type AuditEntry struct {
	ID        string    `json:"id"` // the stream id, set by the store
	At        time.Time `json:"at"` // set by the store from the id
	Actor     string    `json:"actor"`
	Role      string    `json:"role"`
	Via       string    `json:"via"`
	Action    string    `json:"action"` // dotted: board.add_points, jobs.requeue, token.create, ...
	Target    string    `json:"target"` // board:game:2048, queue:email, ...
	Detail    string    `json:"detail"`
	Outcome   string    `json:"outcome"`
	Client    string    `json:"client"`
	RequestID string    `json:"request_id"`
}

// AuditOK is the outcome of a change that happened.
const AuditOK = "ok"

// Audit limits: a page of the trail, the entries one call may read past a filter, a detail's
// length.
const (
	AuditPageDefault = 50
	AuditPageMax     = 500
	AuditScanMax     = 5000
	AuditDetailMax   = 200
)

// AuditFilter picks entries of the trail: every non-empty field must match (Actor exactly;
// Action exactly or as a dotted prefix ending in "."; Target exactly or as the thing a
// target's part belongs to: "queue:email" picks "queue:email/job-1"), Since and Until bound At
// (zero: open). Cursor continues a previous page; Limit is 1..AuditPageMax.
type AuditFilter struct {
	Actor, Action, Target string
	Since, Until          time.Time
	Cursor                string
	Limit                 int
}

// Matches says whether e passes f's field filters (the time bounds are the store's).
func (f AuditFilter) Matches(e AuditEntry) bool {
	if f.Actor != "" && e.Actor != f.Actor {
		return false
	}
	if f.Target != "" && e.Target != f.Target && !strings.HasPrefix(e.Target, f.Target+"/") {
		return false
	}
	if f.Action != "" && e.Action != f.Action && !(strings.HasSuffix(f.Action, ".") && strings.HasPrefix(e.Action, f.Action)) {
		return false
	}
	return true
}

// AuditPage is a page of the trail, newest first. NextCursor continues it ("" at the end).
type AuditPage struct {
	Entries    []AuditEntry `json:"entries"`
	NextCursor string       `json:"next_cursor"`
}

// AuditLog keeps the audit trail.
type AuditLog interface {
	// Record appends e (its ID and At are the store's). Returns EUNAVAILABLE or EUNKNOWN.
	Record(ctx context.Context, e AuditEntry) error
	// List reads the entries that f picks, newest first, scanning at most AuditScanMax
	// entries a call (a page may then be short, with a cursor to go on). Returns EINVALID
	// for a cursor it did not make, EUNAVAILABLE.
	List(ctx context.Context, f AuditFilter) (AuditPage, error)
}
