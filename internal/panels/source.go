package panels

import (
	"context"
	"strings"
	"time"

	"github.com/a-h/templ"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/redisrepo/sources"
	"github.com/zpulse/zpulse/views"
)

// Source is an adopted source's live view (a domain.SourceView), topic e.g. "source.api":
// the saved sources and every key its layout can name (the layout up to its first token).
// A lock or limiter source lists the keys discovery found under its pattern (its sweep every
// DiscoveryEvery, or keyspace notifications at once); on the watcher's periodic poll without
// notifications (Read.Step) the read first goes on with discovery's step over that pattern
// (store.Discovery.StepAdopted), so another service's new lock under the prefix, or a
// limiter's new client, is read in that same poll. Boards and queues have known keys.
var Source = declare(&Kind[string, domain.SourceView]{
	Topic: domain.SourceTopic,
	Parse: domain.ParseSourceTopic,
	Watch: func(ctx context.Context, r *Rooms, name string) live.Watch {
		w := live.Watch{Keys: []string{r.Keys.Sources()}}
		ctx, cancel := context.WithTimeout(ctx, time.Second) // the notification's batch waits on it
		defer cancel()
		if src, err := r.Sources.Source(ctx, name); err == nil { // cached: a round trip once a second at most
			layout, _, _ := strings.Cut(src.Key, "{")
			w.Prefixes = []string{layout}
		}
		return w
	},
	Plan: func(ctx context.Context, r *Read, name string) func() (domain.SourceView, bool) {
		src, err := r.Rooms.Sources.Source(ctx, name) // cached: a round trip once a second at most
		if err != nil {
			return func() (domain.SourceView, bool) { return domain.SourceView{}, false }
		}
		if src.ScanPattern() != "" && r.Step() {
			// A failed step (counted with the command errors on /metrics) leaves the keys as they
			// were, and the next poll tries again; an unreachable Redis fails the read below.
			_ = r.Rooms.Found.StepAdopted(ctx, src.ScanPattern())
		}
		read := sources.PlanSourceView(ctx, r.Pipe, r.Rooms.Keys, r.Rooms.Found, src, r.Now)
		return func() (domain.SourceView, bool) { return read(), true }
	},
	Render: func(_ Env, _ string, aud domain.Audience, v domain.SourceView) templ.Component {
		return views.SourcePanel(aud.Source(v))
	},
	ID: func(name string) string { return "source-" + name },
})
