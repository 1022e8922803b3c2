// Package notify turns Redis keyspace notifications into live wake-ups: when another service
// writes a key zpulse shows (ZINCRBY on a board, ZADD on a queue, SET NX of a lock, a new
// sliding-log client), the subscriber hands the key to its callback at once, and to discovery,
// so a new name shows without waiting for the sweep. Polling stays the floor and the truth:
// notifications are fire-and-forget (a disconnect or a full output buffer loses them), so a
// probe key written every 2 s must come back as an event, or the mode says "polling".
//
// It PSUBSCRIBEs to __keyspace@<db>__:<prefix>* for each key family of store.Keys.Families
// and each adopted source's pattern, on every master of a Cluster (keyspace events are local
// to the node that ran the command), re-reading the masters every refresh; behind Sentinel
// the failover client dials the master of now, and a probe missed after a failover makes a
// new subscription. Keyspace channels rather than keyevent ones: the key is in the channel's
// name, so the server filters by prefix and sends zpulse only its families' events; keyevent
// channels would carry every write of every other service.
package notify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// Mode is --live-notifications: Auto uses notifications when the server's
// notify-keyspace-events already has Classes, On adds the missing classes with CONFIG SET
// (never removing any), Off only polls.
type Mode string

const (
	Auto Mode = "auto"
	On   Mode = "on"
	Off  Mode = "off"
)

// Modes are the words --live-notifications takes.
var Modes = []string{string(Auto), string(On), string(Off)}

// Classes are the notify-keyspace-events classes zpulse needs: K (keyspace channels), g
// (generic: DEL, EXPIRE, RENAME), $ (strings: a lock's SET, an adopted fixed window's INCR),
// h (hashes: a queue's jobs, a lock's meta, limiter state), z (sorted sets: boards, queues,
// sliding logs) and x (expired: a lock's lease running out). "KA" has them all.
const Classes = "Kg$hzx"

// Defaults of Options.
const (
	DefaultProbeEvery   = 2 * time.Second
	DefaultRefreshEvery = 5 * time.Second
)

// Options configure a Notifier.
type Options struct {
	Mode Mode
	Keys store.Keys
	// Discovery is told of every change (Saw), before Handlers.OnChange, so a new name is
	// known when the watcher reads.
	Discovery *store.Discovery
	// Embedded: the in-memory Redis, which sends no notifications.
	Embedded bool
	Log      *slog.Logger
	// ProbeEvery (DefaultProbeEvery) and RefreshEvery (DefaultRefreshEvery: masters, the
	// server's setting, the sources' patterns); tests make them short.
	ProbeEvery, RefreshEvery time.Duration
}

// State says whether live updates follow notifications, and why not.
type State struct {
	On  bool
	Why string // when not On
}

// Notifier is the keyspace-notification subscriber. Run drives it; State reports it.
type Notifier struct {
	rdb  redis.UniversalClient
	opt  Options
	db   int
	mu   sync.Mutex
	subs map[string]*sub // by master address ("" for one server or Sentinel)
	why  string          // why notifications cannot be used, from the last refresh ("" when they can)
	gaps atomic.Uint64   // subscriptions (re)started so far: each one's gap lost its events
	on   Handlers        // Run's
}

// Handlers are what Run tells of changes.
type Handlers struct {
	// OnChange receives the keys another writer changed, in batches (whatever arrived together).
	OnChange func(ctx context.Context, keys []string)
	// OnResubscribed is called when a subscription (re)starts: events of the gap are lost, so
	// everything should be read again.
	OnResubscribed func()
}

// New returns a Notifier over rdb; nothing happens until Run.
func New(rdb redis.UniversalClient, opt Options) *Notifier {
	if opt.ProbeEvery == 0 {
		opt.ProbeEvery = DefaultProbeEvery
	}
	if opt.RefreshEvery == 0 {
		opt.RefreshEvery = DefaultRefreshEvery
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	n := &Notifier{rdb: rdb, opt: opt, subs: map[string]*sub{}, why: "starting"}
	if c, ok := rdb.(*redis.Client); ok {
		n.db = c.Options().DB
	}
	switch {
	case opt.Mode == Off:
		n.why = "--live-notifications off"
	case opt.Embedded:
		n.why = "the embedded Redis sends no keyspace notifications"
	}
	return n
}

// State returns the mode now: On while every master's subscription saw its latest probe.
func (n *Notifier) State() State {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.why != "" {
		return State{Why: n.why}
	}
	if len(n.subs) == 0 {
		return State{Why: "no master to subscribe to"}
	}
	for _, addr := range slices.Sorted(maps.Keys(n.subs)) {
		if s := n.subs[addr]; !s.healthy() {
			return State{Why: s.problemText()}
		}
	}
	return State{On: true}
}

// Heard says whether keyspace notifications are on (State().On) and how many subscriptions
// have (re)started so far, as one does after its connection was killed (the events of its gap
// are lost). It changes nothing: a caller that saw the same count last time and on now was
// told of every change since (Saw). The watcher's periodic read then leaves out discovery's
// steps, the locks' and the adopted sources' (panels.Read.Step); after a gap, one step finds
// what the gap hid.
func (n *Notifier) Heard() (on bool, gaps uint64) {
	gaps = n.gaps.Load()
	return n.State().On, gaps
}

// Run subscribes and keeps the subscriptions right until ctx ends, telling on of changes:
// every RefreshEvery it re-reads the masters, the server's setting and the sources' patterns;
// every ProbeEvery it checks each master's probe came back, resubscribing where it did not,
// and writes the next. Run once.
func (n *Notifier) Run(ctx context.Context, on Handlers) {
	if n.opt.Mode == Off || n.opt.Embedded {
		return
	}
	n.on = on
	defer n.closeAll()
	refresh, probe := time.NewTicker(n.opt.RefreshEvery), time.NewTicker(n.opt.ProbeEvery)
	defer refresh.Stop()
	defer probe.Stop()
	n.refresh(ctx)
	n.probe(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-refresh.C:
			n.refresh(ctx)
		case <-probe.C:
			n.probe(ctx)
		}
	}
}

// refresh follows the masters and their setting, and subscribes each to the patterns of now.
func (n *Notifier) refresh(ctx context.Context) {
	masters, err := n.masters(ctx)
	if err != nil {
		n.setWhy("cannot list the Redis masters: " + err.Error())
		return
	}
	why := ""
	for _, addr := range slices.Sorted(maps.Keys(masters)) {
		if w := n.ensure(ctx, addr, masters[addr]); w != "" && why == "" {
			why = w
		}
	}
	patterns := n.patterns()
	n.mu.Lock()
	defer n.mu.Unlock()
	n.noteWhy(why)
	for addr, s := range n.subs {
		if masters[addr] == nil {
			s.close()
			delete(n.subs, addr)
		}
	}
	if why != "" {
		for addr, s := range n.subs { // an unusable setting: poll, and stop listening
			s.close()
			delete(n.subs, addr)
		}
		return
	}
	for addr, node := range masters {
		if s := n.subs[addr]; s != nil {
			s.follow(ctx, patterns)
			continue
		}
		n.subs[addr] = n.subscribe(ctx, addr, node, patterns)
	}
}

func (n *Notifier) setWhy(why string) {
	n.mu.Lock()
	n.noteWhy(why)
	n.mu.Unlock()
}

// noteWhy records why notifications cannot be used ("" when they can), and logs a change.
// Called with n.mu held.
func (n *Notifier) noteWhy(why string) {
	if why != n.why && why != "" {
		n.opt.Log.Info("live updates poll without keyspace notifications", "why", why)
	}
	n.why = why
}

// masters are the nodes whose events to follow: every master of a Cluster, or the client.
func (n *Notifier) masters(ctx context.Context) (map[string]*redis.Client, error) {
	switch c := n.rdb.(type) {
	case *redis.ClusterClient:
		c.ReloadState(ctx)
		var mu sync.Mutex
		nodes := map[string]*redis.Client{}
		err := c.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error {
			mu.Lock()
			nodes[node.Options().Addr] = node
			mu.Unlock()
			return nil
		})
		return nodes, err
	case *redis.Client:
		return map[string]*redis.Client{"": c}, nil
	}
	return nil, fmt.Errorf("a %T cannot be followed", n.rdb)
}

// ensure checks a master's notify-keyspace-events and, in mode On, adds the missing classes
// (never removing one). It returns why notifications cannot be used there, or "".
func (n *Notifier) ensure(ctx context.Context, addr string, node *redis.Client) string {
	where := ""
	if addr != "" {
		where = " on " + addr
	}
	cfg, err := node.ConfigGet(ctx, "notify-keyspace-events").Result()
	if err != nil && !isReply(err) {
		return fmt.Sprintf("Redis%s does not answer (%v): live pages poll until it does", where, err)
	}
	if err != nil {
		return fmt.Sprintf("the server refused CONFIG GET notify-keyspace-events%s (%v), as managed Redis may: set it to include %s in the server's settings", where, err, Classes)
	}
	have := cfg["notify-keyspace-events"]
	missing := Missing(have)
	if missing == "" {
		return ""
	}
	if n.opt.Mode != On {
		return fmt.Sprintf("notify-keyspace-events is %q%s, without %s: set it to include %s, or run with --live-notifications on", have, where, missing, Classes)
	}
	if err := node.ConfigSet(ctx, "notify-keyspace-events", have+missing).Err(); err != nil {
		return fmt.Sprintf("the server refused CONFIG SET notify-keyspace-events%s (%v), as managed Redis may: set it to include %s in the server's settings", where, err, Classes)
	}
	n.opt.Log.Info("added keyspace notification classes", "addr", addr, "was", have, "added", missing)
	return ""
}

// Missing returns the classes of Classes that the setting have lacks ("A" stands for
// g$lshzxetd).
func Missing(have string) string {
	have = strings.ReplaceAll(have, "A", "g$lshzxetd")
	var missing strings.Builder
	for _, c := range Classes {
		if !strings.ContainsRune(have, c) {
			missing.WriteRune(c)
		}
	}
	return missing.String()
}

// patterns are the channel patterns of every family and adopted source, on n's database.
func (n *Notifier) patterns() []string {
	prefix := fmt.Sprintf("__keyspace@%d__:", n.db)
	esc := strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`, `]`, `\]`)
	var out []string
	for _, f := range n.opt.Keys.Families() {
		out = append(out, prefix+esc.Replace(f.Prefix)+"*")
	}
	if n.opt.Discovery != nil {
		for _, p := range n.opt.Discovery.SourcePatterns() {
			out = append(out, prefix+p)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// probe checks, for each subscription, that the probe written last came back, resubscribes
// where it did not, and writes the next one.
func (n *Notifier) probe(ctx context.Context) {
	n.mu.Lock()
	subs := make([]*sub, 0, len(n.subs))
	for addr, s := range n.subs {
		if s.missed() {
			n.opt.Log.Warn("keyspace notifications stopped arriving; resubscribing, polling meanwhile", "addr", addr)
			s.close()
			s = n.subscribe(ctx, addr, s.node, s.patterns)
			s.setProblem(fmt.Sprintf("no keyspace event came back for the probe within %v%s; resubscribed", n.opt.ProbeEvery, s.where()))
			n.subs[addr] = s
		}
		subs = append(subs, s)
	}
	n.mu.Unlock()
	for _, s := range subs {
		s.writeProbe(ctx, n.opt.Keys)
	}
}

func (n *Notifier) closeAll() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for addr, s := range n.subs {
		s.close()
		delete(n.subs, addr)
	}
	n.why = "stopped"
}

// isReply says whether err is the server's answer (a refusal), not a failure to reach it.
func isReply(err error) bool {
	var reply redis.Error
	return errors.As(err, &reply)
}
