package auth

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// A token is made once (its name then taken), found by its secret only, stored as a hash,
// listed without it, and revoked at once: for its secret and for the sessions opened with it.
func TestTokens(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	clock := domain.NewManualClock(testNow)
	a := NewAuth(rdb, store.DefaultKeys, store.Clocks{Script: clock})
	ctx := context.Background()
	tok, secret, err := a.CreateToken(ctx, domain.NewAPIToken{Name: "ci.deploy", Role: domain.RoleOperator, CreatedBy: "admin"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(secret, tokenPrefix+tok.ID+"_") || len(secret) < 60 {
		t.Fatalf("secret %q", secret)
	}
	if _, _, err := a.CreateToken(ctx, domain.NewAPIToken{Name: "ci.deploy", Role: domain.RoleViewer}); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Fatalf("a second token of one name: %v", err)
	}
	for _, bad := range []domain.NewAPIToken{{Name: "", Role: domain.RoleViewer}, {Name: "Upper", Role: domain.RoleViewer},
		{Name: strings.Repeat("a", 65), Role: domain.RoleViewer}, {Name: "x", Role: domain.RoleNone}, {Name: "x", Role: domain.RoleViewer, ExpiresIn: -time.Second}} {
		if _, _, err := a.CreateToken(ctx, bad); domain.ErrorCode(err) != domain.EINVALID {
			t.Errorf("CreateToken(%+v) = %v, want invalid", bad, err)
		}
	}
	// Only the hash is stored.
	for _, k := range rdb.Keys(ctx, "*").Val() {
		for _, v := range rdb.HGetAll(ctx, k).Val() {
			if strings.Contains(v, secret[len(tokenPrefix)+17:]) {
				t.Fatalf("the secret is stored at %s", k)
			}
		}
	}
	got, ok, err := a.TokenBySecret(ctx, secret)
	if err != nil || !ok || got.Name != "ci.deploy" || got.Role != domain.RoleOperator {
		t.Fatalf("TokenBySecret = %+v %v %v", got, ok, err)
	}
	// The last character changed (to one it is not: a random secret may end in either).
	lastChanged := secret[:len(secret)-1] + "A"
	if strings.HasSuffix(secret, "A") {
		lastChanged = secret[:len(secret)-1] + "B"
	}
	for _, wrong := range []string{"", "zpt_", secret + "x", lastChanged, "zpt_" + tok.ID, "zpt_zzzzzzzzzzzzzzzz_abc"} {
		if _, ok, err := a.TokenBySecret(ctx, wrong); ok || err != nil {
			t.Errorf("TokenBySecret(%q) = %v %v", wrong, ok, err)
		}
	}
	list, err := a.Tokens(ctx)
	if err != nil || len(list) != 1 || list[0].LastUsed.IsZero() || list[0].CreatedBy != "admin" {
		t.Fatalf("Tokens = %+v %v", list, err)
	}
	sid, _ := a.CreateSession(ctx, time.Hour, "fp", domain.SessionHolder{Name: "ci.deploy", Role: domain.RoleOperator, Token: tok.ID})
	if _, live, _ := a.Session(ctx, sid, "fp"); !live {
		t.Fatal("a token's session is not live")
	}
	if err := a.RevokeToken(ctx, "ci.deploy"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := a.TokenBySecret(ctx, secret); ok {
		t.Error("a revoked token is accepted")
	}
	if _, live, _ := a.Session(ctx, sid, "fp"); live {
		t.Error("a revoked token's session is live")
	}
	if err := a.RevokeToken(ctx, "ci.deploy"); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Errorf("revoking twice: %v", err)
	}
	// A token that expires is refused from then on, and listed no more.
	_, short, err := a.CreateToken(ctx, domain.NewAPIToken{Name: "short", Role: domain.RoleViewer, ExpiresIn: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := a.TokenBySecret(ctx, short); !ok {
		t.Fatal("a fresh token is refused")
	}
	clock.Advance(time.Hour)
	if _, ok, _ := a.TokenBySecret(ctx, short); ok {
		t.Error("an expired token is accepted")
	}
	if list, _ := a.Tokens(ctx); len(list) != 0 {
		t.Errorf("expired tokens listed: %+v", list)
	}
}
