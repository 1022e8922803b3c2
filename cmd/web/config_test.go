package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
)

// --help prints every flag with its type and exits with success; --version prints the
// version and commit without serving.
func TestHelpAndVersion(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"--help"}, env(nil), &out); err != nil {
		t.Fatalf("--help: %v", err)
	}
	for _, want := range []string{"-poll-interval duration", "-demo-every duration", "-big-key-members members", "-log-format format",
		"-log-level level", "-access-log requests", "-base-path string", "-version"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--help lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if err := run(context.Background(), []string{"--version"}, env(nil), &out); err != nil {
		t.Fatalf("--version: %v", err)
	}
	if !strings.HasPrefix(out.String(), "zpulse ") || !strings.Contains(out.String(), "\ncommit ") {
		t.Errorf("--version = %q", out.String())
	}
}

// Durations and numbers are typed flags; the environment goes through the same parsers, and
// a bad value names its variable.
func TestTypedFlags(t *testing.T) {
	cfg, err := parseConfig([]string{"--demo-every", "1s", "--big-key-members", "7", "--log-format", "json", "--log-level", "debug",
		"--access-log", "errors", "--base-path", "/zpulse/"}, env(nil), io.Discard)
	if err != nil || cfg.DemoEvery != time.Second || cfg.BigKey != 7 || cfg.LogFormat != "json" || cfg.LogLevel != slog.LevelDebug ||
		cfg.AccessLog != "errors" || cfg.BasePath != "/zpulse" {
		t.Fatalf("flags: %+v %v", cfg, err)
	}
	cfg, err = parseConfig(nil, env(map[string]string{"ZPULSE_DEMO_EVERY": "2s", "ZPULSE_BIG_KEY_MEMBERS": "9", "ZPULSE_LOG_LEVEL": "warn",
		"ZPULSE_ACCESS_LOG": "off", "ZPULSE_BASE_PATH": "zpulse", "ZPULSE_LOG_FORMAT": "json"}), io.Discard)
	if err != nil || cfg.DemoEvery != 2*time.Second || cfg.BigKey != 9 || cfg.LogLevel != slog.LevelWarn || cfg.AccessLog != "off" ||
		cfg.BasePath != "/zpulse" || cfg.LogFormat != "json" {
		t.Fatalf("environment: %+v %v", cfg, err)
	}
	for _, bad := range [][]string{{"--big-key-members", "1e3"}, {"--big-key-members", "0"}, {"--demo-every", "400"}, {"--log-format", "xml"},
		{"--log-level", "loud"}, {"--access-log", "some"}, {"--base-path", "/a?b"}, {"--base-path", "/a b"}, {"--base-path", "/../x"}} {
		if _, err := parseConfig(bad, env(nil), io.Discard); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
	if _, err := parseConfig(nil, env(map[string]string{"ZPULSE_BIG_KEY_MEMBERS": "lots"}), io.Discard); err == nil ||
		!strings.Contains(err.Error(), "ZPULSE_BIG_KEY_MEMBERS") {
		t.Errorf("a bad ZPULSE_BIG_KEY_MEMBERS: %v", err)
	}
	if cfg, _ := parseConfig([]string{"--base-path", "/"}, env(nil), io.Discard); cfg.BasePath != "" {
		t.Errorf("--base-path / = %q, want the root", cfg.BasePath)
	}
}

// --log-format json writes JSON lines.
func TestJSONLogs(t *testing.T) {
	_, stop, logs := startRun(t, []string{"--log-format", "json"}, nil)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), `{"time":`) || !strings.Contains(logs.String(), `"msg":"zpulse is serving"`) {
		t.Errorf("logs are not JSON:\n%s", logs)
	}
}

// --show-to-anonymous names payloads and client ids (flag or environment); lock tokens and
// unknown names are refused with what is allowed.
func TestShowToAnonymousFlag(t *testing.T) {
	if cfg, err := parseConfig(nil, env(nil), io.Discard); err != nil || cfg.ShowAnon != 0 {
		t.Errorf("default: %v %v, want nothing shown", cfg.ShowAnon, err)
	}
	cfg, err := parseConfig([]string{"--show-to-anonymous", "payloads, client-ids"}, env(nil), io.Discard)
	if err != nil || cfg.ShowAnon != domain.JobPayloads|domain.ClientIDs {
		t.Errorf("flag: %v %v", cfg.ShowAnon, err)
	}
	cfg, err = parseConfig(nil, env(map[string]string{"ZPULSE_SHOW_TO_ANONYMOUS": "client-ids"}), io.Discard)
	if err != nil || cfg.ShowAnon != domain.ClientIDs {
		t.Errorf("environment: %v %v", cfg.ShowAnon, err)
	}
	for _, bad := range []string{"lock-tokens", "payloads,tokens"} {
		if _, err := parseConfig([]string{"--show-to-anonymous", bad}, env(nil), io.Discard); err == nil || !strings.Contains(err.Error(), "never shown") {
			t.Errorf("%q: %v, want a refusal naming what is allowed", bad, err)
		}
	}
}

// --live-notifications takes auto (the default), on or off, from the flag or the environment.
func TestLiveNotificationsFlag(t *testing.T) {
	for args, want := range map[string]string{"": "auto", "--live-notifications=on": "on", "--live-notifications=off": "off"} {
		cfg, err := parseConfig(strings.Fields(args), env(nil), io.Discard)
		if err != nil || cfg.Notifications != want {
			t.Errorf("%q: %q %v", args, cfg.Notifications, err)
		}
	}
	if cfg, err := parseConfig(nil, env(map[string]string{"ZPULSE_LIVE_NOTIFICATIONS": "off"}), io.Discard); err != nil || cfg.Notifications != "off" {
		t.Errorf("environment: %q %v", cfg.Notifications, err)
	}
	if _, err := parseConfig([]string{"--live-notifications", "yes"}, env(nil), io.Discard); err == nil || !strings.Contains(err.Error(), "auto, on, off") {
		t.Errorf("a bad mode: %v", err)
	}
}

// --auth-proxy-* read the header, the groups header, who are admins and operators and the
// role of everyone else; the lists without the header, a bad role or header are refused.
func TestAuthProxyFlags(t *testing.T) {
	cfg, err := parseConfig([]string{"--auth-proxy-header", "X-Forwarded-Email", "--auth-proxy-groups-header", "X-Forwarded-Groups",
		"--auth-proxy-admins", "boss@example.com, admins", "--auth-proxy-default-role", "none"},
		env(map[string]string{"ZPULSE_AUTH_PROXY_OPERATORS": "live-ops"}), io.Discard)
	p := cfg.AuthProxy
	if err != nil || p.Header != "X-Forwarded-Email" || p.GroupsHeader != "X-Forwarded-Groups" || len(p.Admins) != 2 ||
		p.Operators[0] != "live-ops" || p.Default != domain.RoleNone {
		t.Fatalf("%+v %v", p, err)
	}
	if cfg, _ := parseConfig(nil, env(nil), io.Discard); cfg.AuthProxy.Header != "" || cfg.AuthProxy.Default != domain.RoleViewer {
		t.Errorf("default: %+v", cfg.AuthProxy)
	}
	for _, bad := range [][]string{{"--auth-proxy-admins", "x"}, {"--auth-proxy-header", "X-Email", "--auth-proxy-default-role", "admin"},
		{"--auth-proxy-header", "Authorization"}, {"--auth-proxy-header", "X Email"}} {
		if _, err := parseConfig(bad, env(nil), io.Discard); err == nil || !strings.Contains(err.Error(), "auth-proxy") {
			t.Errorf("%q: %v, want a refusal", bad, err)
		}
	}
}

// --oidc-* read the provider, the client, the lists and the default role; an issuer without
// a client id or redirect URL, a bad role or URL, or settings without an issuer are refused.
func TestOIDCFlags(t *testing.T) {
	cfg, err := parseConfig([]string{"--oidc-issuer", "https://sso.example.com/realms/studio", "--oidc-client-id", "zpulse",
		"--oidc-redirect-url", "https://zpulse.example.com/login/oidc/callback", "--oidc-roles-claim", "groups",
		"--oidc-admins", "zpulse-admins, boss@example.com", "--oidc-default-role", "none"},
		env(map[string]string{"ZPULSE_OIDC_CLIENT_SECRET": "s3cret", "ZPULSE_OIDC_OPERATORS": "live-ops"}), io.Discard)
	o := cfg.OIDC
	if err != nil || o.ClientSecret != "s3cret" || len(o.Admins) != 2 || o.Operators[0] != "live-ops" || o.Default != domain.RoleNone ||
		o.RolesClaim != "groups" || len(o.Scopes) != 2 {
		t.Fatalf("%+v %v", o, err)
	}
	if cfg, _ := parseConfig(nil, env(nil), io.Discard); cfg.OIDC.Issuer != "" || cfg.OIDC.Default != domain.RoleViewer {
		t.Errorf("default: %+v", cfg.OIDC)
	}
	iss := []string{"--oidc-issuer", "https://sso.example.com", "--oidc-client-id", "zpulse", "--oidc-redirect-url", "https://z.example.com/login/oidc/callback"}
	for _, bad := range [][]string{
		{"--oidc-client-id", "zpulse"},
		{"--oidc-issuer", "https://sso.example.com", "--oidc-redirect-url", "https://z.example.com/login/oidc/callback"},
		{"--oidc-issuer", "https://sso.example.com", "--oidc-client-id", "zpulse"},
		{"--oidc-issuer", "sso.example.com", "--oidc-client-id", "zpulse", "--oidc-redirect-url", "https://z.example.com/login/oidc/callback"},
		{"--oidc-issuer", "https://sso.example.com", "--oidc-client-id", "zpulse", "--oidc-redirect-url", "https://z.example.com/callback"},
		append(slices.Clone(iss), "--oidc-default-role", "admin"),
		append(slices.Clone(iss), "--oidc-admins", "zpulse-admins"),
	} {
		if _, err := parseConfig(bad, env(nil), io.Discard); err == nil || !strings.Contains(err.Error(), "oidc") {
			t.Errorf("%q: %v, want a refusal", bad, err)
		}
	}
}
