// Package panels declares every live panel once: its topic and typed parameters (format and
// parse), the Redis keys its read touches (what a keyspace notification routes on), its read
// plan on the watcher's pipeline (a room's plan function, a typed result), its render (the
// templ component, as a domain.Audience may see it) and the id of the element it replaces.
// The watcher, the renderer, the websocket's topic check, the pages' subscriptions and
// redisrepo.Snapshots iterate these declarations: adding a panel is one file here plus its
// template.
package panels

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a-h/templ"
	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/redisrepo/history"
	"github.com/zpulse/zpulse/internal/redisrepo/limiters"
	"github.com/zpulse/zpulse/internal/redisrepo/locks"
	"github.com/zpulse/zpulse/internal/redisrepo/schedules"
	"github.com/zpulse/zpulse/internal/redisrepo/sources"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/views"
)

// Kind declares one kind of panel: P is its topic's parameters, S its snapshot.
type Kind[P, S any] struct {
	// Topic formats the topic of the panel with parameters p; Parse reads it back.
	Topic func(p P) string
	Parse func(topic string) (P, bool)
	// Watch is every key the panel's read touches (exact keys, or prefixes where the keys
	// move with time or with names found later). TestEveryPanelIsWhole holds it to the read.
	Watch func(ctx context.Context, r *Rooms, p P) live.Watch
	// Plan adds the panel's read to r's pipeline and returns its decoder, which reports false
	// while the read only learns what to read next time (nothing to publish). Nil: the
	// watcher itself makes the snapshot (the status).
	Plan func(ctx context.Context, r *Read, p P) func() (S, bool)
	// Render is the fragment of snapshot s as audience aud may see it; its root element
	// carries ID(p).
	Render func(env Env, p P, aud domain.Audience, s S) templ.Component
	ID     func(p P) string
}

// panel is a Kind with its types erased, for the list of every kind.
type panel interface {
	match(topic string) (instance, bool)
}

// instance is a topic of a kind: the kind and its parsed parameters.
type instance interface {
	watch(ctx context.Context, r *Rooms) live.Watch
	plan(ctx context.Context, r *Read) func() (any, bool) // nil: no read of its own
	render(env Env, aud domain.Audience, snap any) (templ.Component, error)
	same(a, b any) bool
	id() string
}

func (k *Kind[P, S]) match(topic string) (instance, bool) {
	p, ok := k.Parse(topic)
	if !ok {
		return nil, false
	}
	return topicOf[P, S]{k, p}, true
}

type topicOf[P, S any] struct {
	kind *Kind[P, S]
	p    P
}

func (t topicOf[P, S]) watch(ctx context.Context, r *Rooms) live.Watch {
	return t.kind.Watch(ctx, r, t.p)
}
func (t topicOf[P, S]) id() string { return t.kind.ID(t.p) }

func (t topicOf[P, S]) plan(ctx context.Context, r *Read) func() (any, bool) {
	if t.kind.Plan == nil {
		return nil
	}
	read := t.kind.Plan(ctx, r, t.p)
	return func() (any, bool) { return read() }
}

func (t topicOf[P, S]) render(env Env, aud domain.Audience, snap any) (templ.Component, error) {
	s, ok := snap.(S)
	if !ok {
		return nil, fmt.Errorf("panels: a %T is no snapshot of topic %q", snap, t.kind.Topic(t.p))
	}
	return t.kind.Render(env, t.p, aud, s), nil
}

// same compares two snapshots of the topic as its own type S: the fields of S, deeply.
func (t topicOf[P, S]) same(a, b any) bool {
	x, ok := a.(S)
	y, ok2 := b.(S)
	return ok && ok2 && sameValue(x, y)
}

// sameValue compares two snapshots of one panel's type.
func sameValue[S any](a, b S) bool { return reflect.DeepEqual(a, b) }

// all is every kind of panel, each added by its own file (declare). No topic parses as two
// kinds (TestTopicsBelongToOneKind).
var all []panel

// declare adds k to the kinds every topic is looked up in, and returns it.
func declare[P, S any](k *Kind[P, S]) *Kind[P, S] {
	all = append(all, k)
	return k
}

// parsed keeps the topics lookup parsed lately: the watcher looks each subscribed topic up
// several times a tick (plan, compare, render), and parsing one costs about 750 ns. It is
// emptied when it holds parsedMax topics.
var (
	parsed  sync.Map // topic -> instance
	nParsed atomic.Int64
)

const parsedMax = 50_000

// lookup finds the kind of topic.
func lookup(topic string) (instance, bool) {
	if in, ok := parsed.Load(topic); ok {
		return in.(instance), true
	}
	for _, k := range all {
		if in, ok := k.match(topic); ok {
			if nParsed.Add(1) > parsedMax {
				parsed.Clear()
				nParsed.Store(0)
			}
			parsed.Store(topic, in)
			return in, true
		}
	}
	return nil, false
}

// Validate checks that topic is one a panel declares: a fixed topic (status, boards, locks,
// limiters, queues) or a board's, queue's, job's, limiter's, source's or chart's topic with a
// valid name. A topic naming a board or queue nobody has is valid: it reads as empty.
// Returns EINVALID naming the topic.
func Validate(topic string) error {
	if _, ok := lookup(topic); ok {
		return nil
	}
	if len(topic) > 80 {
		topic = topic[:80] + "…"
	}
	return domain.Errorf(domain.EINVALID, "unknown live topic %q: a topic is status, boards, locks, limiters, queues or a board's, queue's, job's, limiter's, source's or chart's topic as pages ask for it", topic)
}

// Same compares two snapshots of topic by its panel's type (live.WithSame).
func Same(topic string, a, b any) bool {
	in, ok := lookup(topic)
	return ok && in.same(a, b)
}

// Env is what panels render with.
type Env struct {
	BasePath string            // the path zpulse is served under (views.WithBasePath)
	BigKey   int64             // a board with more players shows the big-key note
	Keys     domain.KeyDisplay // key names as pages show them
}

// Rooms is what panels read and watch: the key layout and the rooms' live readers, whose
// memory (the limiters' policies and clients, the charts' last reads, the lock index) is the
// watcher's own. redisrepo.Snapshots holds one.
type Rooms struct {
	Keys     store.Keys
	Found    *store.Discovery
	Locks    *locks.LockDirectory
	Limiters *limiters.LimiterViews
	Overview *limiters.Overview
	Charts   *history.Charts
	Sources  *sources.Sources
	// Notified says whether keyspace notifications are on and how many of their
	// subscriptions (re)started so far, each a gap whose events were lost
	// (notify.Notifier.Heard; redisrepo.OpenOptions.Notified); nil: they are never on.
	// Read.Step asks it.
	Notified func() (on bool, gaps uint64)

	gapsSeen uint64 // Notified's count when Step last asked it (the watcher's reads only)
	// Completed is the completed jobs queues keep (redisrepo.OpenOptions.Completed): a
	// job's read finds one while it is kept.
	Completed domain.CompletedPolicy
	// Schedules reads the recurring schedules (topic "schedules"), remembering their index.
	Schedules *schedules.Directory
}

// Read is one poll's planning: the pipeline every topic's reads ride in, the time of the read
// and what was read (for the rooms to forget the rest). The poll's context is the plan
// functions' parameter.
type Read struct {
	Pipe  redis.Pipeliner
	Now   time.Time
	Rooms *Rooms
	// Again marks the read again, at once, of the topics whose first read this poll only
	// learnt what to read (Snapshots.Read): what it learnt then no longer holds a panel back.
	Again bool
	// Periodic marks the watcher's tick at its interval (live.Poll.Periodic): work bound to
	// the poll cadence (discovery's steps: Step) runs then only.
	Periodic bool

	limiters map[string]bool
	charts   map[history.ChartID]bool
	step     *bool // Step's answer, once asked
}

// Step says whether this read makes discovery's steps (store.Discovery.StepLocks,
// StepAdopted) before planning: on the watcher's periodic tick only, once discovery has run
// (a step before would find what its first refresh finds), and only when keyspace
// notifications did not tell discovery of every change since the last time it was asked
// (Rooms.Notified: off, or a subscription (re)started since). Notified is asked at most once
// a read, by the first panel that needs it, and its answer holds for every panel of the read.
func (r *Read) Step() bool {
	if r.step == nil {
		step := r.Periodic && r.Rooms.Found.Refreshed() && !r.Rooms.heard()
		r.step = &step
	}
	return *r.step
}

// heard says whether keyspace notifications told discovery of every change since the last
// time it was asked: on, and no subscription (re)started since.
func (r *Rooms) heard() bool {
	if r.Notified == nil {
		return false
	}
	on, gaps := r.Notified()
	seen := r.gapsSeen
	r.gapsSeen = gaps
	return on && gaps == seen
}

// Plan adds the reads of topics to pipe and returns each read topic's decoder; a decoder's
// false is nothing to publish yet (the read learnt what to read). Topics no panel reads are
// left out. Then the rooms forget what no topic read, unless the poll is partial (some
// subscribed topics only: how.Partial) or a read again (again: Read.Again).
func (r *Rooms) Plan(ctx context.Context, pipe redis.Pipeliner, now time.Time, topics []string, how live.Poll, again bool) map[string]func() (any, bool) {
	rd := &Read{Pipe: pipe, Now: now, Rooms: r, Again: again, Periodic: how.Periodic && !again,
		limiters: map[string]bool{}, charts: map[history.ChartID]bool{}}
	out := make(map[string]func() (any, bool), len(topics))
	for _, t := range topics {
		in, ok := lookup(t)
		if !ok {
			continue
		}
		if read := in.plan(ctx, rd); read != nil {
			out[t] = read
		}
	}
	if !how.Partial && !again {
		r.Limiters.Forget(rd.limiters)
		r.Charts.Forget(rd.charts)
	}
	return out
}

// Watches is what topic's read touches (live.Router); nothing for a topic no panel declares.
// ctx bounds a read it needs (an adopted source's layout).
func (r *Rooms) Watches(ctx context.Context, topic string) live.Watch {
	if in, ok := lookup(topic); ok {
		return in.watch(ctx, r)
	}
	return live.Watch{}
}

// Renderer renders a topic's snapshot as its panel declares (live.RenderFunc), for the
// audience the websocket's reader had when it connected: lock tokens, payloads and client
// ids go through the audience as on the pages.
func Renderer(env Env) live.RenderFunc {
	return func(topic string, aud domain.Audience, snap any) ([]byte, error) {
		in, ok := lookup(topic)
		if !ok {
			return nil, fmt.Errorf("panels.Renderer: no panel declares topic %q", topic)
		}
		comp, err := in.render(env, aud, snap)
		if err != nil {
			return nil, err
		}
		return renderHTML(views.WithBasePath(context.Background(), env.BasePath), comp)
	}
}

// renderHTML renders comp into a fragment of its own.
func renderHTML(ctx context.Context, comp templ.Component) ([]byte, error) {
	buf := templ.GetBuffer()
	defer templ.ReleaseBuffer(buf)
	if err := comp.Render(ctx, buf); err != nil {
		return nil, fmt.Errorf("panels.renderHTML: %w", err)
	}
	return append([]byte(nil), buf.Bytes()...), nil
}

// ElementID is the id of the element topic's fragment replaces on its page; "" for a topic
// no panel declares.
func ElementID(topic string) string {
	if in, ok := lookup(topic); ok {
		return in.id()
	}
	return ""
}
