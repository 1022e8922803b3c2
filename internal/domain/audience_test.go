package domain

import (
	"strings"
	"testing"
)

// A client's label is the same on every instance sharing the admin token, differs between
// clients and between tokens, and an adopted limiter's key shows the label, not the id.
func TestClientLabels(t *testing.T) {
	anon := Anonymous(0, "s3cret")
	a, b := anon.Client("user-1001"), anon.Client("user-1002")
	if a == b || a != Anonymous(0, "s3cret").Client("user-1001") || a == Anonymous(0, "other").Client("user-1001") ||
		!strings.HasPrefix(a, "client #") || strings.Contains(a, "1001") {
		t.Errorf("labels %q %q", a, b)
	}
	if got := Admin.Client("user-1001"); got != "user-1001" {
		t.Errorf("the admin sees %q", got)
	}
	src := Source{Name: "api", Kind: SourceLimiter, Key: "limit:api:{client}:{window_start}", Encoding: SourceFixedWindow, Limit: 5, WindowMs: 60_000}
	v := anon.Source(SourceView{Source: src, Clients: []SourceClient{{Client: "user-1001", Key: "limit:api:user-1001:1784977500", Count: 3}}})
	if c := v.Clients[0]; c.Client != a || c.Key != "limit:api:"+a+":1784977500" {
		t.Errorf("source client %+v", c)
	}
	if Anonymous(AllSecrets, "s3cret").Sees(LockTokens) {
		t.Error("anonymous readers may be shown lock tokens")
	}
}
