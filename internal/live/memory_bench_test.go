package live

import (
	"bufio"
	"net"
	"net/http"
	"runtime"
	"sync"
	"testing"
)

// BenchmarkIdleConnectionMemory measures what an idle live connection costs the server: the
// Go heap and goroutine stacks after a GC, with 2,000 websockets open (permessage-deflate
// negotiated, as browsers ask) against the same number of plain TCP connections held by a
// bare accept loop. The clients are raw sockets that did the handshake and read nothing
// more, so the websocket figure is the server's state plus both ends' sockets; half of the
// plain connections' cost (the client's socket) is taken off. Run it with -benchtime 1x.
func BenchmarkIdleConnectionMemory(b *testing.B) {
	const n = 2000
	for b.Loop() {
		var mu sync.Mutex
		var held []net.Conn
		plain := perConn(b, n, func(l net.Listener) {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				mu.Lock()
				held = append(held, c)
				mu.Unlock()
			}
		}, func(c net.Conn) error { return nil }, func() bool { mu.Lock(); defer mu.Unlock(); return len(held) == n })
		for _, c := range held {
			c.Close()
		}
		hub := NewHub(nil)
		ws := perConn(b, n, func(l net.Listener) { _ = http.Serve(l, http.HandlerFunc(hub.ServeWS)) }, handshake,
			func() bool { return hubClients(hub) == n })
		hub.Close()
		b.ReportMetric(ws-plain/2, "B/conn")
		b.ReportMetric(plain/2, "B/socket")
	}
}

// perConn opens n client connections to serve's listener (each after open), waits until
// ready, and returns the heap and stacks they added, per connection.
func perConn(b *testing.B, n int, serve func(net.Listener), open func(net.Conn) error, ready func() bool) float64 {
	b.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	go serve(l)
	before := inUse()
	conns := make([]net.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range n {
		c, err := net.Dial("tcp", l.Addr().String())
		if err == nil {
			err = open(c)
		}
		if err != nil {
			b.Fatal(err)
		}
		conns = append(conns, c)
	}
	for !ready() {
		runtime.Gosched() // the server registers the last ones
	}
	return (inUse() - before) / float64(n)
}

func inUse() float64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc + m.StackInuse)
}

// handshake upgrades c to a websocket subscribed to topic "t", offering permessage-deflate,
// and reads the answer's header only.
func handshake(c net.Conn) error {
	req := "GET /ws?topic=t HTTP/1.1\r\nHost: " + c.RemoteAddr().String() + "\r\nOrigin: http://" + c.RemoteAddr().String() +
		"\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" +
		"Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n"
	if _, err := c.Write([]byte(req)); err != nil {
		return err
	}
	resp, err := http.ReadResponse(bufio.NewReaderSize(c, 512), nil)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		return &net.OpError{Op: "upgrade", Err: http.ErrNotSupported}
	}
	return nil
}
