package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/redisrepo"
	"github.com/zpulse/zpulse/internal/redisrepo/audit"
	"github.com/zpulse/zpulse/internal/redisrepo/notify"
	"github.com/zpulse/zpulse/internal/web"
)

// config is the configuration (README.md's configuration table): every flag has an
// environment variable of the same meaning, and flags win.
type config struct {
	Addr           string
	RedisURL       string
	PollInterval   time.Duration
	MinGap         time.Duration // shortest time between two watcher ticks, however often nudged
	Notifications  string        // --live-notifications: notify.Auto, On or Off
	AdminToken     string
	Demo           optionalBool  // unset: on with the embedded Redis, off otherwise
	DemoEvery      time.Duration // how often the demo makes a round of traffic
	BigKey         int64         // members above which a board page warns of a big key
	APIRateLimit   string        // limiter policy protecting the JSON API per client; "" is off
	TrustProxy     bool          // honour X-Forwarded-For/-Proto/-Host from TrustedProxies
	Proxies        string        // --trusted-proxies as given
	TrustedProxies []*net.IPNet  // Proxies parsed
	OpenAccess     bool          // without an admin token, accept changes from any address, not only loopback
	// AuthProxy is sign-in by an authenticating proxy (--auth-proxy-*), believed only from
	// TrustedProxies.
	AuthProxy                              web.AuthProxy
	proxyAdmins, proxyOperators, proxyRole string // the --auth-proxy-* lists and role as given
	// OIDC is sign-in with OpenID Connect (--oidc-*); Issuer "" is off.
	OIDC                                            web.OIDCConfig
	oidcAdmins, oidcOperators, oidcRole, oidcScopes string                 // the --oidc-* lists, role and scopes as given
	WS                                              web.WSLimits           // bounds on websocket viewers
	WaitReplicas                                    int                    // replicas an enqueue and a lock acquisition wait for; 0 is off
	Completed                                       domain.CompletedPolicy // the completed jobs an ack keeps per queue
	ScoreHistory                                    int64                  // events a board's score history keeps; 0: none
	AuditMax                                        int64                  // entries the audit trail keeps, about
	AuditMaxAge                                     time.Duration          // the oldest entry the audit trail keeps
	LogFormat                                       string                 // text or json
	LogLevel                                        slog.Level
	AccessLog                                       string // web.AccessLogAll, AccessLogErrors or AccessLogOff
	BasePath                                        string // path prefix behind a proxy, "/zpulse"; "" is the root
	Version                                         bool   // print the version and exit
	MetricsMax                                      int    // labelled entities of each kind a /metrics scrape reports
	// ShowAnon are the secrets readers who are not admins see while an admin token is set
	// (--show-to-anonymous): payloads, client ids; lock tokens never.
	ShowAnon domain.Secrets
}

// maxAuditEntries bounds --audit-max-entries.
const maxAuditEntries = 100_000_000

// maxMetricsEntities bounds --metrics-max-entities: a scrape reads about 17 commands per queue.
const maxMetricsEntities = 10_000

const (
	minPollInterval = 10 * time.Millisecond
	maxPollInterval = time.Minute
)

// errExit ends the program with success before serving: --help and --version.
var errExit = errors.New("nothing to serve")

// parseConfig reads the flags, then the environment for each flag not given. Both go through
// the flag's own typed parser, so a duration or number is checked the same way wherever it
// comes from. --help prints the flags to out and answers errExit.
func parseConfig(args []string, getenv func(string) string, out io.Writer) (config, error) {
	cfg := config{LogFormat: "text", AccessLog: web.AccessLogAll, Notifications: string(notify.Auto)}
	fs := flag.NewFlagSet("zpulse", flag.ContinueOnError)
	fs.SetOutput(out)
	envOf := map[string]string{} // flag name → its environment variable
	str := func(p *string, name, env, def, usage string) {
		fs.StringVar(p, name, def, usage+" ("+env+")")
		envOf[name] = env
	}
	str(&cfg.Addr, "addr", "ZPULSE_ADDR", ":8080", "listen address")
	str(&cfg.RedisURL, "redis-url", "REDIS_URL", "", "redis:// or rediss:// URL; comma-separated addresses for Cluster/Sentinel; none: an embedded in-memory Redis with demo data")
	fs.DurationVar(&cfg.PollInterval, "poll-interval", 250*time.Millisecond, "watcher tick, a duration from 10ms to 1m (ZPULSE_POLL_INTERVAL)")
	envOf["poll-interval"] = "ZPULSE_POLL_INTERVAL"
	fs.DurationVar(&cfg.MinGap, "live-min-gap", live.DefaultMinGap, "shortest time between two live updates of a topic, however many writes nudge the watcher, a duration from 0 to the poll interval (ZPULSE_LIVE_MIN_GAP)")
	envOf["live-min-gap"] = "ZPULSE_LIVE_MIN_GAP"
	fs.Var(choice{&cfg.Notifications, notify.Modes}, "live-notifications", "wake live pages on Redis keyspace notifications (notify-keyspace-events with "+notify.Classes+"): auto (when the server has them on), on (add the missing classes with CONFIG SET) or off; polling goes on in every mode (ZPULSE_LIVE_NOTIFICATIONS)")
	envOf["live-notifications"] = "ZPULSE_LIVE_NOTIFICATIONS"
	str(&cfg.AdminToken, "admin-token", "ZPULSE_ADMIN_TOKEN", "", "when set, every change needs it: Bearer token in the API, sign-in in the browser")
	fs.TextVar(&cfg.ShowAnon, "show-to-anonymous", domain.Secrets(0), "`secrets` readers who are not admins see while an admin token is set: payloads, client-ids or both, comma-separated; none: only admins see them (lock holders' tokens are never shown to them) (ZPULSE_SHOW_TO_ANONYMOUS)")
	envOf["show-to-anonymous"] = "ZPULSE_SHOW_TO_ANONYMOUS"
	fs.Var(&cfg.Demo, "demo", "run the traffic simulator (true or false); default on with the embedded Redis (ZPULSE_DEMO)")
	envOf["demo"] = "ZPULSE_DEMO"
	fs.DurationVar(&cfg.DemoEvery, "demo-every", 400*time.Millisecond, "how often the demo makes a round of traffic, a duration from 50ms to 1m (ZPULSE_DEMO_EVERY)")
	envOf["demo-every"] = "ZPULSE_DEMO_EVERY"
	fs.Int64Var(&cfg.BigKey, "big-key-members", 1_000_000, "`members` (a count, 1 or more) above which a board page warns of a big key (ZPULSE_BIG_KEY_MEMBERS)")
	envOf["big-key-members"] = "ZPULSE_BIG_KEY_MEMBERS"
	str(&cfg.APIRateLimit, "api-rate-limit", "ZPULSE_API_RATE_LIMIT", "", "limiter policy that limits the JSON API per client (API token or IP); none: off")
	fs.BoolVar(&cfg.TrustProxy, "trust-proxy", false, "zpulse is reached through a TLS-terminating proxy at an address of --trusted-proxies: honour its X-Forwarded-For (client address for limits and loopback-only access), -Proto (Secure cookies) and -Host (websocket Origin check) (ZPULSE_TRUST_PROXY)")
	envOf["trust-proxy"] = "ZPULSE_TRUST_PROXY"
	str(&cfg.Proxies, "trusted-proxies", "ZPULSE_TRUSTED_PROXIES", web.DefaultTrustedProxies, "comma-separated addresses or CIDR ranges of the proxies --trust-proxy believes; the client is the right-most X-Forwarded-For address outside them")
	str(&cfg.AuthProxy.Header, "auth-proxy-header", "ZPULSE_AUTH_PROXY_HEADER", "", "header in which an authenticating proxy (oauth2-proxy, Pomerium, Cloudflare Access) names the signed-in person, e.g. X-Forwarded-Email; believed only from --trusted-proxies; none: off")
	str(&cfg.AuthProxy.GroupsHeader, "auth-proxy-groups-header", "ZPULSE_AUTH_PROXY_GROUPS_HEADER", "", "header in which the proxy lists the person's groups, comma-separated, e.g. X-Forwarded-Groups")
	str(&cfg.proxyAdmins, "auth-proxy-admins", "ZPULSE_AUTH_PROXY_ADMINS", "", "comma-separated people (as the proxy names them) and groups who are admins")
	str(&cfg.proxyOperators, "auth-proxy-operators", "ZPULSE_AUTH_PROXY_OPERATORS", "", "comma-separated people and groups who are operators")
	str(&cfg.proxyRole, "auth-proxy-default-role", "ZPULSE_AUTH_PROXY_DEFAULT_ROLE", "viewer", "role of everyone else the proxy signs in: viewer, or none (read as anonymous)")
	str(&cfg.OIDC.Issuer, "oidc-issuer", "ZPULSE_OIDC_ISSUER", "", "OpenID Connect issuer URL for single sign-on, e.g. https://keycloak.example.com/realms/studio; none: off")
	str(&cfg.OIDC.ClientID, "oidc-client-id", "ZPULSE_OIDC_CLIENT_ID", "", "zpulse's client id at the OpenID provider (the ID token's audience)")
	str(&cfg.OIDC.ClientSecret, "oidc-client-secret", "ZPULSE_OIDC_CLIENT_SECRET", "", "zpulse's client secret at the OpenID provider (prefer the environment variable; never logged); none: a public client (PKCE only)")
	str(&cfg.OIDC.RedirectURL, "oidc-redirect-url", "ZPULSE_OIDC_REDIRECT_URL", "", "zpulse's callback as browsers reach it, registered at the provider: https://<host>[base path]/login/oidc/callback")
	str(&cfg.OIDC.RolesClaim, "oidc-roles-claim", "ZPULSE_OIDC_ROLES_CLAIM", "", "ID token claim listing the person's groups, e.g. groups (a dotted path reads a nested claim: realm_access.roles); none: e-mail addresses only")
	str(&cfg.oidcScopes, "oidc-scopes", "ZPULSE_OIDC_SCOPES", "profile,email", "comma-separated scopes asked for besides openid; add groups where the provider needs that scope for the groups claim (Dex)")
	str(&cfg.oidcAdmins, "oidc-admins", "ZPULSE_OIDC_ADMINS", "", "comma-separated groups and verified e-mail addresses who are admins")
	str(&cfg.oidcOperators, "oidc-operators", "ZPULSE_OIDC_OPERATORS", "", "comma-separated groups and verified e-mail addresses who are operators")
	str(&cfg.oidcRole, "oidc-default-role", "ZPULSE_OIDC_DEFAULT_ROLE", "viewer", "role of everyone else who signs in with single sign-on: viewer, or none (refused)")
	fs.BoolVar(&cfg.OpenAccess, "open-access", false, "without --admin-token, accept changes from any address; off: only from loopback (this machine) (ZPULSE_OPEN_ACCESS)")
	envOf["open-access"] = "ZPULSE_OPEN_ACCESS"
	fs.IntVar(&cfg.WaitReplicas, "redis-wait-replicas", 0, fmt.Sprintf("`replicas` an enqueue and a lock acquisition wait for (WAIT, up to 1 s), 0 to %d; 0: off (ZPULSE_REDIS_WAIT_REPLICAS)", redisrepo.MaxWaitReplicas))
	envOf["redis-wait-replicas"] = "ZPULSE_REDIS_WAIT_REPLICAS"
	fs.IntVar(&cfg.Completed.Keep, "completed-keep", domain.DefaultCompletedKeep, fmt.Sprintf("completed `jobs` kept per queue, the newest, 0 (none) to %d (ZPULSE_COMPLETED_KEEP)", domain.MaxCompletedKeep))
	envOf["completed-keep"] = "ZPULSE_COMPLETED_KEEP"
	fs.DurationVar(&cfg.Completed.MaxAge, "completed-max-age", domain.DefaultCompletedMaxAge, "how long a completed job is kept, a duration from 1m to 720h (ZPULSE_COMPLETED_MAX_AGE)")
	envOf["completed-max-age"] = "ZPULSE_COMPLETED_MAX_AGE"
	fs.BoolVar(&cfg.Completed.Payloads, "keep-completed-payloads", false, "keep completed jobs' payloads too, shown as waiting jobs' are (ZPULSE_KEEP_COMPLETED_PAYLOADS)")
	envOf["keep-completed-payloads"] = "ZPULSE_KEEP_COMPLETED_PAYLOADS"
	fs.Int64Var(&cfg.ScoreHistory, "score-history", domain.DefaultScoreHistory, fmt.Sprintf("`events` of changes to players' scores kept per board (add, set, remove through zpulse), 0 (none) to %d (ZPULSE_SCORE_HISTORY)", domain.MaxScoreHistory))
	envOf["score-history"] = "ZPULSE_SCORE_HISTORY"
	fs.Int64Var(&cfg.AuditMax, "audit-max-entries", audit.DefaultMaxEntries, fmt.Sprintf("`entries` the audit trail keeps, about (the newest), 1,000 to %d (ZPULSE_AUDIT_MAX_ENTRIES)", maxAuditEntries))
	envOf["audit-max-entries"] = "ZPULSE_AUDIT_MAX_ENTRIES"
	fs.DurationVar(&cfg.AuditMaxAge, "audit-max-age", audit.DefaultMaxAge, "how long the audit trail keeps an entry, a duration from 1h to 87600h (ZPULSE_AUDIT_MAX_AGE)")
	envOf["audit-max-age"] = "ZPULSE_AUDIT_MAX_AGE"
	def := web.DefaultWSLimits
	wsLimits := []struct {
		name, env, usage string
		hi               int
		dst              *int
		def              int
	}{
		{"ws-per-address", "ZPULSE_WS_PER_ADDRESS", "live `connections` one client address may hold", 1_000_000, &cfg.WS.PerAddress, def.PerAddress},
		{"ws-max-conns", "ZPULSE_WS_MAX_CONNS", "live `connections` in all", 10_000_000, &cfg.WS.Total, def.Total},
		{"ws-max-topics", "ZPULSE_WS_MAX_TOPICS", "distinct live `topics` over all connections (each is polled every tick)", 1_000_000, &cfg.WS.Topics, def.Topics},
		{"ws-topics-per-conn", "ZPULSE_WS_TOPICS_PER_CONN", "`topics` one live connection may ask for, at most 32", 32, &cfg.WS.TopicsPerConn, def.TopicsPerConn},
		{"ws-topics-per-address", "ZPULSE_WS_TOPICS_PER_ADDRESS", "distinct live `topics` the connections of one client address may hold together", 1_000_000, &cfg.WS.TopicsPerAddress, def.TopicsPerAddress},
	}
	for _, l := range wsLimits {
		fs.IntVar(l.dst, l.name, l.def, fmt.Sprintf("%s, 1 to %d (%s)", l.usage, l.hi, l.env))
		envOf[l.name] = l.env
	}
	fs.Var(choice{&cfg.LogFormat, []string{"text", "json"}}, "log-format", "log line `format`: text or json (ZPULSE_LOG_FORMAT)")
	envOf["log-format"] = "ZPULSE_LOG_FORMAT"
	fs.TextVar(&cfg.LogLevel, "log-level", slog.LevelInfo, "least severe log `level` written: debug, info, warn or error (ZPULSE_LOG_LEVEL)")
	envOf["log-level"] = "ZPULSE_LOG_LEVEL"
	fs.Var(choice{&cfg.AccessLog, web.AccessLogModes}, "access-log", "`requests` logged: all, errors (status 400 and above) or off; static files and probes log at debug (ZPULSE_ACCESS_LOG)")
	envOf["access-log"] = "ZPULSE_ACCESS_LOG"
	str(&cfg.BasePath, "base-path", "ZPULSE_BASE_PATH", "", "path prefix zpulse is served under behind a proxy, e.g. /zpulse; none: the root")
	fs.BoolVar(&cfg.Version, "version", false, "print the version and commit, then exit")
	fs.IntVar(&cfg.MetricsMax, "metrics-max-entities", 200, fmt.Sprintf("queues, limiters, boards and locks a /metrics scrape reports at most, each, 1 to %d (ZPULSE_METRICS_MAX_ENTITIES)", maxMetricsEntities))
	envOf["metrics-max-entities"] = "ZPULSE_METRICS_MAX_ENTITIES"

	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, errExit
		}
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments %q: every setting is a flag, see --help", fs.Args())
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for name, env := range envOf {
		if v := getenv(env); v != "" && !given[name] {
			if err := fs.Set(name, v); err != nil {
				return cfg, fmt.Errorf("%s: %w", env, err)
			}
		}
	}
	if cfg.PollInterval < minPollInterval || cfg.PollInterval > maxPollInterval {
		return cfg, fmt.Errorf("poll interval must be a duration from %v to %v, e.g. 250ms (got %v)", minPollInterval, maxPollInterval, cfg.PollInterval)
	}
	if cfg.MinGap < 0 || cfg.MinGap > cfg.PollInterval {
		return cfg, fmt.Errorf("live-min-gap must be a duration from 0 to the poll interval (%v), e.g. 50ms (got %v)", cfg.PollInterval, cfg.MinGap)
	}
	if cfg.DemoEvery < 50*time.Millisecond || cfg.DemoEvery > time.Minute {
		return cfg, fmt.Errorf("demo-every must be a duration from 50ms to 1m, e.g. 400ms (got %v)", cfg.DemoEvery)
	}
	if cfg.BigKey < 1 {
		return cfg, fmt.Errorf("big-key-members must be a whole number of 1 or more (got %d)", cfg.BigKey)
	}
	for _, l := range wsLimits {
		if n := *l.dst; n < 1 || n > l.hi {
			return cfg, fmt.Errorf("%s must be a whole number from 1 to %d (got %d)", l.name, l.hi, n)
		}
	}
	if cfg.MetricsMax < 1 || cfg.MetricsMax > maxMetricsEntities {
		return cfg, fmt.Errorf("metrics-max-entities must be a whole number from 1 to %d (got %d)", maxMetricsEntities, cfg.MetricsMax)
	}
	if cfg.WaitReplicas < 0 || cfg.WaitReplicas > redisrepo.MaxWaitReplicas {
		return cfg, fmt.Errorf("redis-wait-replicas must be a whole number from 0 to %d (got %d)", redisrepo.MaxWaitReplicas, cfg.WaitReplicas)
	}
	if cfg.AuditMax < 1000 || cfg.AuditMax > maxAuditEntries {
		return cfg, fmt.Errorf("audit-max-entries must be a whole number from 1000 to %d (got %d)", maxAuditEntries, cfg.AuditMax)
	}
	if cfg.AuditMaxAge < time.Hour || cfg.AuditMaxAge > 10*365*24*time.Hour {
		return cfg, fmt.Errorf("audit-max-age must be a duration from 1h to 87600h (got %s)", cfg.AuditMaxAge)
	}
	if cfg.ScoreHistory < 0 || cfg.ScoreHistory > domain.MaxScoreHistory {
		return cfg, fmt.Errorf("score-history must be a whole number from 0 (none) to %d (got %d)", domain.MaxScoreHistory, cfg.ScoreHistory)
	}
	if err := cfg.Completed.Validate(); err != nil {
		return cfg, errors.New(domain.ErrorMessage(err))
	}
	if cfg.APIRateLimit != "" {
		if err := domain.ValidateLimiterName(cfg.APIRateLimit); err != nil {
			return cfg, fmt.Errorf("api rate limit: %s", domain.ErrorMessage(err))
		}
	}
	var err error
	if cfg.TrustedProxies, err = web.ParseTrustedProxies(cfg.Proxies); err != nil {
		return cfg, err
	}
	if cfg.BasePath, err = cleanBasePath(cfg.BasePath); err != nil {
		return cfg, err
	}
	if err := cfg.authProxy(); err != nil {
		return cfg, err
	}
	if err := cfg.oidc(); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// authProxy reads the --auth-proxy-* lists and default role.
func (c *config) authProxy() error {
	p := &c.AuthProxy
	switch c.proxyRole {
	case "viewer", "":
		p.Default = domain.RoleViewer
	case "none":
		p.Default = domain.RoleNone
	default:
		return fmt.Errorf("auth-proxy-default-role must be viewer or none (got %q)", c.proxyRole)
	}
	p.Admins, p.Operators = splitList(c.proxyAdmins), splitList(c.proxyOperators)
	if p.Header == "" && (p.GroupsHeader != "" || len(p.Admins) > 0 || len(p.Operators) > 0) {
		return errors.New("the --auth-proxy-* settings need --auth-proxy-header, the header that names the signed-in person")
	}
	if p.Header != "" && (strings.ContainsAny(p.Header, " :") || strings.EqualFold(p.Header, "Authorization")) {
		return fmt.Errorf("auth-proxy-header must be a header name such as X-Forwarded-Email (got %q)", p.Header)
	}
	return nil
}

// splitList is a comma-separated list's non-empty items.
func splitList(s string) []string {
	var out []string
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// cleanBasePath accepts "/zpulse" (or "zpulse/", "/zpulse/") as "/zpulse", and "" or "/" as
// the root; a prefix holding a query, "..", or characters a URL path must escape is refused.
func cleanBasePath(p string) (string, error) {
	if p == "" || p == "/" {
		return "", nil
	}
	clean := path.Clean("/" + p)
	u, err := url.Parse(clean)
	if err != nil || u.Path != clean || u.EscapedPath() != clean || strings.Contains(p, "..") || clean == "/" {
		return "", fmt.Errorf("base path must be a plain path such as /zpulse (got %q)", p)
	}
	return clean, nil
}

// demoEnabled says whether to run the simulator: as asked, or with the embedded Redis.
func (c config) demoEnabled() bool {
	if c.Demo.set {
		return c.Demo.on
	}
	return c.RedisURL == ""
}

// optionalBool is a boolean flag that remembers whether it was given at all.
type optionalBool struct{ set, on bool }

func (b *optionalBool) String() string {
	if b == nil {
		return "false"
	}
	return strconv.FormatBool(b.on)
}
func (b *optionalBool) IsBoolFlag() bool { return true }
func (b *optionalBool) Set(s string) error {
	on, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("must be true or false (got %q)", s)
	}
	b.set, b.on = true, on
	return nil
}

// choice is a string flag that takes one of a few words.
type choice struct {
	value   *string
	allowed []string
}

func (c choice) String() string {
	if c.value == nil {
		return ""
	}
	return *c.value
}

func (c choice) Set(s string) error {
	for _, a := range c.allowed {
		if s == a {
			*c.value = s
			return nil
		}
	}
	return fmt.Errorf("must be one of %s (got %q)", strings.Join(c.allowed, ", "), s)
}
