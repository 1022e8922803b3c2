package live

import (
	"net/http"
	"regexp"
	"time"

	"github.com/gorilla/websocket"
)

// Connection timing, as in gorilla/websocket's chat example.
const (
	writeWait      = 10 * time.Second    // time allowed to write one message
	pongWait       = 60 * time.Second    // time allowed between two pongs
	pingPeriod     = (pongWait * 9) / 10 // must be shorter than pongWait
	maxReadBytes   = 512                 // clients only send control frames
	sendBuffer     = 64                  // fragments queued per connection before it is dropped
	maxTopics      = 32                  // topics one connection may ask for
	topicQueryName = "topic"
)

var topicPattern = regexp.MustCompile(`^[A-Za-z0-9:._-]{1,192}$`) // 192: a job topic carries a queue name and an encoded id

type client struct {
	conn   *websocket.Conn
	topics []string
	send   chan *websocket.PreparedMessage
	quit   chan struct{} // closed by the hub when the client is removed
	// closeCode is the close frame's code, set by the hub before it closes quit.
	closeCode int
}

// upgrader refuses cross-origin connections: CheckOrigin is left nil, so gorilla compares the
// Origin header with the Host header.
var upgrader = websocket.Upgrader{ReadBufferSize: 1024, WriteBufferSize: 4096}

// ServeWS upgrades a request to a websocket subscribed to the topics named by its repeated
// "topic" query parameter, e.g. /ws?topic=status&topic=board:game:2048.
func (h *Hub) ServeWS(w http.ResponseWriter, r *http.Request) {
	topics := r.URL.Query()[topicQueryName]
	if len(topics) == 0 || len(topics) > maxTopics {
		http.Error(w, "ask for 1 to 32 topics with ?topic=NAME", http.StatusBadRequest)
		return
	}
	for _, t := range topics {
		if !topicPattern.MatchString(t) {
			http.Error(w, "a topic is 1 to 192 characters from A-Z, a-z, 0-9 and : . _ -", http.StatusBadRequest)
			return
		}
	}
	conn, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader has answered already
	}
	c := &client{conn: conn, topics: topics, send: make(chan *websocket.PreparedMessage, sendBuffer), quit: make(chan struct{})}
	if !h.subscribe(c) {
		_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseServiceRestart, "shutting down"), time.Now().Add(writeWait))
		conn.Close()
		return
	}
	go c.writeLoop()
	c.readLoop(h)
}

// readLoop reads until the connection fails, which is how a closed tab or a missed pong is
// noticed; browsers send nothing else.
func (c *client) readLoop(h *Hub) {
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

// writeLoop is the only writer of the connection: fragments, pings, and the close frame.
func (c *client) writeLoop() {
	ping := time.NewTicker(pingPeriod)
	defer func() {
		ping.Stop()
		c.conn.Close()
	}()
	for {
		select {
		case msg := <-c.send:
			_ = c.conn.SetWriteDeadline(time.Now().Add(writeWait))
			if err := c.conn.WritePreparedMessage(msg); err != nil {
				return
			}
		case <-ping.C:
			_ = c.conn.SetWriteDeadline(time.Now().Add(writeWait))
			if err := c.conn.WriteMessage(websocket.PingMessage, nil); err != nil {
				return
			}
		case <-c.quit:
			_ = c.conn.WriteControl(websocket.CloseMessage,
				websocket.FormatCloseMessage(c.closeCode, ""), time.Now().Add(writeWait))
			return
		}
	}
}
