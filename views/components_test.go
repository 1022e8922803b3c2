package views

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/a-h/templ"
	"golang.org/x/net/html"

	"github.com/zpulse/zpulse/internal/domain"
)

func TestBoardPanel(t *testing.T) {
	top := domain.BoardTop{Board: "game:2048", Period: domain.AllTime, Key: "leaderboard:game:2048", Players: 1234, UniqueToday: 7,
		Entries: []domain.Entry{domain.NewEntry(domain.TieBreakNone, 1, "alice", 5000), domain.NewEntry(domain.TieBreakNone, 2, "bob", 42)}}
	t.Run("entries", func(t *testing.T) {
		doc := render(t, BoardPanel(top, 10, 0, true))
		panel := must(t, doc, "panel", has("id", BoardPanelID("game:2048", domain.AllTime, 10)))
		wantText(t, must(t, panel, "player count", has("data-testid", "players")), "1,234 players")
		wantText(t, must(t, panel, "unique count", has("data-testid", "unique-today")), "7 today")
		rows := findAll(panel, func(n *html.Node) bool { _, ok := attr(n, "data-player"); return ok })
		if len(rows) != 2 {
			t.Fatalf("%d rows, want 2", len(rows))
		}
		if p, _ := attr(rows[0], "data-player"); p != "alice" {
			t.Errorf("first row is %q, want alice", p)
		}
		if r, _ := attr(rows[1], "data-rank"); r != "2" {
			t.Errorf("second row rank %q, want 2", r)
		}
		wantText(t, rows[0], "alice", "5,000")
		if find(panel, has("data-testid", "big-key")) != nil {
			t.Error("a big-key note without a big-key threshold")
		}
	})
	t.Run("big key", func(t *testing.T) {
		doc := render(t, BoardPanel(top, 10, 1000, true))
		wantText(t, must(t, doc, "big-key note", has("data-testid", "big-key")), "1,234 members")
	})
	t.Run("empty", func(t *testing.T) {
		empty := domain.BoardTop{Board: "b", Key: "leaderboard:b"}
		wantText(t, render(t, BoardPanel(empty, 10, 0, true)), "No players on this board yet.", "ZINCRBY leaderboard:b 10 alice")
		wantText(t, render(t, BoardPanel(empty, 10, 0, false)), "cannot be read while Redis is unavailable")
	})
}

func TestQueuePanel(t *testing.T) {
	t.Run("priority", func(t *testing.T) {
		v := domain.QueueView{Queue: "emails", Key: "queue:emails", Settings: domain.QueueSettings{Kind: domain.PriorityQueue, MaxAttempts: 3},
			Waiting: 1500, Processing: 2, Dead: 1, OldestAtMs: -1}
		doc := render(t, QueuePanel(v, "tok", true))
		panel := must(t, doc, "panel", has("id", QueuePanelID("emails")))
		for stat, want := range map[string]string{"waiting": "1,500", "processing": "2", "dead": "1"} {
			wantText(t, must(t, panel, stat+" stat", has("data-testid", "stat-"+stat)), want)
		}
		wantText(t, panel, "Depth by priority")
		if find(panel, has("data-stat", "due")) != nil {
			t.Error("a priority queue shows a due count")
		}
	})
	t.Run("delayed", func(t *testing.T) {
		v := domain.QueueView{Queue: "reminders", Key: "queue:reminders", Settings: domain.QueueSettings{Kind: domain.DelayedQueue, MaxAttempts: 3},
			Waiting: 12, Due: 3, Scheduled: 9, OldestAtMs: -1}
		doc := render(t, QueuePanel(v, "tok", true))
		wantText(t, must(t, doc, "due stat", has("data-testid", "stat-due")), "3")
		bar := must(t, doc, "due bar", has("data-testid", "due-bar"))
		if w, _ := attr(bar, "width"); w != "25" {
			t.Errorf("due bar width %q, want 25 (3 of 12)", w)
		}
	})
}

func TestLimiterPanel(t *testing.T) {
	policy := domain.LimitPolicy{Name: "api", Algorithm: domain.FixedWindow, Limit: 10, WindowMs: 60_000}
	t.Run("clients", func(t *testing.T) {
		v := domain.LimiterView{Policy: policy, Exists: true, NowMs: 1_000_000, More: 3, Clients: []domain.ClientUsage{
			{Client: "c-1", Used: 4, Limit: 10, Remaining: 6},
			{Client: "greedy", Used: 10, Limit: 10, Remaining: 0, RetryAfterMs: 2000},
		}}
		doc := render(t, LimiterPanel(v, true))
		panel := must(t, doc, "panel", has("id", LimiterPanelID("api")))
		wantText(t, must(t, panel, "client count", has("data-testid", "client-count")), "5 clients")
		greedy := must(t, panel, "greedy row", has("data-client", "greedy"))
		if full, _ := attr(greedy, "data-full"); full != "true" {
			t.Errorf("greedy data-full=%q, want true", full)
		}
		wantText(t, greedy, "10 / 10", "next request in")
		c1 := must(t, panel, "c-1 row", has("data-client", "c-1"))
		if used, _ := attr(c1, "data-used"); used != "4" {
			t.Errorf("c-1 data-used=%q, want 4", used)
		}
		wantText(t, panel, "and 3 more")
	})
	t.Run("no policy", func(t *testing.T) {
		wantText(t, render(t, LimiterPanel(domain.LimiterView{Policy: policy}, true)), "There is no policy named api yet.")
	})
}

func TestLocksPanel(t *testing.T) {
	t.Run("held", func(t *testing.T) {
		held := domain.HeldLocks{More: 2, Locks: []domain.LockInfo{
			{Lock: "order:1", Token: "tok-1", Type: "string", Fence: 12345, RemainingMs: 1500, ExpiresAtMs: 1_800_000_001_500, LeaseMs: 30000, Holds: 1, Watchdog: true},
			{Lock: "order:2", Token: "tok-2", Type: "string", Fence: 12346, RemainingMs: 1500, ExpiresAtMs: 1_800_000_001_500, LeaseMs: 30000, Holds: 1},
			{Lock: "legacy", Type: "hash", RemainingMs: -1, Holds: 1},
		}}
		doc := render(t, LocksPanel(held, true, testKeys))
		panel := must(t, doc, "panel", has("id", LocksPanelID))
		wantText(t, must(t, panel, "lock count", has("data-testid", "lock-count")), "5 locks")
		order := must(t, panel, "order:1 row", has("data-lock", "order:1"))
		wantText(t, order, "Watchdog", "tok-1", "fence 12345")
		// The countdown runs in the browser, to the absolute expiry: nothing in the row moves
		// with the clock; a lock its watchdog renews says so instead.
		if at, _ := attr(must(t, must(t, panel, "order:2 row", has("data-lock", "order:2")), "ttl", has("data-testid", "ttl")), "data-at-ms"); at != "1800000001500" {
			t.Errorf("ttl data-at-ms=%q, want the expiry 1800000001500", at)
		}
		wantText(t, must(t, order, "ttl", has("data-testid", "ttl")), "renewed")
		link := must(t, order, "force-release link", func(n *html.Node) bool {
			h, _ := attr(n, "href")
			return n.Data == "a" && strings.HasSuffix(h, "/force-release")
		})
		if h, _ := attr(link, "href"); h != "/locks/order:1/force-release" {
			t.Errorf("force release href %q", h)
		}
		wantText(t, must(t, panel, "legacy row", has("data-lock", "legacy")), "hash", "no TTL")
		wantText(t, panel, "2 more not shown")
	})
	t.Run("none", func(t *testing.T) {
		wantText(t, render(t, LocksPanel(domain.HeldLocks{}, true, testKeys)), "No lock is held.", "SET lock:order:1001")
		wantText(t, render(t, LocksPanel(domain.HeldLocks{}, false, testKeys)), "Locks cannot be read while Redis is unavailable.")
	})
}

func TestStatusBanner(t *testing.T) {
	t.Run("available", func(t *testing.T) {
		doc := render(t, StatusBanner(Status{Available: true}))
		must(t, doc, "banner slot", has("id", "redis-status"))
		if find(doc, has("role", "alert")) != nil {
			t.Error("an alert while Redis is available")
		}
	})
	t.Run("unavailable", func(t *testing.T) {
		doc := render(t, StatusBanner(Status{Detail: "connection refused"}))
		slot := must(t, doc, "banner slot", has("id", "redis-status"))
		wantText(t, must(t, slot, "alert", has("role", "alert")), "Redis unavailable.", "connection refused")
	})
}

func TestFormAlertAndSuccess(t *testing.T) {
	t.Run("alert", func(t *testing.T) {
		wantText(t, must(t, render(t, formAlert("Board name is too long")), "alert", has("role", "alert")), "Board name is too long")
		if find(render(t, formAlert("")), has("role", "alert")) != nil {
			t.Error("an alert without a message")
		}
	})
	t.Run("success", func(t *testing.T) {
		ok := templ.WithChildren(context.Background(), templ.Raw("Saved."))
		doc := renderCtx(t, ok, formSuccess("settings-ok"))
		box := must(t, doc, "success box", has("data-testid", "settings-ok"))
		if role, _ := attr(box, "role"); role != "status" {
			t.Errorf("role %q, want status", role)
		}
		wantText(t, box, "Saved.")
	})
	t.Run("in a form", func(t *testing.T) {
		f := NewForm()
		f.Errors[""] = "Redis is unavailable"
		f.Success = "Points added."
		doc := render(t, formShell(Chrome{CSRF: "tok", Actor: domain.Actor{Role: domain.RoleAdmin}}, domain.RoleOperator, "add", "/boards/b/points", f))
		form := must(t, doc, "form", tag("form"))
		if tgt, _ := attr(form, "hx-target"); tgt != "#add" {
			t.Errorf("hx-target %q, want #add", tgt)
		}
		wantText(t, must(t, form, "alert", has("role", "alert")), "Redis is unavailable")
		wantText(t, must(t, form, "success", has("data-testid", "add-ok")), "Points added.")
		if v, _ := attr(must(t, form, "csrf field", has("name", "_csrf")), "value"); v != "tok" {
			t.Errorf("csrf value %q", v)
		}
	})
}

// testKeys are key names as the repository gives them to views.
var testKeys = domain.KeyDisplay{Boards: "leaderboard:*", Queues: "queue:*", Lock: "lock:<name>", LockExample: "lock:order:1001", RateDefault: "rate:<client>"}

// The "under the hood" detail is folded behind a "Details" toggle, what it names inside.
func TestUnderTheHoodFolded(t *testing.T) {
	ctx := templ.WithChildren(context.Background(), templ.Raw("lock:&lt;name&gt;"))
	var b strings.Builder
	if err := underTheHood().Render(ctx, &b); err != nil {
		t.Fatal(err)
	}
	// On the raw HTML: the text helper joins text nodes with spaces, which would hide it.
	if !strings.Contains(b.String(), ">Details</summary><p class=\"mt-1 break-all\">lock:&lt;name&gt;</p></details>") {
		t.Errorf("not folded behind Details: %s", b.String())
	}
}

// A name whose key holds another type shows as such in the lists, not as an
// empty board or queue.
func TestListsMarkKeysOfAnotherType(t *testing.T) {
	boards := render(t, BoardsPanel([]domain.BoardSummary{{Board: "cfg", WrongType: "hash"}, {Board: "game", Players: 2}}, domain.KeyDisplay{}))
	wantText(t, must(t, must(t, boards, "cfg", has("data-board", "cfg")), "marker", has("data-testid", "wrong-type")), "not a sorted set (a hash)")
	if find(must(t, boards, "game", has("data-board", "game")), has("data-testid", "wrong-type")) != nil {
		t.Error("a board marked as another type")
	}
	queues := render(t, QueuesPanel([]domain.QueueSummary{{Queue: "rq", WrongType: "list"}, {Queue: "mail", Kind: domain.PriorityQueue}}, domain.KeyDisplay{}))
	wantText(t, must(t, must(t, queues, "rq", has("data-queue", "rq")), "marker", has("data-testid", "wrong-type")), "not a sorted set (a list)")
	if find(must(t, queues, "mail", has("data-queue", "mail")), has("data-testid", "wrong-type")) != nil {
		t.Error("a queue marked as another type")
	}
}

// Without JavaScript the policy form shows every algorithm's fields, each part naming its
// algorithms; the parts of the others carry data-off, which hides them when a script runs.
func TestPolicyFormParts(t *testing.T) {
	doc := render(t, PolicyFormView(Chrome{Actor: domain.Actor{Role: domain.RoleAdmin}}, "api", PolicyFormFrom(domain.LimitPolicy{Name: "api", Algorithm: domain.TokenBucket, RatePerS: 1, Burst: 2}, true)))
	parts := findAll(doc, func(n *html.Node) bool { _, ok := attr(n, "data-for-choice"); return ok })
	off := map[string]bool{}
	for _, p := range parts {
		a, _ := attr(p, "data-for-choice")
		_, off[a] = attr(p, "data-off")
	}
	want := map[string]bool{"sliding_log fixed_window sliding_counter": true, "sliding_log": true, "token_bucket": false}
	if len(off) != len(want) {
		t.Fatalf("parts %v, want %v", off, want)
	}
	for a, w := range want {
		if off[a] != w {
			t.Errorf("the part for %q: data-off %v, want %v", a, off[a], w)
		}
	}
	for _, name := range []string{"limit", "window", "shared", "rate", "burst"} {
		must(t, doc, name+" field", has("name", name))
	}
}

// The adopt form's encoding is a choice, one line saying what each means, grouped by kind:
// the groups of the other kinds are marked data-off; the board's are said in plain words.
func TestSourcesFormEncodingChoice(t *testing.T) {
	f := NewForm()
	f.Values["kind"] = "queue"
	doc := render(t, SourcesPage(Chrome{Actor: domain.Actor{Role: domain.RoleAdmin}}, nil, nil, f, nil))
	radios := findAll(doc, func(n *html.Node) bool { v, _ := attr(n, "name"); return v == "encoding" })
	if len(radios) != len(domain.TieBreaks)+5 { // + priority, run_at, fixed_window, sliding_log, token_bucket
		t.Fatalf("%d encoding choices, want %d", len(radios), len(domain.TieBreaks)+5)
	}
	for _, r := range radios {
		if kind, _ := attr(r, "type"); kind != "radio" {
			t.Fatalf("the encoding is a %q input, want a choice", kind)
		}
		v, _ := attr(r, "value")
		_, checked := attr(r, "checked")
		if checked != (v == domain.SourcePriority) {
			t.Errorf("encoding %q checked %v: a queue starts at priority", v, checked)
		}
	}
	for _, g := range findAll(doc, func(n *html.Node) bool { _, ok := attr(n, "data-for-choice"); return ok }) {
		kind, _ := attr(g, "data-for-choice")
		if _, off := attr(g, "data-off"); off != (kind != "queue") {
			t.Errorf("the %s part: data-off %v with a queue chosen", kind, off)
		}
	}
	wantText(t, doc, "Ties: first to reach ranks higher", "Delayed queue", "the score is the time the job is due, in ms")
	if strings.Contains(text(doc), "1e13") || strings.Contains(text(doc), "main article") {
		t.Errorf("the form speaks in formulas: %q", text(doc))
	}
}

// A queue with no dead job does not say "0 failed 3 times and stopped".
func TestQueuePanelNoDeadJob(t *testing.T) {
	v := domain.QueueView{Queue: "emails", Key: "queue:emails", Settings: domain.QueueSettings{Kind: domain.PriorityQueue, MaxAttempts: 3}, OldestAtMs: -1}
	doc := render(t, QueuePanel(v, "tok", true))
	if strings.Contains(text(doc), "0 failed") {
		t.Errorf("the dead list at zero: %q", text(doc))
	}
	wantText(t, doc, "where a job stops after failing 3 times", "No dead job.")
}

// A confirmation's button is red only for an action that deletes: requeueing keeps every job.
func TestConfirmButtonColour(t *testing.T) {
	for keeps, want := range map[bool]string{true: "btn-primary", false: "bg-rose-600"} {
		doc := render(t, ConfirmPage(Chrome{Actor: domain.Actor{Role: domain.RoleAdmin}}, ConfirmData{Title: "t", Action: "/x", Button: "Go", Cancel: "/", TestID: "go", Keeps: keeps}))
		if class, _ := attr(must(t, doc, "button", has("data-testid", "go")), "class"); !strings.Contains(class, want) {
			t.Errorf("keeps %v: the button's class %q, want %s", keeps, class, want)
		}
	}
}

// Every form a visitor may not use is shown, disabled (inside a disabled fieldset marked
// aria-disabled: no control can be used, nothing submits), right under the one line saying
// why and how to get access, in every mode; a visitor who may use it gets it enabled. The
// role each needs is its route's (internal/web/routes.go).
func TestFormsDisabledWithTheReasonForEachRole(t *testing.T) {
	dead := domain.JobDetail{Queue: "mail", ID: "m-1", State: domain.JobDead, Attempts: 1, MaxAttempts: 1}
	forms := []struct {
		name string
		need domain.Role
		of   func(Chrome) templ.Component
	}{
		{"board points", domain.RoleOperator, func(c Chrome) templ.Component {
			return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
				return formShell(c, domain.RoleOperator, "add", "/boards/b/points", NewForm()).Render(templ.WithChildren(ctx, templ.Raw(`<input name="player"><button type="submit">Add</button>`)), w)
			})
		}},
		{"limiter try", domain.RoleOperator, func(c Chrome) templ.Component { return TryFormView(c, "api", TryForm{}) }},
		{"limiter policy", domain.RoleAdmin, func(c Chrome) templ.Component {
			return PolicyFormView(c, "api", PolicyFormFrom(domain.LimitPolicy{Name: "api", Algorithm: domain.TokenBucket, RatePerS: 1, Burst: 2}, true))
		}},
		{"locks", domain.RoleOperator, func(c Chrome) templ.Component { return LockFormsView(c, LockForms{}) }},
		{"force-release", domain.RoleAdmin, func(c Chrome) templ.Component {
			return ForceReleasePage(c, domain.LockInfo{Lock: "order:1", Token: "the-holders-token", Holds: 1}, true, "")
		}},
		{"confirmation", domain.RoleAdmin, func(c Chrome) templ.Component {
			return ConfirmPage(c, ConfirmData{Title: "Delete all dead", Action: "/queues/q/dead/delete", Button: "Delete", Cancel: "/queues/q", TestID: "go", Hidden: [][2]string{{"seen", "3"}}})
		}},
		{"job retry", domain.RoleOperator, func(c Chrome) templ.Component { return retryForm(c, dead, RetryForm{Form: NewForm()}) }},
		{"job page", domain.RoleOperator, func(c Chrome) templ.Component { return JobPage(c, dead, RetryForm{Form: NewForm()}) }},
		{"sources", domain.RoleAdmin, func(c Chrome) templ.Component { return SourcesPage(c, nil, nil, NewForm(), nil) }},
	}
	modes := []struct {
		name string
		c    Chrome
	}{
		{"loopback-only open access", Chrome{Keys: testKeys}},
		{"anonymous with an admin token", Chrome{AdminToken: true, Keys: testKeys}},
		{"viewer", Chrome{AdminToken: true, SignedIn: true, Actor: domain.Actor{Role: domain.RoleViewer}, Keys: testKeys}},
		{"operator", Chrome{AdminToken: true, SignedIn: true, Actor: domain.Actor{Role: domain.RoleOperator}, Keys: testKeys}},
		{"admin", Chrome{AdminToken: true, SignedIn: true, Actor: domain.Actor{Role: domain.RoleAdmin}, Keys: testKeys}},
	}
	for _, m := range modes {
		for _, f := range forms {
			t.Run(m.name+"/"+f.name, func(t *testing.T) {
				c := m.c
				c.CSRF = "the-csrf"
				doc := render(t, f.of(c))
				if main := find(doc, tag("main")); main != nil { // a page: its own controls, not the header's
					doc = main
				}
				controls := findAll(doc, func(n *html.Node) bool {
					if n.Type != html.ElementNode {
						return false
					}
					kind, _ := attr(n, "type")
					return n.Data == "button" || n.Data == "select" || n.Data == "textarea" || (n.Data == "input" && kind != "hidden")
				})
				if len(controls) == 0 {
					t.Fatal("no controls: the form is not shown")
				}
				allowed := c.Can(f.need)
				for _, ctl := range controls {
					fs := guardingFieldset(ctl)
					if fs == nil {
						t.Fatalf("a %s outside the guarded fieldset", ctl.Data)
					}
					_, disabled := attr(fs, "disabled")
					aria, _ := attr(fs, "aria-disabled")
					if disabled != !allowed || (aria == "true") != !allowed {
						t.Errorf("%s: disabled=%v aria-disabled=%q, want disabled=%v", ctl.Data, disabled, aria, !allowed)
					}
					note := fs.PrevSibling
					for note != nil && note.Type != html.ElementNode {
						note = note.PrevSibling
					}
					isNote := note != nil && has("data-testid", "read-only-note")(note)
					if isNote != !allowed {
						t.Errorf("%s: the line saying why shown=%v, want %v", ctl.Data, isNote, !allowed)
					}
					if isNote && !strings.Contains(text(note), c.ReadOnlyWhy(f.need)) {
						t.Errorf("the line says %q, want %q", text(note), c.ReadOnlyWhy(f.need))
					}
				}
				if !allowed && find(doc, has("value", "the-holders-token")) != nil {
					t.Error("a lock holder's token in a form a visitor may not use")
				}
			})
		}
	}
}

// guardingFieldset is the fieldset guarded put around n, nil when there is none.
func guardingFieldset(n *html.Node) *html.Node {
	var outer *html.Node
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Type == html.ElementNode && p.Data == "fieldset" && (has("data-read-only", "")(p) || isGuard(p)) {
			outer = p
		}
	}
	return outer
}

// isGuard says whether a fieldset is one guarded made: its class starts with min-w-0.
func isGuard(n *html.Node) bool {
	class, _ := attr(n, "class")
	return strings.HasPrefix(class, "min-w-0")
}

// A field's error names the label the user sees, not the field's key the API names.
func TestFieldErrorNamesTheLabel(t *testing.T) {
	f := NewForm()
	f.Errors["run_at"] = "run_at must be an RFC 3339 time (got x)"
	f.Errors["player"] = "player is required: 1 to 64 bytes"
	f.Errors["keep"] = "keeper said no"
	for _, c := range []struct{ name, label, want string }{
		{"run_at", "Run at", "“Run at” must be an RFC 3339 time (got x)"},
		{"player", "Player", "“Player” is required: 1 to 64 bytes"},
		{"keep", "Keep", "keeper said no"},
	} {
		if got := f.ErrFor(c.name, c.label); got != c.want {
			t.Errorf("ErrFor(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	var b strings.Builder
	if err := field("enqueue", "run_at", "Run at", "text", f, "", "").Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), ">“Run at” must be an RFC 3339 time (got x)</p>") {
		t.Errorf("the field's error: %s", b.String())
	}
}
