package main

// -mode pages: what each page's live connection costs on the wire. For each page (overview,
// board, queue, limiter, locks, job) it opens the page's own websocket (the ws-connect URL in
// its HTML) twice, offering permessage-deflate as browsers do and not offering it, and
// counts the bytes read from the socket (frame headers included): first while nothing
// happens (idle frames per minute), then around one change per panel kind. It prints one
// JSON line per figure.

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"html"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo"
)

var (
	idleFor = flag.Duration("idle", 20*time.Second, "-mode pages: how long every page is watched while nothing happens")
	settle  = flag.Duration("settle", 1500*time.Millisecond, "-mode pages: how long after a change its frames are counted")
	show    = flag.Bool("show", false, "-mode pages: print each message a viewer offered deflate gets to stderr (what an idle page was sent)")
)

// wireConn counts the bytes read from a socket.
type wireConn struct {
	net.Conn
	read *atomic.Int64
}

func (c wireConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.read.Add(int64(n))
	return n, err
}

// viewer is one websocket of a page: the bytes read from its socket and the messages it got.
type viewer struct {
	conn   *websocket.Conn
	wire   atomic.Int64
	frames atomic.Int64
	html   atomic.Int64 // bytes of the messages, uncompressed
}

func openViewer(wsURL, origin string, deflate bool) (*viewer, error) {
	topic := wsURL
	if u, err := url.Parse(wsURL); err == nil {
		topic = u.RawQuery
	}
	v := &viewer{}
	d := websocket.Dialer{EnableCompression: deflate, NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return wireConn{c, &v.wire}, nil
	}}
	conn, _, err := d.Dial(wsURL, http.Header{"Origin": {origin}})
	if err != nil {
		return nil, err
	}
	v.conn = conn
	go func() {
		for {
			_, msg, err := conn.ReadMessage()
			if err != nil {
				return
			}
			v.frames.Add(1)
			v.html.Add(int64(len(msg)))
			if *show && deflate {
				log.Printf("%s: %d bytes: %.400s", topic, len(msg), msg)
			}
		}
	}()
	return v, nil
}

// snapshot is a viewer's counters at one moment.
type snapshot struct{ wire, frames, html int64 }

func (v *viewer) snap() snapshot { return snapshot{v.wire.Load(), v.frames.Load(), v.html.Load()} }

func (s snapshot) minus(o snapshot) snapshot {
	return snapshot{s.wire - o.wire, s.frames - o.frames, s.html - o.html}
}

// page is one page watched by two viewers.
type page struct {
	name           string
	path           string
	deflate, plain *viewer
}

var wsConnect = regexp.MustCompile(`ws-connect="([^"]+)"`)

// charted matches a page whose history chart has recorded something: a series with a sum.
var charted = regexp.MustCompile(`data-sum="[1-9]`)

// waitCharted waits until each page's history chart shows a recorded bucket (the recorder
// runs every domain.HistoryStep; recorded names are the ones discovery found), for at most
// six steps.
func waitCharted(base string, paths ...string) {
	deadline := time.Now().Add(6 * domain.HistoryStep)
	for _, path := range paths {
		for {
			resp, err := http.Get(base + path)
			if err != nil {
				log.Fatalf("wsload: GET %s: %v", path, err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if charted.Match(body) {
				break
			}
			if time.Now().After(deadline) {
				log.Fatalf("wsload: %s's chart recorded nothing within %v", path, 6*domain.HistoryStep)
			}
			time.Sleep(200 * time.Millisecond) // a poll of a page, not a synchronisation
		}
	}
}

func pagesMode(base, redisAddr string) {
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: redisAddr})
	u, err := url.Parse(base)
	if err != nil {
		log.Fatalf("wsload: -url: %v", err)
	}
	origin := u.Scheme + "://" + u.Host
	api := apiCaller(base)
	seedWire(ctx, rdb, api)
	// Discovery's sweep (every 5 s) finds the new names: the lists they join change once; and
	// the history recorder writes the first bucket that holds them (a board's players, a
	// queue's waiting jobs: within a 10 s step and its second of delay, later on a busy
	// machine), which the board's and the queue's charts draw once. Counted as idle, that first
	// bucket was a frame a minute: the pages are watched once their charts show it.
	waitCharted(base, "/boards/wire", "/queues/wire")
	pages := openPages(base, origin)
	time.Sleep(*settle) // the first frames: each topic's whole fragment
	measureIdle(pages)
	measureChanges(ctx, rdb, origin, api)
	for _, p := range pages {
		p.deflate.conn.Close()
		p.plain.conn.Close()
	}
}

// apiCaller returns a caller of zpulse's JSON API at base that ends the run on a failure.
func apiCaller(base string) func(method, path, body string) {
	return func(method, path, body string) {
		req, _ := http.NewRequest(method, base+"/api/v1"+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatalf("wsload: %s %s: %v", method, path, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 300 {
			log.Fatalf("wsload: %s %s: %d %s", method, path, resp.StatusCode, b)
		}
	}
}

// seedWire writes the entities the pages show, straight into Redis where that is how another
// service would (so the queue's sparkline records nothing: an idle page means nothing
// happened), else through the API.
func seedWire(ctx context.Context, rdb *redis.Client, api func(method, path, body string)) {
	keys := redisrepo.DefaultKeys
	var players []redis.Z
	for i := range 20 {
		players = append(players, redis.Z{Score: float64(1000 * (20 - i)), Member: "player-" + strconv.Itoa(i)})
	}
	now := time.Now().UnixMilli()
	var jobs []redis.Z
	for i := range 5 {
		jobs = append(jobs, redis.Z{Score: float64(2*domain.PriorityFactor + now + int64(i)), Member: "job-" + strconv.Itoa(i)})
	}
	if err := rdb.Del(ctx, keys.Leaderboard("wire"), keys.Queue("wire")).Err(); err != nil {
		log.Fatalf("wsload: DEL: %v", err)
	}
	if err := rdb.ZAdd(ctx, keys.Leaderboard("wire"), players...).Err(); err != nil {
		log.Fatalf("wsload: ZADD: %v", err)
	}
	if err := rdb.ZAdd(ctx, keys.Queue("wire"), jobs...).Err(); err != nil {
		log.Fatalf("wsload: ZADD: %v", err)
	}
	// The limiter is checked only when its change is measured: its page draws the last
	// minute of checks on the server, so a check would move it for a minute.
	api("PUT", "/limiters/wire", `{"algorithm":"token_bucket","rate_per_s":10,"burst":20}`)
	api("POST", "/locks/wire-held/acquire", `{"ttl_ms":600000,"owner":"wsload"}`)
}

// openPages loads each page and opens its own websocket (its ws-connect URL) twice, with and
// without permessage-deflate.
func openPages(base, origin string) []*page {
	pages := []*page{
		{name: "overview", path: "/"}, {name: "board", path: "/boards/wire"}, {name: "queue", path: "/queues/wire"},
		{name: "limiter", path: "/limiters/wire"}, {name: "locks", path: "/locks"}, {name: "job", path: "/queues/wire/jobs/job-0"},
	}
	for _, p := range pages {
		resp, err := http.Get(base + p.path)
		if err != nil {
			log.Fatalf("wsload: GET %s: %v", p.path, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		m := wsConnect.FindSubmatch(body)
		if m == nil {
			log.Fatalf("wsload: %s has no ws-connect", p.path)
		}
		ws := strings.Replace(origin, "http", "ws", 1) + html.UnescapeString(string(m[1]))
		if p.deflate, err = openViewer(ws, origin, true); err == nil {
			p.plain, err = openViewer(ws, origin, false)
		}
		if err != nil {
			log.Fatalf("wsload: %s: %v", ws, err)
		}
	}
	return pages
}

// measureIdle prints each page's frames and bytes a minute over -idle.
func measureIdle(pages []*page) {
	before := make([]snapshot, len(pages))
	for i, p := range pages {
		before[i] = p.deflate.snap()
	}
	time.Sleep(*idleFor)
	for i, p := range pages {
		d := p.deflate.snap().minus(before[i])
		out(map[string]any{"figure": "idle", "page": p.name, "frames_per_min": float64(d.frames) * 60 / idleFor.Seconds(),
			"bytes_per_min": float64(d.wire) * 60 / idleFor.Seconds(), "seconds": idleFor.Seconds()})
	}
}

// measureChanges prints the bytes on the wire of one change per panel kind.
func measureChanges(ctx context.Context, rdb *redis.Client, origin string, api func(method, path, body string)) {
	keys := redisrepo.DefaultKeys
	// Each change is counted on viewers of its panel's topic alone (the page's other topics,
	// such as a history chart that takes a bucket every 10 s, would add their own frames),
	// after their first frame, the panel whole: the reference of sending it whole.
	topicURL := func(topic string) string {
		return strings.Replace(origin, "http", "ws", 1) + "/ws?" + url.Values{"topic": {topic}}.Encode()
	}
	// The handshake's own bytes, read from a topic that has no fragment yet (the watcher
	// publishes its first on its next tick, after the read).
	handshake := func(deflate bool) int64 {
		v, err := openViewer(topicURL(domain.BoardTopic("wsload-probe-"+strconv.FormatInt(time.Now().UnixNano(), 36), domain.AllTime, domain.BoardTopN)), origin, deflate)
		if err != nil {
			log.Fatalf("wsload: probe: %v", err)
		}
		defer v.conn.Close()
		return v.wire.Load()
	}
	hsDeflate, hsPlain := handshake(true), handshake(false)
	change := func(kind, topic string, do func()) {
		d, err := openViewer(topicURL(topic), origin, true)
		var p *viewer
		if err == nil {
			p, err = openViewer(topicURL(topic), origin, false)
		}
		if err != nil {
			log.Fatalf("wsload: %s: %v", topic, err)
		}
		time.Sleep(*settle)
		d0, p0 := d.snap(), p.snap()
		do()
		time.Sleep(*settle)
		dd, pd := d.snap().minus(d0), p.snap().minus(p0)
		// The whole panel to compare with is the one after the change (a new viewer's first
		// frame): the state before it may be smaller (a limiter nobody checked yet).
		wd, err := openViewer(topicURL(topic), origin, true)
		var wp *viewer
		if err == nil {
			wp, err = openViewer(topicURL(topic), origin, false)
		}
		if err != nil {
			log.Fatalf("wsload: %s: %v", topic, err)
		}
		time.Sleep(*settle)
		out(map[string]any{"figure": "change", "panel": kind, "topic": topic,
			"wire_deflate": dd.wire, "wire_plain": pd.wire, "frames": dd.frames, "html": pd.html,
			"whole_deflate": wd.snap().wire - hsDeflate, "whole_plain": wp.snap().wire - hsPlain})
		for _, v := range []*viewer{d, p, wd, wp} {
			v.conn.Close()
		}
	}
	// One player climbs into the top ten (to 4th), as another service's ZADD would.
	change("board top ten", domain.BoardTopic("wire", domain.AllTime, domain.BoardTopN), func() {
		if err := rdb.ZAdd(ctx, keys.Leaderboard("wire"), redis.Z{Score: 17500, Member: "climber"}).Err(); err != nil {
			log.Fatalf("wsload: ZADD: %v", err)
		}
	})
	change("queue", domain.QueueTopic("wire"), func() { api("POST", "/queues/wire/jobs", `{"id":"one-more","priority":2}`) })
	// The limiter's change is a client's second check: its first adds the client (and the
	// panel's first stats), a change of the panel's shape.
	api("POST", "/limiters/wire/check", `{"client":"client-1"}`)
	change("limiter", domain.LimiterTopic("wire"), func() { api("POST", "/limiters/wire/check", `{"client":"client-1"}`) })
	change("locks", domain.TopicLocks, func() { api("POST", "/locks/wire-new/acquire", `{"ttl_ms":600000,"owner":"wsload"}`) })
}

var outMu sync.Mutex

func out(v map[string]any) {
	outMu.Lock()
	defer outMu.Unlock()
	var b bytes.Buffer
	_ = json.NewEncoder(&b).Encode(v)
	fmt.Print(b.String())
}
