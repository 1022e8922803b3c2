// Package redistest runs a private redis-server for a test package: on a free port, with no
// persistence, flushed between tests, stopped at the end. It never touches a Redis that
// someone else runs on 6379.
//
//	func TestMain(m *testing.M) { redistest.Main(m) }
//	func TestX(t *testing.T) { rdb := redistest.Client(t) ... }
package redistest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Server is a redis-server process owned by a test.
type Server struct {
	Addr string
	cmd  *exec.Cmd
	dir  string
}

var shared *Server

// Main starts the package's shared server, runs the tests, stops the server and exits.
func Main(m *testing.M) {
	srv, err := Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "redistest:", err)
		os.Exit(1)
	}
	shared = srv
	code := m.Run()
	srv.Close()
	os.Exit(code)
}

// Client returns a client of the package's shared server, flushed for this test and closed
// after it.
func Client(t testing.TB) *redis.Client {
	t.Helper()
	if shared == nil {
		t.Fatal("redistest: call redistest.Main(m) from TestMain first")
	}
	rdb := redis.NewClient(&redis.Options{Addr: shared.Addr})
	if err := rdb.FlushAll(context.Background()).Err(); err != nil {
		t.Fatalf("redistest: flush: %v", err)
	}
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// Shared returns the package's shared server (started by Main).
func Shared() *Server { return shared }

// Start starts a new redis-server on a free port of 127.0.0.1 and waits until it answers.
func Start() (*Server, error) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		return nil, fmt.Errorf("redis-server is not installed; the tests need a real Redis: apt-get install -y redis-server")
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "redistest-")
	if err != nil {
		return nil, err
	}
	s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), dir: dir}
	return s, s.start()
}

func (s *Server) start() error {
	_, port, _ := net.SplitHostPort(s.Addr)
	s.cmd = exec.Command("redis-server", "--port", port, "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--dir", s.dir, "--daemonize", "no", "--loglevel", "warning",
		"--enable-debug-command", "local") // DEBUG SLEEP plays a stalled Redis in tests
	logFile, err := os.Create(filepath.Join(s.dir, "redis.log"))
	if err != nil {
		return err
	}
	defer logFile.Close()
	s.cmd.Stdout, s.cmd.Stderr = logFile, logFile
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("start redis-server: %w", err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1})
	defer rdb.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := rdb.Ping(context.Background()).Err(); err == nil {
			return nil
		} else if time.Now().After(deadline) {
			s.kill()
			out, _ := os.ReadFile(logFile.Name())
			return fmt.Errorf("redis-server on %s did not answer within 10s: %w\n%s", s.Addr, err, out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop kills the server, as an outage would; Restart starts it again on the same port.
func (s *Server) Stop() { s.kill() }

// Restart starts a stopped server again on the same address, empty.
func (s *Server) Restart() error { return s.start() }

// Close stops the server and removes its directory.
func (s *Server) Close() {
	s.kill()
	os.RemoveAll(s.dir)
}

func (s *Server) kill() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
		s.cmd = nil
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
