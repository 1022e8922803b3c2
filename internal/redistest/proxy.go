package redistest

import (
	"bytes"
	"net"
	"sync"
	"testing"
)

// Proxy forwards TCP connections to a Redis and can lose one answer on purpose: after
// CutReplyTo(marker), the first request whose bytes contain marker reaches Redis and runs,
// and then, when its reply comes back, the proxy closes that connection instead of passing
// the reply on. The client sees a write that was applied but never answered, exactly and
// every time, with no timing involved.
type Proxy struct {
	Addr   string
	target string
	ln     net.Listener

	mu     sync.Mutex
	marker []byte // "" when not armed
	conns  []net.Conn
	wg     sync.WaitGroup
}

// NewProxy starts a proxy to target on a free port of 127.0.0.1, closed after the test.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Addr: ln.Addr().String(), target: target, ln: ln}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.Close)
	return p
}

// CutReplyTo arms the proxy: the reply to the next request that contains marker is lost and
// its connection closed.
func (p *Proxy) CutReplyTo(marker string) {
	p.mu.Lock()
	p.marker = []byte(marker)
	p.mu.Unlock()
}

// Close stops the proxy and closes every connection.
func (p *Proxy) Close() {
	p.ln.Close()
	p.mu.Lock()
	for _, c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", p.target)
		if err != nil {
			client.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, client, server)
		p.mu.Unlock()
		doomed := make(chan struct{})
		p.wg.Add(2)
		go p.requests(client, server, doomed)
		go p.replies(server, client, doomed)
	}
}

// requests copies client -> server, marking the connection doomed before it forwards the
// request that holds the armed marker (so its reply cannot slip through first).
func (p *Proxy) requests(client, server net.Conn, doomed chan struct{}) {
	defer p.wg.Done()
	defer server.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := client.Read(buf)
		if n > 0 {
			p.mu.Lock()
			if len(p.marker) > 0 && bytes.Contains(buf[:n], p.marker) {
				p.marker = nil
				close(doomed)
			}
			p.mu.Unlock()
			if _, werr := server.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// replies copies server -> client until the connection is doomed: then the next reply is
// dropped and both ends closed.
func (p *Proxy) replies(server, client net.Conn, doomed chan struct{}) {
	defer p.wg.Done()
	defer client.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := server.Read(buf)
		if n > 0 {
			select {
			case <-doomed:
				server.Close()
				return
			default:
			}
			if _, werr := client.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
