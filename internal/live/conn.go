package live

import (
	"bytes"
	"net/http"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/zpulse/zpulse/internal/domain"
)

// Connection timing, as in gorilla/websocket's chat example.
const (
	writeWait      = 10 * time.Second    // time allowed to write one batch
	pongWait       = 60 * time.Second    // time allowed between two pongs
	pingPeriod     = (pongWait * 9) / 10 // must be shorter than pongWait
	maxReadBytes   = 512                 // clients only send control frames
	sendBuffer     = 64                  // batches queued per connection before it is dropped
	maxTopics      = 32                  // topics one connection may ask for
	topicQueryName = "topic"
)

// topicPattern is a topic's characters; maxTopicLen its length (names of other services'
// boards and queues go into topics base64url-encoded: domain.BoardTopic; a job topic carries
// a queue name and an encoded id).
var topicPattern = regexp.MustCompile(`^[A-Za-z0-9:._-]+$`)

const maxTopicLen = 1024

type client struct {
	conn     *websocket.Conn
	topics   []string
	audience domain.Audience // what it may see, decided when it connected
	send     chan *batch     // from the hub; shared between connections, never written to
	quit     chan struct{}   // closed by the hub when the client is removed
	queued   []*frame        // the writer's scratch: the batches it is about to write
	// closeCode is the close frame's code, set by the hub before it closes quit.
	closeCode int
	ended     func()          // told once the connection is over (Serve); nil for none
	revoked   <-chan struct{} // closed when its audience no longer holds (Serve); nil: never
}

// upgrader refuses cross-origin connections: CheckOrigin is left nil, so gorilla compares the
// Origin header with the Host header. Write buffers come from a pool for the length of one
// write, so an idle connection holds none; the read buffer is small because browsers only
// send control frames. Compression stays off: fragments are small and change every tick, so
// deflating them per connection would cost more CPU than the bytes it saves on a LAN.
var upgrader = websocket.Upgrader{ReadBufferSize: 256, WriteBufferSize: 4096, WriteBufferPool: &sync.Pool{}}

// batchBuffers hold the HTML of several fragments joined into one message.
var batchBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// ServeWS upgrades a request to a websocket subscribed to the topics named by its repeated
// "topic" query parameter, e.g. /ws?topic=status&topic=board:game:2048, for the zero
// audience (it sees no secret).
func (h *Hub) ServeWS(w http.ResponseWriter, r *http.Request) {
	h.Serve(w, r, domain.Audience{}, nil, nil)
}

// Serve is ServeWS for audience that calls ended, when not nil, once the connection is over,
// however it ends (refused, failed upgrade, closed by either side). The handler returns as
// soon as the connection's loops run, so ended is how a caller that counts connections knows
// one ended. When revoked is closed (the session behind an admin's audience ended), the
// connection is closed with 1008 (policy violation): the browser reconnects as whoever it is
// now, and no frame of the old audience follows.
func (h *Hub) Serve(w http.ResponseWriter, r *http.Request, audience domain.Audience, ended func(), revoked <-chan struct{}) {
	if ended == nil {
		ended = func() {}
	}
	topics := r.URL.Query()[topicQueryName]
	if len(topics) == 0 || len(topics) > maxTopics {
		http.Error(w, "ask for 1 to 32 topics with ?topic=NAME", http.StatusBadRequest)
		ended()
		return
	}
	for _, t := range topics {
		if len(t) > maxTopicLen || !topicPattern.MatchString(t) {
			http.Error(w, "a topic is 1 to 1,024 characters from A-Z, a-z, 0-9 and : . _ -", http.StatusBadRequest)
			ended()
			return
		}
	}
	conn, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		ended()
		return // the upgrader has answered already
	}
	c := &client{conn: conn, topics: topics, audience: audience, send: make(chan *batch, sendBuffer), quit: make(chan struct{}), ended: ended, revoked: revoked}
	if !h.subscribe(c) {
		_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseServiceRestart, "shutting down"), time.Now().Add(writeWait))
		conn.Close()
		ended()
		return
	}
	// Both loops get goroutines of their own and the handler returns, as in gorilla's chat
	// example: a handler still running would keep net/http's connection state, request and
	// buffers (about 10 KB) alive for as long as the socket is open.
	go c.writeLoop()
	go c.readLoop(h)
}

// readLoop reads until the connection fails, which is how a closed tab or a missed pong is
// noticed; browsers send nothing else.
func (c *client) readLoop(h *Hub) {
	defer c.ended()
	defer h.unsubscribe(c)
	c.conn.SetReadLimit(maxReadBytes)
	_ = c.conn.SetReadDeadline(time.Now().Add(pongWait))
	c.conn.SetPongHandler(func(string) error { return c.conn.SetReadDeadline(time.Now().Add(pongWait)) })
	for {
		if _, _, err := c.conn.ReadMessage(); err != nil {
			return
		}
	}
}

// writeLoop is the only writer of the connection: fragments, pings, and the close frame. It
// writes whatever batches are queued when it wakes with one system call and one deadline.
func (c *client) writeLoop() {
	ping := time.NewTicker(pingPeriod)
	defer func() {
		ping.Stop()
		c.conn.Close()
	}()
	for {
		select {
		case b := <-c.send:
			c.queued = append(c.queued[:0], b.frames...)
			for range len(c.send) { // bounded: what is queued now, not what keeps coming
				c.queued = append(c.queued, (<-c.send).frames...)
			}
			if err := c.write(latestPerTopic(c.queued)); err != nil {
				return
			}
			clear(c.queued) // let the fragments go before the next wake-up
		case <-ping.C:
			_ = c.conn.SetWriteDeadline(time.Now().Add(writeWait))
			if err := c.conn.WriteMessage(websocket.PingMessage, nil); err != nil {
				return
			}
		case <-c.quit:
			_ = c.conn.WriteControl(websocket.CloseMessage,
				websocket.FormatCloseMessage(c.closeCode, ""), time.Now().Add(writeWait))
			return
		case <-c.revoked:
			_ = c.conn.WriteControl(websocket.CloseMessage,
				websocket.FormatCloseMessage(websocket.ClosePolicyViolation, "session ended"), time.Now().Add(writeWait))
			return
		}
	}
}

// write sends frames as one websocket message: a lone frame as prepared by the hub, several
// joined (htmx's ws extension swaps each root element of a message by its id).
func (c *client) write(frames []*frame) error {
	_ = c.conn.SetWriteDeadline(time.Now().Add(writeWait))
	if len(frames) == 1 {
		return c.conn.WritePreparedMessage(frames[0].prepared)
	}
	buf := batchBuffers.Get().(*bytes.Buffer)
	defer batchBuffers.Put(buf)
	buf.Reset()
	for _, f := range frames {
		buf.Write(f.html)
	}
	return c.conn.WriteMessage(websocket.TextMessage, buf.Bytes())
}

// latestPerTopic keeps, in order, only the last frame of each topic: an earlier one would be
// replaced on the page at once by the later. It reuses frames' array.
func latestPerTopic(frames []*frame) []*frame {
	out := frames[:0]
	for i, f := range frames {
		if !slices.ContainsFunc(frames[i+1:], func(g *frame) bool { return g.sub == f.sub }) {
			out = append(out, f)
		}
	}
	return out
}
