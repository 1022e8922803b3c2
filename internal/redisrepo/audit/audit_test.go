package audit

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// Entries come back newest first, with every field as recorded, paged by cursor and
// filtered by actor, action (exact or a dotted prefix) and target, on one node and the Cluster.
func TestTrailRecordsAndLists(t *testing.T) {
	redistest.ForEachTopologyParallel(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		tr := NewTrail(rdb, store.DefaultKeys, 0, 0)
		for i := range 7 {
			actor := "alice"
			if i%2 == 1 {
				actor = "bob"
			}
			e := domain.AuditEntry{Actor: actor, Role: "operator", Via: domain.ViaAPI, Action: "board.add_points",
				Target: "board:game", Detail: fmt.Sprintf("+%d points to p1", i), Outcome: domain.AuditOK,
				Client: "192.0.2.1", RequestID: fmt.Sprint("r", i)}
			if i == 6 {
				e.Action, e.Target = "jobs.requeue", "queue:email"
			}
			if err := tr.Record(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
		all, err := tr.List(ctx, domain.AuditFilter{})
		if err != nil || len(all.Entries) != 7 || all.NextCursor != "" {
			t.Fatalf("List = %d entries, cursor %q, %v", len(all.Entries), all.NextCursor, err)
		}
		first := all.Entries[0]
		if first.Detail != "+6 points to p1" || first.Action != "jobs.requeue" || first.Target != "queue:email" ||
			first.Actor != "alice" || first.Role != "operator" || first.Via != "api" || first.Outcome != "ok" ||
			first.Client != "192.0.2.1" || first.RequestID != "r6" || first.ID == "" || (redistest.ServerClock{}).Now().Sub(first.At) > time.Hour {
			t.Errorf("newest entry %+v", first)
		}
		// Pages of 3 follow each other without gaps or repeats.
		var ids []string
		f := domain.AuditFilter{Limit: 3}
		for {
			p, err := tr.List(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range p.Entries {
				ids = append(ids, e.Detail)
			}
			if p.NextCursor == "" {
				break
			}
			f.Cursor = p.NextCursor
		}
		if fmt.Sprint(ids) != "[+6 points to p1 +5 points to p1 +4 points to p1 +3 points to p1 +2 points to p1 +1 points to p1 +0 points to p1]" {
			t.Errorf("paged = %v", ids)
		}
		now := redistest.ServerClock{}.Now() // the entries' ids are Redis's time
		for _, c := range []struct {
			f    domain.AuditFilter
			want int
		}{
			{domain.AuditFilter{Actor: "bob"}, 3},
			{domain.AuditFilter{Action: "board.add_points"}, 6},
			{domain.AuditFilter{Action: "board."}, 6},
			{domain.AuditFilter{Action: "board"}, 0},
			{domain.AuditFilter{Target: "queue:email"}, 1},
			{domain.AuditFilter{Since: now.Add(time.Hour)}, 0},
			{domain.AuditFilter{Until: now.Add(-time.Hour)}, 0},
			{domain.AuditFilter{Since: now.Add(-time.Hour), Until: now.Add(time.Hour)}, 7},
		} {
			p, err := tr.List(ctx, c.f)
			if err != nil || len(p.Entries) != c.want {
				t.Errorf("List(%+v) = %d entries, %v; want %d", c.f, len(p.Entries), err, c.want)
			}
		}
		if _, err := tr.List(ctx, domain.AuditFilter{Cursor: "not-an-id"}); domain.ErrorCode(err) != domain.EINVALID {
			t.Errorf("a made-up cursor: %v", err)
		}
	})
}

// The trail keeps no entry older than its age limit and about its count limit.
func TestTrailIsCapped(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	ctx := context.Background()
	key := store.DefaultKeys.Audit()
	// An entry from long ago, as a trail kept by an older zpulse would hold.
	if err := rdb.XAdd(ctx, &redis.XAddArgs{Stream: key, ID: "1000-0", Values: []string{"action", "old"}}).Err(); err != nil {
		t.Fatal(err)
	}
	tr := NewTrail(rdb, store.DefaultKeys, 100, time.Hour)
	for range 1000 {
		if err := tr.Record(ctx, domain.AuditEntry{Action: "board.add_points"}); err != nil {
			t.Fatal(err)
		}
	}
	if n := rdb.XLen(ctx, key).Val(); n < 100 || n > 300 {
		t.Errorf("%d entries kept of 1000 with a cap of 100", n)
	}
	if old := rdb.XRange(ctx, key, "-", "1000").Val(); len(old) != 0 {
		t.Errorf("an entry older than the age limit is kept: %v", old)
	}
}

// A detail is cut to domain.AuditDetailMax; a trail key of another type is a wrong_type error.
func TestTrailShortensAndRefusesWrongType(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	ctx := context.Background()
	tr := NewTrail(rdb, store.DefaultKeys, 0, 0)
	long := string(make([]byte, 1000))
	if err := tr.Record(ctx, domain.AuditEntry{Detail: long}); err != nil {
		t.Fatal(err)
	}
	p, _ := tr.List(ctx, domain.AuditFilter{})
	if len(p.Entries) != 1 || len(p.Entries[0].Detail) > domain.AuditDetailMax {
		t.Errorf("detail of %d bytes kept", len(p.Entries[0].Detail))
	}
	rdb.Del(ctx, store.DefaultKeys.Audit())
	rdb.Set(ctx, store.DefaultKeys.Audit(), "x", 0)
	if err := tr.Record(ctx, domain.AuditEntry{}); domain.ErrorCode(err) != domain.CodeWrongType {
		t.Errorf("Record on a string key: %v", err)
	}
}
