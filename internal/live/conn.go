package live

import (
	"compress/flate"
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
	sendBuffer     = 64                  // frames queued per connection before it is dropped
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
	ended    func()          // told once the connection is over (Serve); nil for none
	ping     *time.Timer     // sends the next ping from its own short-lived goroutine
	gone     chan struct{}   // closed when the reader ends; made only for a connection that can be revoked

	// An idle connection has no writer goroutine: one is started when the hub queues frames
	// or a close, and ends once the queue is empty.
	mu        sync.Mutex
	queue     []*frame // from the hub, oldest first; frames are shared, never written to
	writing   bool     // a writer goroutine runs
	closeCode int      // not 0: the writer sends this close frame and ends the connection
	over      bool     // the connection is closed or closing: nothing more is written
}

// upgrader refuses cross-origin connections: CheckOrigin is left nil, so gorilla compares the
// Origin header with the Host header. Write buffers come from a pool for the length of one
// write, so an idle connection holds none; the read buffer is small because browsers only
// send control frames. permessage-deflate is accepted when the browser offers it: each frame
// is prepared once for all its subscribers, so it is compressed once per publish, not per
// connection, at the best level (compressionLevel), since that once is all it costs.
var upgrader = websocket.Upgrader{ReadBufferSize: 256, WriteBufferSize: 4096, WriteBufferPool: &sync.Pool{},
	EnableCompression: true}

// compressionLevel is every connection's: prepared messages keep one compressed copy per
// level, so all connections share one.
const compressionLevel = flate.BestCompression

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
	_ = conn.SetCompressionLevel(compressionLevel)
	c := &client{conn: conn, topics: topics, audience: audience, ended: ended}
	c.ping = time.AfterFunc(pingPeriod, c.sendPing)
	if !h.subscribe(c) {
		c.ping.Stop()
		_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseServiceRestart, "shutting down"), time.Now().Add(writeWait))
		conn.Close()
		ended()
		return
	}
	// The reader gets a goroutine of its own and the handler returns, as in gorilla's chat
	// example: a handler still running would keep net/http's connection state, request and
	// buffers (about 10 KB) alive for as long as the socket is open. The writer exists only
	// while something is queued.
	if revoked != nil {
		c.gone = make(chan struct{})
		go c.closeWhenRevoked(revoked)
	}
	go c.readLoop(h)
}

// closeWhenRevoked closes the connection with 1008 (policy violation) once revoked is closed,
// so the browser reconnects as whoever it is now; it ends with the connection.
func (c *client) closeWhenRevoked(revoked <-chan struct{}) {
	select {
	case <-revoked:
		c.closeWith(websocket.ClosePolicyViolation)
	case <-c.gone:
	}
}

// readLoop reads until the connection fails, which is how a closed tab or a missed pong is
// noticed; browsers send nothing else.
func (c *client) readLoop(h *Hub) {
	defer c.ended()
	if c.gone != nil {
		defer close(c.gone)
	}
	defer h.unsubscribe(c)
	c.conn.SetReadLimit(maxReadBytes)
	_ = c.conn.SetReadDeadline(time.Now().Add(pongWait))
	c.conn.SetPongHandler(func(string) error { return c.conn.SetReadDeadline(time.Now().Add(pongWait)) })
	for {
		if _, _, err := c.conn.ReadMessage(); err != nil {
			c.closeWith(websocket.CloseNormalClosure) // the writer, if one runs, stops
			return
		}
	}
}

// enqueue queues frames for the writer, starting one if none runs. It reports false when the
// queue is full: the connection does not keep up.
func (c *client) enqueue(frames []*frame) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.over || c.closeCode != 0 {
		return true // it is ending anyway
	}
	if len(c.queue)+len(frames) > sendBuffer {
		return false
	}
	c.queue = append(c.queue, frames...)
	c.wakeLocked()
	return true
}

// closeWith has the writer send a close frame with code (the first code asked for wins) and
// close the connection.
func (c *client) closeWith(code int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closeCode == 0 {
		c.closeCode = code
	}
	c.wakeLocked()
}

func (c *client) wakeLocked() {
	if !c.writing && !c.over {
		c.writing = true
		go c.writeLoop()
	}
}

// sendPing pings the browser every pingPeriod; control frames may be written beside the
// writer (gorilla allows WriteControl concurrently with every other method).
func (c *client) sendPing() {
	if err := c.conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(writeWait)); err != nil {
		c.conn.Close() // the reader fails and the hub forgets the connection
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.over {
		c.ping.Reset(pingPeriod)
	}
}

// writeLoop is the connection's writer while it has something to write: it writes whatever
// is queued when it looks (the latest whole fragment of a topic makes earlier frames of that
// topic moot), then looks again, and ends when nothing is left. A close asked for goes first:
// after it nothing is written.
func (c *client) writeLoop() {
	for {
		c.mu.Lock()
		frames, code := c.queue, c.closeCode
		c.queue = nil
		if code != 0 {
			c.over = true
		} else if len(frames) == 0 {
			c.writing = false
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		if code != 0 {
			c.ping.Stop()
			_ = c.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, ""), time.Now().Add(writeWait))
			c.conn.Close()
			return
		}
		if err := c.write(latestPerTopic(frames)); err != nil {
			c.mu.Lock()
			c.over = true
			c.mu.Unlock()
			c.ping.Stop()
			c.conn.Close() // the reader fails and the hub forgets the connection
			return
		}
	}
}

// write sends frames' messages in order, each as prepared by the hub, under one deadline.
func (c *client) write(frames []*frame) error {
	_ = c.conn.SetWriteDeadline(time.Now().Add(writeWait))
	for _, f := range frames {
		for _, m := range f.msgs {
			if err := c.conn.WritePreparedMessage(m); err != nil {
				return err
			}
		}
	}
	return nil
}

// latestPerTopic drops the frames made moot by a later whole fragment of their topic; parts
// are kept, in order, since each carries a change the others may not. It reuses frames'
// array.
func latestPerTopic(frames []*frame) []*frame {
	out := frames[:0]
	for i, f := range frames {
		if !slices.ContainsFunc(frames[i+1:], func(g *frame) bool { return g.whole && g.sub == f.sub }) {
			out = append(out, f)
		}
	}
	return out
}
