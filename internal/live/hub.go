// Package live pushes fragments of HTML to browsers over websockets: a Watcher polls for
// changes and a Hub fans each changed fragment out to the subscribers of its topic. It knows
// neither Redis nor templ: it is handed a poll function and a render function.
package live

import (
	"context"
	"fmt"
	"sync"

	"github.com/gorilla/websocket"

	"github.com/zpulse/zpulse/internal/domain"
)

// Hub keeps, per topic and audience, the connections subscribed to it and the last fragment
// published, so a new subscriber starts from the current state. A connection's audience is
// decided once, when it connects, and it only ever gets the fragments rendered for that
// audience: a fragment with a secret never reaches a connection whose audience may not see it.
type Hub struct {
	metrics *Metrics

	mu      sync.Mutex
	topics  map[Subscription]*topic
	clients map[*client]struct{}
	closed  bool

	// changed is closed, and replaced, each time a client is added or removed: what
	// WaitSubscriptions waits on instead of polling.
	changed chan struct{}
}

type topic struct {
	subs  map[*client]struct{}
	parts *part  // the last fragment published, in parts: what every subscriber shows now
	whole *frame // that fragment as one frame, for new subscribers; made when one comes
}

// Subscription is a topic as one audience follows it: the watcher renders each topic once per
// audience that has subscribers.
type Subscription struct {
	Topic    string
	Audience domain.Audience
}

// Fragment is one topic's HTML as published for one audience: its root element carries the id
// of the element it replaces on the page, so fragments of several topics can travel in one
// websocket message. Elements inside it with an id and data-part are parts of their own
// (parts.go): when only they changed, only they are sent.
type Fragment struct {
	Subscription
	HTML []byte
}

// frame is what one publish sends to the subscribers of one topic and audience: the whole
// fragment, or the parts that changed since the last one. Its websocket messages are
// prepared once for every subscriber (and compressed once per compression setting).
type frame struct {
	sub   Subscription
	whole bool // the whole fragment: it makes every earlier frame of its topic moot
	msgs  []*websocket.PreparedMessage
}

func newFrame(sub Subscription, whole bool, msgs ...[]byte) (*frame, error) {
	f := &frame{sub: sub, whole: whole}
	for _, m := range msgs {
		pm, err := websocket.NewPreparedMessage(websocket.TextMessage, m)
		if err != nil {
			return nil, fmt.Errorf("live.newFrame: %w", err)
		}
		f.msgs = append(f.msgs, pm)
	}
	return f, nil
}

// NewHub returns an empty hub. metrics may be nil.
func NewHub(metrics *Metrics) *Hub {
	return &Hub{metrics: metrics, topics: map[Subscription]*topic{}, clients: map[*client]struct{}{},
		changed: make(chan struct{})}
}

// WaitSubscriptions returns once ok holds, checking it again each time a connection subscribes
// or leaves, or returns ctx's error when ctx ends first. It is how tests wait for the
// connections they opened to be registered (ok reads Topics or Subscriptions), with no polling.
func (h *Hub) WaitSubscriptions(ctx context.Context, ok func() bool) error {
	for {
		h.mu.Lock()
		changed := h.changed // taken before ok looks, so no change between them goes unseen
		h.mu.Unlock()
		if ok() {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("live.Hub.WaitSubscriptions: %w; topics %v", ctx.Err(), h.Topics())
		}
	}
}

// Topics returns the topics that have at least one subscriber, whatever its audience.
func (h *Hub) Topics() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	seen := map[string]bool{}
	names := make([]string, 0, len(h.topics))
	for sub := range h.topics {
		if !seen[sub.Topic] {
			seen[sub.Topic] = true
			names = append(names, sub.Topic)
		}
	}
	return names
}

// Subscriptions returns each topic and audience that has at least one subscriber.
func (h *Hub) Subscriptions() []Subscription {
	h.mu.Lock()
	defer h.mu.Unlock()
	subs := make([]Subscription, 0, len(h.topics))
	for sub := range h.topics {
		subs = append(subs, sub)
	}
	return subs
}

// Publish sends a fragment to every subscriber of topic of the zero audience (ServeWS's, which
// sees no secret) and keeps it for later subscribers.
func (h *Hub) Publish(name string, fragment []byte) error {
	_, err := h.PublishBatch([]Fragment{{Subscription: Subscription{Topic: name}, HTML: fragment}})
	return err
}

// PublishBatch sends each fragment to the subscribers of its topic and audience, and keeps it
// for later subscribers. Only what changed since the topic's last fragment is sent: its parts
// whose bytes differ (parts.go), or nothing at all when none does; the whole fragment when
// its top-level elements changed. A subscriber of several of the topics gets its frames
// together. A subscriber whose buffer is full is dropped (its browser reconnects) rather
// than stalling the others. It returns the number of fragments that changed what their
// subscribers see: those sent as a frame (a fragment equal in every part to the last is not).
func (h *Hub) PublishBatch(fragments []Fragment) (int, error) {
	parsed := make([]*part, len(fragments)) // outside the lock: the tokenizer is the costly part
	for i, f := range fragments {
		parsed[i] = parseParts(f.HTML)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var frames []*frame
	for i, f := range fragments {
		t := h.topics[f.Subscription]
		if t == nil {
			continue // nobody watches it: do not create it
		}
		parts, whole := changedParts(t.parts, parsed[i])
		if !whole && len(parts) == 0 {
			continue
		}
		t.parts, t.whole = parsed[i], nil
		var fr *frame
		var err error
		if whole {
			fr, err = newFrame(f.Subscription, true, f.HTML)
			t.whole = fr
		} else {
			fr, err = newFrame(f.Subscription, false, partMessages(parts)...)
		}
		if err != nil {
			return 0, fmt.Errorf("live.Hub.PublishBatch: %w", err)
		}
		frames = append(frames, fr)
	}
	if len(frames) == 1 { // the common case: one frame shared by every subscriber, read only
		shared := frames
		for c := range h.topics[frames[0].sub].subs {
			h.sendLocked(c, shared)
		}
		return 1, nil
	}
	batches := map[*client][]*frame{}
	for _, f := range frames {
		for c := range h.topics[f.sub].subs {
			batches[c] = append(batches[c], f)
		}
	}
	for c, b := range batches {
		h.sendLocked(c, b)
	}
	return len(frames), nil
}

// subscribe registers c for its topics and queues each topic's last fragment to it.
// It reports false when the hub is closed.
func (h *Hub) subscribe(c *client) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.clients[c] = struct{}{}
	var replay []*frame
	for _, name := range c.topics {
		sub := Subscription{name, c.audience}
		t := h.topics[sub]
		if t == nil {
			t = &topic{subs: map[*client]struct{}{}}
			h.topics[sub] = t
		}
		t.subs[c] = struct{}{}
		if t.parts != nil && t.whole == nil {
			t.whole, _ = newFrame(sub, true, t.parts.html) // it was prepared once already: it cannot fail
		}
		if t.whole != nil {
			replay = append(replay, t.whole)
		}
	}
	if len(replay) > 0 {
		h.sendLocked(c, replay)
	}
	h.metrics.connected(len(h.clients))
	h.changedLocked()
	return true
}

func (h *Hub) changedLocked() {
	close(h.changed)
	h.changed = make(chan struct{})
}

// unsubscribe removes c everywhere and stops its writer. Safe to call more than once.
func (h *Hub) unsubscribe(c *client) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.removeLocked(c, websocket.CloseNormalClosure)
}

func (h *Hub) sendLocked(c *client, frames []*frame) {
	if !c.enqueue(frames) {
		h.metrics.dropped()
		h.removeLocked(c, websocket.CloseTryAgainLater)
	}
}

// removeLocked forgets c and has its writer send a close frame with code. htmx's ws extension
// reconnects after 1012 (service restart) and 1013 (try again later). A topic left without subscribers is forgotten with its last
// fragment: nobody polls it any more, so that fragment would go stale.
func (h *Hub) removeLocked(c *client, code int) {
	if _, ok := h.clients[c]; !ok {
		return
	}
	delete(h.clients, c)
	for _, name := range c.topics {
		sub := Subscription{name, c.audience}
		if t := h.topics[sub]; t != nil {
			delete(t.subs, c)
			if len(t.subs) == 0 {
				delete(h.topics, sub)
			}
		}
	}
	c.closeWith(code)
	h.metrics.connected(len(h.clients))
	h.changedLocked()
}

// Close disconnects every client with a "service restart" close frame, so browsers reconnect
// to the next server, and refuses new connections.
func (h *Hub) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for c := range h.clients {
		h.removeLocked(c, websocket.CloseServiceRestart)
	}
}
