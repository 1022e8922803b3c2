// Package audit keeps zpulse's audit trail: every change request, accepted or refused, in one
// capped Redis stream (store.Keys.Audit).
package audit

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// Trail is the Redis implementation of domain.AuditLog.
type Trail struct {
	rdb        redis.UniversalClient
	key        string
	maxEntries int64
	maxAge     time.Duration
}

var _ domain.AuditLog = (*Trail)(nil)

// Defaults of the trail's caps (--audit-max-entries, --audit-max-age).
const (
	DefaultMaxEntries = 100_000
	DefaultMaxAge     = 90 * 24 * time.Hour
)

// NewTrail keeps the trail in keys.Audit(), at most maxEntries entries (about: the stream is
// trimmed by whole nodes) and none older than maxAge; zero values take the defaults.
func NewTrail(rdb redis.UniversalClient, keys store.Keys, maxEntries int64, maxAge time.Duration) *Trail {
	if maxEntries <= 0 {
		maxEntries = DefaultMaxEntries
	}
	if maxAge <= 0 {
		maxAge = DefaultMaxAge
	}
	return &Trail{rdb: rdb, key: keys.Audit(), maxEntries: maxEntries, maxAge: maxAge}
}

// Record appends e in one script call.
func (t *Trail) Record(ctx context.Context, e domain.AuditEntry) error {
	if len(e.Detail) > domain.AuditDetailMax {
		e.Detail = domain.Shorten(e.Detail, domain.AuditDetailMax)
	}
	err := recordScript.Run(ctx, t.rdb, []string{t.key}, t.maxEntries, t.maxAge.Milliseconds(),
		"actor", e.Actor, "role", e.Role, "via", e.Via, "action", e.Action, "target", e.Target,
		"detail", e.Detail, "outcome", e.Outcome, "client", e.Client, "request_id", e.RequestID).Err()
	return store.OpWriteError("audit.Trail.Record", err)
}

// readBatch is how many entries one XREVRANGE of List reads.
const readBatch = 200

var streamID = regexp.MustCompile(`^[0-9]{1,19}-[0-9]{1,19}$`)

// List reads newest first from the cursor (an entry id, exclusive) or the end, within f's
// time bounds, keeping the entries f matches, until f.Limit are found or domain.AuditScanMax
// were read.
func (t *Trail) List(ctx context.Context, f domain.AuditFilter) (domain.AuditPage, error) {
	const op = "audit.Trail.List"
	page := domain.AuditPage{Entries: []domain.AuditEntry{}}
	limit := f.Limit
	if limit <= 0 || limit > domain.AuditPageMax {
		limit = domain.AuditPageDefault
	}
	end, start := "+", "-"
	if !f.Until.IsZero() {
		end = strconv.FormatInt(f.Until.UnixMilli(), 10)
	}
	if f.Cursor != "" {
		if !streamID.MatchString(f.Cursor) {
			return page, domain.FieldErrorf("cursor", domain.EINVALID, "cursor is not one this trail gave out")
		}
		if end == "+" || idLess(f.Cursor, end+"-0") {
			end = "(" + f.Cursor
		}
	}
	if !f.Since.IsZero() {
		start = strconv.FormatInt(f.Since.UnixMilli(), 10)
	}
	for scanned := 0; scanned < domain.AuditScanMax; {
		msgs, err := t.rdb.XRevRangeN(ctx, t.key, end, start, readBatch).Result()
		if err != nil {
			return page, store.OpError(op, err)
		}
		for i, m := range msgs {
			scanned++
			if e := entryOf(m); f.Matches(e) {
				page.Entries = append(page.Entries, e)
			}
			if len(page.Entries) == limit || scanned == domain.AuditScanMax {
				if i < len(msgs)-1 || len(msgs) == readBatch {
					page.NextCursor = m.ID
				}
				return page, nil
			}
		}
		if len(msgs) < readBatch {
			return page, nil
		}
		end = "(" + msgs[len(msgs)-1].ID
	}
	return page, nil
}

// idLess says whether stream id a sorts before b.
func idLess(a, b string) bool {
	am, as, _ := strings.Cut(a, "-")
	bm, bs, _ := strings.Cut(b, "-")
	ams, _ := strconv.ParseUint(am, 10, 64)
	bms, _ := strconv.ParseUint(bm, 10, 64)
	if ams != bms {
		return ams < bms
	}
	asq, _ := strconv.ParseUint(as, 10, 64)
	bsq, _ := strconv.ParseUint(bs, 10, 64)
	return asq < bsq
}

func entryOf(m redis.XMessage) domain.AuditEntry {
	s := func(k string) string { v, _ := m.Values[k].(string); return v }
	ms, _, _ := strings.Cut(m.ID, "-")
	at, _ := strconv.ParseInt(ms, 10, 64)
	return domain.AuditEntry{ID: m.ID, At: time.UnixMilli(at).UTC(), Actor: s("actor"), Role: s("role"), Via: s("via"),
		Action: s("action"), Target: s("target"), Detail: s("detail"), Outcome: s("outcome"), Client: s("client"),
		RequestID: s("request_id")}
}

// PlanLatest adds the read of the trail's newest n entries to pipe (the watcher's poll: the
// audit topic) and returns its decoder.
func PlanLatest(ctx context.Context, pipe redis.Pipeliner, keys store.Keys, n int64) func() domain.AuditPage {
	cmd := pipe.XRevRangeN(ctx, keys.Audit(), "+", "-", n)
	return func() domain.AuditPage {
		page := domain.AuditPage{Entries: []domain.AuditEntry{}}
		for _, m := range cmd.Val() {
			page.Entries = append(page.Entries, entryOf(m))
		}
		return page
	}
}
