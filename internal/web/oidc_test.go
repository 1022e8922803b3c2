package web

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// oidcCase is one sign-in against a real OpenID provider (mockoidc, serving discovery, the
// authorization and token endpoints and its keys over HTTP in this process).
type oidcCase struct {
	provider *mockoidc.MockOIDC
	zpulse   *httptest.Server
	client   *http.Client // keeps cookies, follows no redirect
	trail    domain.AuditLog
}

// startOIDC starts a provider (with mw, if given, in front of its endpoints) and a zpulse
// over the package's Redis that signs in with it, with no admin token: single sign-on alone
// protects it. tweak adjusts zpulse's OIDC settings.
func startOIDC(t *testing.T, mw func(m *mockoidc.MockOIDC) func(http.Handler) http.Handler, tweak func(*OIDCConfig)) oidcCase {
	t.Helper()
	m, err := mockoidc.NewServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	if mw != nil {
		if err := m.AddMiddleware(mw(m)); err != nil {
			t.Fatal(err)
		}
	}
	pln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(pln, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rdb := redistest.DB(t)
	w := newTestWiring(t, rdb, "")
	cfg := OIDCConfig{Issuer: m.Issuer(), ClientID: m.ClientID, ClientSecret: m.ClientSecret,
		RedirectURL: "http://" + ln.Addr().String() + "/login/oidc/callback", RolesClaim: "groups", Scopes: []string{"profile", "email", "groups"},
		Admins: []string{"zpulse-admins"}, Operators: []string{"live-ops", "ops@example.com"}, Default: domain.RoleViewer}
	if tweak != nil {
		tweak(&cfg)
	}
	w.deps.OIDC = NewOIDC(cfg, w.deps.Log)
	srv := httptest.NewUnstartedServer(NewServer(w.deps))
	_ = srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(func() { w.deps.Hub.Close(); srv.Close() })
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return oidcCase{provider: m, zpulse: srv, client: client, trail: w.deps.Trail}
}

func (o oidcCase) get(t *testing.T, u string) (*http.Response, string) {
	t.Helper()
	resp, err := o.client.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(body)
}

// signIn signs in as user: zpulse's /login/oidc, the provider's authorization endpoint, then
// zpulse's callback (changed by tamper, if given, as an attacker would); it answers the
// callback's response.
func (o oidcCase) signIn(t *testing.T, user *mockoidc.MockUser, tamper func(url.Values)) (*http.Response, string) {
	t.Helper()
	o.provider.QueueUser(user)
	resp, _ := o.get(t, o.zpulse.URL+"/login/oidc?next=/queues")
	to := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusFound || !strings.HasPrefix(to, o.provider.AuthorizationEndpoint()) {
		t.Fatalf("/login/oidc: %d %q, want a redirect to the provider", resp.StatusCode, to)
	}
	q := mustURL(t, to).Query()
	if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("nonce") == "" || q.Get("state") == "" {
		t.Fatalf("the authorization request lacks PKCE, nonce or state: %v", q)
	}
	resp, body := o.get(t, to)
	back := mustURL(t, resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusFound || !strings.HasSuffix(back.Path, "/login/oidc/callback") {
		t.Fatalf("the provider: %d %q %s", resp.StatusCode, back, body)
	}
	if tamper != nil {
		bq := back.Query()
		tamper(bq)
		back.RawQuery = bq.Encode()
	}
	return o.get(t, back.String())
}

// audited waits for the audit trail's record of the sign-in by actor with outcome (it is
// written once the answer is sent), failing after 5 s without it.
func (o oidcCase) audited(t *testing.T, actor, outcome string) {
	t.Helper()
	give := time.After(5 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		page, err := o.trail.List(context.Background(), domain.AuditFilter{Actor: actor, Action: "session.sign_in", Limit: 10})
		if err == nil && len(page.Entries) > 0 && page.Entries[0].Outcome == outcome {
			return
		}
		select {
		case <-give:
			t.Fatalf("no audit record of %s's sign-in with outcome %s: %+v %v", actor, outcome, page, err)
		case <-tick.C:
		}
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// session is the value of this browser's zpulse session cookie, "" without one.
func (o oidcCase) session(t *testing.T) string {
	t.Helper()
	for _, ck := range o.client.Jar.Cookies(mustURL(t, o.zpulse.URL)) {
		if ck.Name == sessionCookie {
			return ck.Value
		}
	}
	return ""
}

// signedInAs checks the page header names the person with the role.
func (o oidcCase) signedInAs(t *testing.T, name string, role domain.Role) {
	t.Helper()
	if o.session(t) == "" {
		t.Fatal("no session cookie after signing in")
	}
	_, body := o.get(t, o.zpulse.URL+"/")
	if !strings.Contains(body, `data-testid="actor-name">`+name+`<`) || !strings.Contains(body, `data-testid="actor-role">`+role.String()) {
		i := strings.Index(body, "actor-name")
		t.Errorf("the header does not name %s with the %s role: %.300s", name, role, body[max(i, 0):])
	}
}

// A person signs in with the provider and gets a session naming them, with the role their
// groups or verified e-mail address give, else the default; the session ends on sign-out.
func TestOIDCSignInGivesTheRole(t *testing.T) {
	t.Parallel()
	cases := []struct {
		user *mockoidc.MockUser
		name string
		role domain.Role
	}{
		{&mockoidc.MockUser{Subject: "u1", Email: "boss@example.com", EmailVerified: true, Groups: []string{"zpulse-admins"}}, "boss@example.com", domain.RoleAdmin},
		{&mockoidc.MockUser{Subject: "u2", Email: "cm@example.com", EmailVerified: true, Groups: []string{"live-ops"}}, "cm@example.com", domain.RoleOperator},
		{&mockoidc.MockUser{Subject: "u3", Email: "ops@example.com", EmailVerified: true}, "ops@example.com", domain.RoleOperator},
		// An unverified address does not count for the lists.
		{&mockoidc.MockUser{Subject: "u4", Email: "ops@example.com"}, "ops@example.com", domain.RoleViewer},
		{&mockoidc.MockUser{Subject: "u5", PreferredUsername: "visitor", Groups: []string{"players"}}, "visitor", domain.RoleViewer},
	}
	for _, tc := range cases {
		t.Run(tc.name+"/"+tc.role.String(), func(t *testing.T) {
			o := startOIDC(t, nil, nil)
			resp, body := o.signIn(t, tc.user, nil)
			if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/queues" {
				t.Fatalf("callback: %d %q %s", resp.StatusCode, resp.Header.Get("Location"), body)
			}
			o.signedInAs(t, tc.name, tc.role)
			o.audited(t, tc.name, domain.AuditOK)
		})
	}
}

// Signing out ends a single sign-on session in Redis: the old cookie opens nothing.
func TestOIDCSignOut(t *testing.T) {
	t.Parallel()
	o := startOIDC(t, nil, nil)
	o.signIn(t, &mockoidc.MockUser{Subject: "u1", Email: "boss@example.com", EmailVerified: true, Groups: []string{"zpulse-admins"}}, nil)
	o.signedInAs(t, "boss@example.com", domain.RoleAdmin)
	old := o.session(t)
	_, body := o.get(t, o.zpulse.URL+"/")
	m := csrfInput.FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no CSRF token on /")
	}
	resp, err := o.client.PostForm(o.zpulse.URL+"/logout", url.Values{"_csrf": {m[1]}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || o.session(t) != "" {
		t.Fatalf("sign-out: %d, session %q", resp.StatusCode, o.session(t))
	}
	o.client.Jar.SetCookies(mustURL(t, o.zpulse.URL), []*http.Cookie{{Name: sessionCookie, Value: old, Path: "/"}})
	if _, body := o.get(t, o.zpulse.URL+"/"); strings.Contains(body, `data-testid="actor-name">boss@example.com<`) {
		t.Error("the ended session's cookie still signs in")
	}
}

// refusedSignIn checks a callback answered status with a page saying want, and no session.
func refusedSignIn(t *testing.T, o oidcCase, resp *http.Response, body string, status int, want string) {
	t.Helper()
	if resp.StatusCode != status || !strings.Contains(body, want) {
		t.Errorf("callback: %d, want %d saying %q: %s", resp.StatusCode, status, want, body)
	}
	if o.session(t) != "" {
		t.Error("a refused sign-in left a session")
	}
}

func TestOIDCRefusals(t *testing.T) {
	t.Parallel()
	user := &mockoidc.MockUser{Subject: "u1", Email: "boss@example.com", EmailVerified: true, Groups: []string{"zpulse-admins"}}
	t.Run("tampered state", func(t *testing.T) {
		o := startOIDC(t, nil, nil)
		resp, body := o.signIn(t, user, func(q url.Values) { q.Set("state", q.Get("state")+"x") })
		refusedSignIn(t, o, resp, body, http.StatusBadRequest, "state does not match")
		o.audited(t, domain.NoActor.Name, domain.EINVALID)
	})
	t.Run("no flow cookie", func(t *testing.T) {
		o := startOIDC(t, nil, nil)
		resp, body := o.get(t, o.zpulse.URL+"/login/oidc/callback?state=abc&code=def")
		refusedSignIn(t, o, resp, body, http.StatusBadRequest, "not started in this browser")
	})
	t.Run("wrong audience", func(t *testing.T) {
		// The provider issues its token to another client than zpulse's: zpulse asks as
		// "zpulse", the provider answers for its own client id.
		o := startOIDC(t, func(m *mockoidc.MockOIDC) func(http.Handler) http.Handler {
			return func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					_ = r.ParseForm()
					for _, f := range []url.Values{r.Form, r.PostForm} {
						if f.Get("client_id") == "zpulse" {
							f.Set("client_id", m.ClientID)
						}
					}
					next.ServeHTTP(w, r)
				})
			}
		}, func(c *OIDCConfig) { c.ClientID = "zpulse" })
		resp, body := o.signIn(t, user, nil)
		refusedSignIn(t, o, resp, body, http.StatusUnauthorized, "ID token was refused")
	})
	t.Run("expired ID token", func(t *testing.T) {
		o := startOIDC(t, nil, nil)
		o.provider.FastForward(-3 * time.Hour) // the provider's clock is behind: its tokens expired long ago
		resp, body := o.signIn(t, user, nil)
		refusedSignIn(t, o, resp, body, http.StatusUnauthorized, "ID token was refused")
	})
	t.Run("nonce mismatch", func(t *testing.T) {
		o := startOIDC(t, func(m *mockoidc.MockOIDC) func(http.Handler) http.Handler {
			return func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.URL.Path == mockoidc.AuthorizationEndpoint {
						_ = r.ParseForm()
						r.Form.Set("nonce", "replayed-nonce")
					}
					next.ServeHTTP(w, r)
				})
			}
		}, nil)
		resp, body := o.signIn(t, user, nil)
		refusedSignIn(t, o, resp, body, http.StatusUnauthorized, "nonce")
	})
	t.Run("unknown user with no default role", func(t *testing.T) {
		o := startOIDC(t, nil, func(c *OIDCConfig) { c.Default = domain.RoleNone })
		resp, body := o.signIn(t, &mockoidc.MockUser{Subject: "u9", Email: "stranger@example.com", EmailVerified: true, Groups: []string{"players"}}, nil)
		refusedSignIn(t, o, resp, body, http.StatusForbidden, "gives no role to you")
		o.audited(t, "stranger@example.com", domain.EFORBIDDEN)
	})
	t.Run("provider error", func(t *testing.T) {
		o := startOIDC(t, nil, nil)
		resp, body := o.signIn(t, user, func(q url.Values) { q.Del("code"); q.Set("error", "access_denied") })
		refusedSignIn(t, o, resp, body, http.StatusForbidden, "refused the sign-in (access_denied)")
	})
	t.Run("code replayed", func(t *testing.T) {
		o := startOIDC(t, nil, nil)
		resp, body := o.signIn(t, user, func(q url.Values) { q.Set("code", "not-a-code") })
		refusedSignIn(t, o, resp, body, http.StatusUnauthorized, "refused to exchange")
	})
}

// With the provider unreachable, zpulse still serves; a sign-in answers 503 and says so, and
// the sign-in page offers single sign-on.
func TestOIDCProviderUnreachable(t *testing.T) {
	t.Parallel()
	o := startOIDC(t, nil, func(c *OIDCConfig) { c.Issuer = "http://127.0.0.1:1/oidc" })
	resp, body := o.get(t, o.zpulse.URL+"/login/oidc")
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "cannot be reached") {
		t.Errorf("/login/oidc: %d %s", resp.StatusCode, body)
	}
	_, body = o.get(t, o.zpulse.URL+"/login?next=/queues")
	if !strings.Contains(body, "Sign in with single sign-on") || !strings.Contains(body, `/login/oidc?next=%2Fqueues`) {
		t.Errorf("the sign-in page does not offer single sign-on: %s", body)
	}
}
