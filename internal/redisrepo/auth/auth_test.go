package auth

import (
	"context"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// A session lives until it is ended, everywhere at once, or its token changes; its id is
// never a key.
func TestAuthSessions(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	a := NewAuth(rdb, store.DefaultKeys, store.Clocks{})
	ctx := context.Background()
	admin := domain.SessionHolder{Name: "admin", Role: domain.RoleAdmin}
	one, err := a.CreateSession(ctx, time.Hour, "fp", admin)
	if err != nil {
		t.Fatal(err)
	}
	two, _ := a.CreateSession(ctx, time.Hour, "fp", domain.SessionHolder{Name: "ann:x@example.com", Role: domain.RoleViewer})
	for _, c := range []struct {
		id, fp string
		want   bool
	}{{one, "fp", true}, {two, "fp", true}, {one, "other-token", false}, {"made-up", "fp", false}, {"", "fp", false}} {
		if _, got, err := a.Session(ctx, c.id, c.fp); err != nil || got != c.want {
			t.Errorf("Session(%q, %q) = %v %v, want %v", c.id, c.fp, got, err, c.want)
		}
	}
	if ttl := rdb.PTTL(ctx, store.DefaultKeys.Session(SessionHash(one))).Val(); ttl <= 0 || ttl > time.Hour {
		t.Errorf("record PTTL %v", ttl)
	}
	if err := a.EndSession(ctx, one); err != nil {
		t.Fatal(err)
	}
	if h, _, _ := a.Session(ctx, two, "fp"); h != (domain.SessionHolder{Name: "ann:x@example.com", Role: domain.RoleViewer}) {
		t.Errorf("holder %+v", h)
	}
	if _, live, _ := a.Session(ctx, one, "fp"); live {
		t.Error("an ended session is live")
	}
	if _, live, _ := a.Session(ctx, two, "fp"); !live {
		t.Error("ending one session ended another")
	}
	if err := a.EndAllSessions(ctx); err != nil {
		t.Fatal(err)
	}
	if _, live, _ := a.Session(ctx, two, "fp"); live {
		t.Error("a session outlived EndAllSessions")
	}
	three, _ := a.CreateSession(ctx, time.Hour, "fp", admin)
	if _, live, _ := a.Session(ctx, three, "fp"); !live {
		t.Error("a session opened after EndAllSessions is not live")
	}
}

// The attempt limit counts wrong attempts up to domain.SignInAttempts.Limit, then refuses
// wrong and right alike; a right attempt counts nothing.
func TestAuthAttempts(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	clock := domain.NewManualClock(time.UnixMilli(1_800_000_000_000))
	a := NewAuth(rdb, store.DefaultKeys, store.Clocks{Script: clock})
	ctx := context.Background()
	for i := range domain.SignInAttempts.Limit {
		if r, err := a.Attempt(ctx, "203.0.113.1", false); err != nil || !r.Allowed || r.Remaining != domain.SignInAttempts.Limit-i {
			t.Fatalf("right attempt after %d wrong: %+v %v", i, r, err)
		}
		if r, err := a.Attempt(ctx, "203.0.113.1", true); err != nil || !r.Allowed {
			t.Fatalf("wrong attempt %d: %+v %v", i+1, r, err)
		}
	}
	for _, wrong := range []bool{true, false} {
		if r, _ := a.Attempt(ctx, "203.0.113.1", wrong); r.Allowed || r.RetryAfterMs <= 0 {
			t.Errorf("attempt (wrong %v) past the limit: %+v", wrong, r)
		}
	}
	if r, _ := a.Attempt(ctx, "::1", false); !r.Allowed {
		t.Errorf("another address is limited: %+v", r)
	}
	clock.Advance(time.Duration(domain.SignInAttempts.WindowMs) * time.Millisecond)
	if r, _ := a.Attempt(ctx, "203.0.113.1", false); !r.Allowed {
		t.Errorf("next window: %+v", r)
	}
}
