package main

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/zpulse/zpulse/internal/domain"
)

// oidc reads the --oidc-* settings: with an issuer, the client id and redirect URL are
// needed, both URLs must be absolute http(s) URLs and the default role viewer or none;
// without one, the other settings are refused rather than silently ignored.
func (c *config) oidc() error {
	o := &c.OIDC
	switch c.oidcRole {
	case "viewer", "":
		o.Default = domain.RoleViewer
	case "none":
		o.Default = domain.RoleNone
	default:
		return fmt.Errorf("oidc-default-role must be viewer or none (got %q)", c.oidcRole)
	}
	o.Admins, o.Operators, o.Scopes = splitList(c.oidcAdmins), splitList(c.oidcOperators), splitList(c.oidcScopes)
	if o.Issuer == "" {
		if o.ClientID != "" || o.ClientSecret != "" || o.RedirectURL != "" || o.RolesClaim != "" || len(o.Admins) > 0 || len(o.Operators) > 0 {
			return errors.New("the --oidc-* settings need --oidc-issuer, the OpenID provider's issuer URL")
		}
		return nil
	}
	if err := absoluteURL("oidc-issuer", o.Issuer); err != nil {
		return err
	}
	if o.ClientID == "" {
		return errors.New("--oidc-issuer needs --oidc-client-id, zpulse's client id at the provider")
	}
	if o.RedirectURL == "" {
		return errors.New("--oidc-issuer needs --oidc-redirect-url, zpulse's callback as browsers reach it: https://<host>[base path]/login/oidc/callback")
	}
	if err := absoluteURL("oidc-redirect-url", o.RedirectURL); err != nil {
		return err
	}
	if u, _ := url.Parse(o.RedirectURL); !strings.HasSuffix(u.Path, "/login/oidc/callback") {
		return fmt.Errorf("oidc-redirect-url must end with /login/oidc/callback, zpulse's callback (got %q)", o.RedirectURL)
	}
	if strings.ContainsAny(o.RolesClaim, " ,") {
		return fmt.Errorf("oidc-roles-claim must be one claim name such as groups (got %q)", o.RolesClaim)
	}
	if o.RolesClaim == "" && slicesHaveGroup(o.Admins, o.Operators) {
		return errors.New("--oidc-admins and --oidc-operators name groups, which need --oidc-roles-claim (e.g. groups); without it, list e-mail addresses only")
	}
	return nil
}

// slicesHaveGroup says whether the lists name anything but e-mail addresses.
func slicesHaveGroup(lists ...[]string) bool {
	for _, l := range lists {
		for _, item := range l {
			if !strings.Contains(item, "@") {
				return true
			}
		}
	}
	return false
}

// absoluteURL checks that v is an absolute http or https URL.
func absoluteURL(flag, v string) error {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("%s must be an absolute http(s) URL such as https://sso.example.com/realms/studio (got %q)", flag, v)
	}
	return nil
}
