package live

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
)

// PollFunc reads the current snapshot of each topic it knows, in one round trip, and leaves
// out topics it does not know. An error means the source (Redis) could not be read. how says
// which poll it is: unless how.Partial, topics are every subscribed topic, so the source may
// forget what it kept for any other.
type PollFunc func(ctx context.Context, topics []string, how Poll) (map[string]any, error)

// Poll says which of the watcher's polls a PollFunc is asked for.
type Poll struct {
	// Periodic marks the watcher's tick at its interval (Run's timer, or Tick), not one a
	// nudge or Changed asked for: work the source bounds to the poll cadence (the locks
	// topic's discovery step) runs on these polls only, however many writes nudge the watcher.
	Periodic bool
	// Partial marks a poll of some of the subscribed topics only (Changed's): the source then
	// keeps what it remembers for the others (a limiter's policy, a chart's last read).
	Partial bool
}

// RenderFunc renders a topic's snapshot, as audience may see it, into the HTML fragment pushed
// to that audience's subscribers. For domain.TopicStatus the snapshot is a Status.
type RenderFunc func(topic string, audience domain.Audience, snapshot any) ([]byte, error)

// SameFunc reports whether two snapshots of topic show the same state (internal/panels
// compares each panel's snapshots as its own type): the watcher publishes a topic only when
// its snapshot is not the same as the last one published.
type SameFunc func(topic string, a, b any) bool

// sameComparable is the comparison of a watcher given no SameFunc: ==, and a snapshot of a
// type == cannot compare always counts as changed.
func sameComparable(_ string, a, b any) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}

// Status says whether the source answered the last poll.
type Status struct {
	Available bool
	Detail    string          // why not, when not available
	Mode      domain.LiveMode // how live pages learn of changes (WithMode), for every page's footer
	Notice    string          // a warning while Redis answers (WithNotice): a partial outage, a failover
}

// DefaultMinGap is the shortest time between two ticks unless WithMinGap says otherwise:
// short enough that a write made through zpulse shows at once to a person, long enough that a
// flood of writes costs viewers at most 20 frames a second.
const DefaultMinGap = 50 * time.Millisecond

// Watcher polls the topics that have subscribers and publishes the ones that changed, rendered
// once for each audience that follows them.
type Watcher struct {
	poll     PollFunc
	render   RenderFunc
	hub      *Hub
	interval time.Duration
	minGap   time.Duration
	clock    Clock
	log      *slog.Logger
	metrics  *Metrics
	nudge    chan struct{}
	same     SameFunc
	router   Router        // nil: Changed nudges a full tick
	routed   chan struct{} // Changed found topics to poll: they wait in pending

	pendingMu sync.Mutex
	pending   map[string]bool // topics Changed routed, to poll at the next routed tick

	indexMu sync.Mutex
	index   *keyIndex     // of the subscribed topics as they were at indexOf (nil before Changed)
	indexOf chan struct{} // the hub's changed channel when index was built

	// handled, when set (by tests), is called by Run after each wake-up it dealt with, so a
	// test moving a manual clock knows when the loop waits again.
	handled func()

	tickMu sync.Mutex           // one tick at a time
	last   map[Subscription]any // snapshot last published to each topic's audience

	statusMu sync.RWMutex
	status   Status
	mode     func() domain.LiveMode // WithMode; nil: no mode
	notice   func() string          // WithNotice; nil: no notice
}

// Clock is the time Run schedules ticks by: the machine's unless WithClock gives another.
type Clock interface {
	domain.Clock
	// After sends the time once d has passed, like time.After.
	After(d time.Duration) <-chan time.Time
}

type systemClock struct{ domain.SystemClock }

func (systemClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Option configures a Watcher.
type Option func(*Watcher)

// WithMinGap sets the shortest time between two ticks, whatever nudges them (DefaultMinGap).
// Each topic is then published at most once per gap.
func WithMinGap(d time.Duration) Option { return func(w *Watcher) { w.minGap = d } }

// WithSame makes the watcher compare snapshots with same instead of ==.
func WithSame(same SameFunc) Option { return func(w *Watcher) { w.same = same } }

// WithRouter makes Changed poll only the topics that watch a changed key, as r says.
func WithRouter(r Router) Option { return func(w *Watcher) { w.router = r } }

// WithMode gives the live mode ("live: notifications", "live: polling …") that the status
// fragment carries: each tick reads it, and a change publishes the status to every page.
func WithMode(mode func() domain.LiveMode) Option { return func(w *Watcher) { w.mode = mode } }

// WithClock makes Run schedule ticks by c instead of the machine's clock.
func WithClock(c Clock) Option { return func(w *Watcher) { w.clock = c } }

// NewWatcher returns a watcher that polls every interval. metrics may be nil.
func NewWatcher(poll PollFunc, render RenderFunc, hub *Hub, interval time.Duration, log *slog.Logger, metrics *Metrics, opts ...Option) *Watcher {
	w := &Watcher{
		poll: poll, render: render, hub: hub, interval: interval, minGap: DefaultMinGap, clock: systemClock{},
		log: log, metrics: metrics, nudge: make(chan struct{}, 1), routed: make(chan struct{}, 1), same: sameComparable, pending: map[string]bool{}, last: map[Subscription]any{}, status: Status{Available: true},
	}
	for _, o := range opts {
		o(w)
	}
	return w
}

// modeNow is WithMode's answer, or no mode.
func (w *Watcher) modeNow() domain.LiveMode {
	if w.mode == nil {
		return domain.LiveMode{}
	}
	return w.mode()
}

// Status returns the outcome of the last poll (available until a poll failed).
func (w *Watcher) Status() Status {
	w.statusMu.RLock()
	defer w.statusMu.RUnlock()
	return w.status
}

// Nudge asks for a tick soon, e.g. right after a write made through zpulse: at once after a
// quiet minimum gap, else when the gap is over. It never blocks; nudges made while a tick
// waits for its gap merge into that tick.
func (w *Watcher) Nudge() {
	select {
	case w.nudge <- struct{}{}:
	default:
	}
}

// Changed says that keys changed in the source (a keyspace notification): the subscribed
// topics that watch any of them (WithRouter) are polled at once, alone, under the same
// minimum gap as every tick: the first change after a quiet gap goes out at once, a burst
// merges into one tick per gap. A key no subscribed topic watches polls nothing. It never
// blocks on the poll; ctx bounds what the router reads to route (Router). Without a router it
// nudges a full tick.
func (w *Watcher) Changed(ctx context.Context, keys []string) {
	if w.router == nil {
		w.Nudge()
		return
	}
	ix := w.keyIndex(ctx)
	matched := map[string]bool{}
	for _, k := range keys {
		ix.route(k, matched)
	}
	if len(matched) == 0 {
		return
	}
	w.pendingMu.Lock()
	for t := range matched {
		w.pending[t] = true
	}
	w.pendingMu.Unlock()
	select {
	case w.routed <- struct{}{}:
	default:
	}
}

// keyIndex returns the index of the subscribed topics, brought up to date when a connection
// came or went since (asking the router, which may read a source's layout, outside
// pendingMu).
func (w *Watcher) keyIndex(ctx context.Context) *keyIndex {
	w.indexMu.Lock()
	defer w.indexMu.Unlock()
	w.hub.mu.Lock()
	version := w.hub.changed
	w.hub.mu.Unlock()
	if w.index == nil {
		w.index = newKeyIndex(w.router)
	}
	if w.indexOf != version {
		w.index.sync(ctx, w.hub.Topics())
		w.indexOf = version
	}
	return w.index
}

// hasPending says whether Changed routed topics since the last tick.
func (w *Watcher) hasPending() bool {
	w.pendingMu.Lock()
	defer w.pendingMu.Unlock()
	return len(w.pending) > 0
}

// takePending returns the topics Changed routed since the last tick and forgets them.
func (w *Watcher) takePending() map[string]bool {
	w.pendingMu.Lock()
	defer w.pendingMu.Unlock()
	p := w.pending
	w.pending = map[string]bool{}
	return p
}

// Run ticks every interval and when nudged, until ctx ends, never two ticks closer than the
// minimum gap after a tick that published changes it was asked for (a nudge's, Changed's): a
// request that comes sooner waits for the gap's end, and every other request made meanwhile
// merges into that one tick. So a flood of writes costs each viewer at most one frame per gap,
// and a periodic tick still publishes within a gap of its time. A tick that published nothing
// (a periodic poll of an idle page, a write that left every panel as it was), and a periodic
// tick alone (what it publishes is what moved since the last poll: a limiter's quota refilling,
// a chart's new bucket), hold the next one back by a tenth of the gap only, so a change right
// after them goes out at once, while reads stay bounded and a viewer gets at most one frame
// per gap and one per interval. The tick each interval asks for polls as Periodic (also when
// it merged with a nudge's), the others not.
func (w *Watcher) Run(ctx context.Context) {
	w.statusMu.Lock()
	w.status.Mode, w.status.Notice = w.modeNow(), w.noticeNow() // as pages rendered them: the first tick pushes no change
	w.statusMu.Unlock()
	periodic := w.clock.After(w.interval)
	var gapOver <-chan time.Time // set while a tick waits for the gap to end
	var last time.Time           // when the last tick started; zero before the first
	gap := w.minGap              // how long after last the next tick may start
	full := false                // the coming tick polls every topic, not only Changed's
	due := false                 // the interval passed: the coming full tick is the periodic one
	nudged := false              // a nudge asked for the coming full tick
	for {
		select {
		case <-ctx.Done():
			return
		case <-periodic:
			periodic = w.clock.After(w.interval)
			full, due = true, true
		case <-w.nudge:
			full, nudged = true, true
		case <-w.routed:
		case <-gapOver:
			gapOver = nil
		}
		if gapOver == nil { // else this request merges into the tick that waits
			now := w.clock.Now()
			if wait := gap - now.Sub(last); !last.IsZero() && wait > 0 {
				gapOver = w.clock.After(wait)
			} else if full {
				asked := nudged || w.hasPending()
				last, full, nudged = now, false, false
				gap = w.gapAfter(w.fullTick(ctx, due), asked)
				due = false
			} else if only := w.takePending(); len(only) > 0 { // else a full tick took them
				last = now
				gap = w.gapAfter(w.tick(ctx, only, Poll{}), true)
			}
		}
		if w.handled != nil {
			w.handled()
		}
	}
}

// gapAfter is how long after a tick that published pushed fragments the next one may start:
// the minimum gap after a tick asked for changes (a nudge, Changed) that published, a tenth of
// it after one that published nothing or a periodic tick alone.
func (w *Watcher) gapAfter(pushed int, asked bool) time.Duration {
	if pushed == 0 || !asked {
		return w.minGap / 10
	}
	return w.minGap
}

// Tick polls once, as the tick at the interval does (Periodic), and publishes every changed
// topic to each audience that follows it. It returns the number of fragments sent (publish).
func (w *Watcher) Tick(ctx context.Context) int { return w.fullTick(ctx, true) }

// fullTick polls every subscribed topic; periodic marks the poll as the interval's.
func (w *Watcher) fullTick(ctx context.Context, periodic bool) int {
	w.takePending() // a full tick polls them too
	return w.tick(ctx, nil, Poll{Periodic: periodic})
}

// tick polls the subscribed topics in only (every one when only is nil: how.Partial is set
// otherwise) and publishes those that changed; a failed poll publishes the status to every page.
func (w *Watcher) tick(ctx context.Context, only map[string]bool, how Poll) int {
	w.tickMu.Lock()
	defer w.tickMu.Unlock()
	all := w.hub.Subscriptions()
	if len(all) == 0 {
		clear(w.last)
		return 0
	}
	followed := make(map[Subscription]bool, len(all))
	polled := map[string]bool{}
	var topics []string
	subs := all[:0:0]
	for _, sub := range all {
		followed[sub] = true
		if only != nil && !only[sub.Topic] {
			continue
		}
		subs = append(subs, sub)
		if !polled[sub.Topic] {
			polled[sub.Topic] = true
			topics = append(topics, sub.Topic)
		}
	}
	if only != nil && len(topics) == 0 {
		return 0 // Changed's topics lost their last subscriber meanwhile
	}
	start := time.Now()
	timeout := max(w.interval, time.Second)
	pollCtx, cancel := context.WithTimeout(ctx, timeout)
	how.Partial = only != nil
	snaps, err := w.poll(pollCtx, topics, how)
	cancel()
	if err != nil {
		if ctx.Err() == nil {
			detail := domain.ErrorMessage(err)
			if errors.Is(err, context.DeadlineExceeded) {
				detail = fmt.Sprintf("Redis did not answer within %v", timeout)
			}
			if s := (Status{Available: false, Detail: detail, Mode: w.modeNow()}); w.setStatus(s, err) {
				_, _ = w.publish(w.appendStatus(nil, all, s))
			}
		}
		w.metrics.ticked(time.Since(start).Seconds(), true, 0)
		return 0
	}
	var batch []Fragment
	notice := w.noticeAnew()
	if s := (Status{Available: true, Mode: w.modeNow(), Notice: notice}); w.setStatus(s, nil) {
		batch = w.appendStatus(batch, all, s)
	}
	for sub := range w.last {
		if only != nil && followed[sub] && !polled[sub.Topic] {
			continue // not polled this tick
		}
		if _, ok := snaps[sub.Topic]; !ok || !followed[sub] {
			delete(w.last, sub) // nobody watches it any more: start afresh when somebody does
		}
	}
	for _, sub := range subs {
		snap, ok := snaps[sub.Topic]
		if !ok {
			continue
		}
		if prev, ok := w.last[sub]; ok && w.same(sub.Topic, prev, snap) {
			continue
		}
		batch = w.appendRendered(batch, sub, snap)
	}
	pushed, ok := w.publish(batch)
	if ok {
		for _, f := range batch {
			if f.Topic != domain.TopicStatus {
				w.last[f.Subscription] = snaps[f.Topic]
			}
		}
	}
	w.metrics.ticked(time.Since(start).Seconds(), false, pushed)
	return pushed
}

// appendStatus appends the status fragment for each audience that follows domain.TopicStatus.
func (w *Watcher) appendStatus(batch []Fragment, subs []Subscription, s Status) []Fragment {
	for _, sub := range subs {
		if sub.Topic == domain.TopicStatus {
			batch = w.appendRendered(batch, sub, s)
		}
	}
	return batch
}

// setStatus records the poll's outcome and, when availability changed, logs it. It reports
// whether it (or the live mode) changed, so the caller publishes the status fragment to every page.
func (w *Watcher) setStatus(s Status, err error) bool {
	w.statusMu.Lock()
	changed := w.status.Available != s.Available
	modeChanged := w.status.Mode != s.Mode || w.status.Notice != s.Notice
	w.status = s
	w.statusMu.Unlock()
	if !changed {
		return modeChanged
	}
	if s.Available {
		w.log.Info("redis is available again; live updates resume")
	} else {
		w.log.Warn("redis is unavailable; pages show a banner until it answers", "err", err)
	}
	return true
}

// appendRendered appends the fragment of sub's topic, rendered for its audience, to batch; a
// topic that fails to render is logged and left out, so the next tick tries again.
func (w *Watcher) appendRendered(batch []Fragment, sub Subscription, snap any) []Fragment {
	html, err := w.render(sub.Topic, sub.Audience, snap)
	if err != nil {
		w.log.Error("cannot render a live fragment", "topic", sub.Topic, "err", err)
		return batch
	}
	return append(batch, Fragment{Subscription: sub, HTML: html})
}

// publish hands one tick's fragments to the hub together, so a page watching several of the
// topics gets them in one write. It returns the number of fragments sent as frames (a snapshot
// that changed but renders as before sends none: a held lock's PTTL does, read after read),
// and whether the hub took the batch.
func (w *Watcher) publish(batch []Fragment) (sent int, ok bool) {
	if len(batch) == 0 {
		return 0, true
	}
	sent, err := w.hub.PublishBatch(batch)
	if err != nil {
		w.log.Error("cannot publish live fragments", "err", err)
		return 0, false
	}
	return sent, true
}
