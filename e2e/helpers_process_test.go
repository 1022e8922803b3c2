package e2e

import (
	"bytes"
	"net"
	"net/http"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"
)

// zpulse is a running server binary.
type zpulse struct {
	URL     string
	cmd     *exec.Cmd
	out     *syncBuffer
	exited  chan struct{} // closed when the process has exited; then waitErr is set
	waitErr error
}

// startZpulse runs the binary against the Redis at redisAddr, waits until /healthz answers,
// and stops it with SIGTERM when the test ends, failing the test unless it exits cleanly
// within 10 s. Its output is printed when the test failed.
func startZpulse(t *testing.T, redisAddr string, extraArgs ...string) *zpulse {
	t.Helper()
	addr := net.JoinHostPort("127.0.0.1", freePort(t))
	args := append([]string{"--addr", addr, "--redis-url", "redis://" + redisAddr,
		"--poll-interval", pollInterval.String(), "--demo=false"}, extraArgs...)
	z := &zpulse{URL: "http://" + addr, out: &syncBuffer{}, exited: make(chan struct{})}
	z.cmd = exec.Command(zpulseBin, args...)
	z.cmd.Stdout, z.cmd.Stderr = z.out, z.out
	if err := z.cmd.Start(); err != nil {
		t.Fatalf("start zpulse: %v", err)
	}
	go func() {
		z.waitErr = z.cmd.Wait()
		close(z.exited)
	}()
	t.Cleanup(func() { z.stop(t) })

	base := "" // --base-path moves /healthz too
	for i, a := range extraArgs {
		if a == "--base-path" && i+1 < len(extraArgs) {
			base = extraArgs[i+1]
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if resp, err := httpClient.Get(z.URL + base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return z
			}
		}
		select {
		case <-z.exited:
			t.Fatalf("zpulse exited before it served /healthz: %v", z.waitErr)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("zpulse did not answer /healthz on %s within 10s", addr)
		}
	}
}

// stop sends SIGTERM and expects a graceful exit (status 0) within 10 s.
func (z *zpulse) stop(t *testing.T) {
	select {
	case <-z.exited:
		t.Errorf("zpulse exited before the test ended: %v", z.waitErr)
	default:
		start := time.Now()
		if err := z.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Errorf("SIGTERM zpulse: %v", err)
		}
		select {
		case <-z.exited:
			if z.waitErr != nil {
				t.Errorf("zpulse did not exit cleanly after SIGTERM: %v", z.waitErr)
			}
			t.Logf("zpulse stopped %v after SIGTERM", time.Since(start).Round(time.Millisecond))
		case <-time.After(10 * time.Second):
			t.Errorf("zpulse did not exit within 10s of SIGTERM")
			_ = z.cmd.Process.Kill()
			<-z.exited
		}
	}
	if t.Failed() {
		t.Logf("zpulse output:\n%s", z.out)
	}
}

// running reports whether the process has not exited.
func (z *zpulse) running() bool {
	select {
	case <-z.exited:
		return false
	default:
		return true
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

// syncBuffer is a bytes.Buffer that the process's output copiers and the test share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
