// Package redistest runs private Redis servers for a test package: on free ports of loopback,
// with no persistence, flushed between tests, stopped at the end. It never touches a Redis that
// someone else runs on 6379.
//
//	func TestMain(m *testing.M) { redistest.Main(m) }
//	func TestX(t *testing.T) { rdb := redistest.Client(t) ... }
//
// Client gives a test the shared server's database 0, flushed; DB gives it a database of its
// own on that server, so tests that call t.Parallel do not see each other's keys.
//
// Main starts one single server for the package. A Redis Cluster (ClusterClient, SharedCluster)
// and a Sentinel setup (SentinelClient, SharedSentinel) start on first use, once per package,
// and Main stops them at the end: a package that never asks for them pays nothing.
// ForEachTopology runs a suite on the single server and on the cluster.
// ForEachTopologyParallel does so for tests that call t.Parallel: a database of its own (DB)
// on the single server, the cluster in turns (ClusterTurn), since a Cluster has database 0 only.
package redistest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Server is a redis-server process owned by a test.
type Server struct {
	Addr string
	conf string   // configuration file, for Sentinel; "" for a data server
	args []string // after the defaults, kept for a restart
	cmd  *exec.Cmd
	dir  string
}

var (
	shared *Server
	inMain bool // Main runs this package's tests, so what starts lazily is stopped at the end

	cleanupMu sync.Mutex
	cleanups  []func()
)

// Main starts the package's shared server, runs the tests, stops every server the tests started
// through this package (cluster, sentinel) and exits. Each ready function is called before the
// tests run with where the package's test clocks start: the first whole minute after the
// server's clock (its TIME), so that what a test dates (period keys and their PEXPIREAT, a
// day's counters) is a date Redis agrees with, whatever the calendar says.
func Main(m *testing.M, ready ...func(clockStart time.Time)) {
	srv, err := Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "redistest:", err)
		os.Exit(1)
	}
	shared, inMain = srv, true
	for db := 1; db < databases; db++ {
		freeDBs <- db
	}
	now, err := srv.Now()
	if err != nil {
		fmt.Fprintln(os.Stderr, "redistest:", err)
		srv.Close()
		os.Exit(1)
	}
	serverOffset = time.Until(now)
	for _, f := range ready {
		f(now.Truncate(time.Minute).Add(time.Minute))
	}
	code := m.Run()
	cleanupMu.Lock()
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
	cleanups = nil
	cleanupMu.Unlock()
	srv.Close()
	os.Exit(code)
}

// atExit has Main stop something started lazily.
func atExit(f func()) {
	cleanupMu.Lock()
	defer cleanupMu.Unlock()
	cleanups = append(cleanups, f)
}

// lazySetup is a package-wide setup (the Cluster, the Sentinel setup) that tests share:
// started by the first test that needs it, stopped when Main ends.
type lazySetup[T interface{ Close() }] struct {
	once sync.Once
	v    T
	err  error
}

func (s *lazySetup[T]) get(t testing.TB, what string, start func() (T, error)) T {
	t.Helper()
	if !inMain {
		t.Fatal("redistest: call redistest.Main(m) from TestMain first")
	}
	s.once.Do(func() {
		s.v, s.err = start()
		if s.err == nil {
			atExit(s.v.Close)
		}
	})
	if s.err != nil {
		t.Fatalf("redistest: %s: %v", what, s.err)
	}
	return s.v
}

// Client returns a client of the package's shared server's database 0 (the one a client that
// names no database uses), flushed for this test and closed after it. A test that dials the
// server itself (Shared().Addr) sees the same keys. Tests using it must not run in parallel
// with each other: use DB for those.
func Client(t testing.TB) *redis.Client {
	t.Helper()
	return flushedClient(t, 0)
}

// databases is how many databases the servers have: database 0 for Client, the others for DB.
const databases = 64

// freeDBs are the databases of the shared server no running test holds (Main fills it).
var freeDBs = make(chan int, databases)

// DB returns a client of a database of the package's shared server that no other running test
// uses, flushed for this test and closed after it (the database then goes to another test), so
// tests that each call DB can call t.Parallel. FLUSHALL would empty the others' databases: a
// test using DB flushes with FLUSHDB. rdb.Options().DB says which database it is, for a test
// that dials the server another way (through a proxy). It waits while every database is held.
func DB(t testing.TB) *redis.Client {
	t.Helper()
	if shared == nil {
		t.Fatal("redistest: call redistest.Main(m) from TestMain first")
	}
	db := <-freeDBs
	t.Cleanup(func() { freeDBs <- db })
	return flushedClient(t, db)
}

// hangGuard is the read and write timeout of the test clients: a guard against a hang, not a
// deadline a test meets (go-redis's 3 s default failed a 100,000-member pipeline to a
// redis-server that, niced with the test, shared a machine busy with stress-ng).
const hangGuard = 60 * time.Second

func flushedClient(t testing.TB, db int) *redis.Client {
	t.Helper()
	if shared == nil {
		t.Fatal("redistest: call redistest.Main(m) from TestMain first")
	}
	rdb := redis.NewClient(&redis.Options{Addr: shared.Addr, DB: db, ReadTimeout: hangGuard, WriteTimeout: hangGuard})
	if err := rdb.FlushDB(context.Background()).Err(); err != nil {
		t.Fatalf("redistest: flush database %d: %v", db, err)
	}
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// Shared returns the package's shared server (started by Main).
func Shared() *Server { return shared }

// Start starts a new redis-server on a free port of 127.0.0.1 and waits until it answers.
func Start() (*Server, error) { return startServer(nil, nil) }

// startServer starts a redis-server with extra arguments (after its port and defaults), or a
// sentinel when writeConf is set: it writes the sentinel's configuration file (which Sentinel
// needs, and rewrites) for the server's port.
func startServer(writeConf func(port int) string, args []string) (*Server, error) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		return nil, fmt.Errorf("redis-server is not installed; the tests need a real Redis: apt-get install -y redis-server")
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(serverDirRoot(), "redistest-")
	if err != nil {
		return nil, err
	}
	s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), dir: dir, args: args}
	if writeConf != nil {
		s.conf = filepath.Join(dir, "sentinel.conf")
		if err := os.WriteFile(s.conf, []byte(writeConf(port)), 0o644); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	if err := s.start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

// serverDirRoot is where the servers' directories go: /dev/shm where it is a directory (a
// tmpfs on Linux), else the system's temporary directory. A sentinel fsyncs its configuration
// at every new epoch and a cluster node its nodes.conf; on a disk busy with a cold build an
// fsync took seconds, and a sentinel whose timer stalled 2 s entered TILT mode, holding a
// failover for 30 s (seen in make test: TestSentinelFailover, "+tilt" right after the vote).
func serverDirRoot() string {
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		return "/dev/shm"
	}
	return ""
}

func (s *Server) start() error {
	_, port, _ := net.SplitHostPort(s.Addr)
	var args []string
	if s.conf != "" {
		args = append(args, s.conf, "--sentinel")
	}
	args = append(args, "--port", port, "--bind", "127.0.0.1", "--dir", s.dir, "--daemonize", "no", "--loglevel", "warning")
	if s.conf == "" {
		// DEBUG SLEEP plays a stalled Redis in tests.
		args = append(args, "--save", "", "--appendonly", "no", "--enable-debug-command", "local", "--databases", strconv.Itoa(databases))
	}
	args = append(args, s.args...)
	cmd, err := serverCommand(args)
	if err != nil {
		return err
	}
	s.cmd = cmd
	dieWithParent(s.cmd)
	logFile, err := os.OpenFile(filepath.Join(s.dir, "redis.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
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
	err = Poll(10*time.Second, func() error { return rdb.Ping(context.Background()).Err() })
	if err != nil {
		s.kill()
		out, _ := os.ReadFile(logFile.Name())
		return fmt.Errorf("redis-server on %s: %w\n%s", s.Addr, err, out)
	}
	return nil
}

// serverOffset is how far the shared server's clock is ahead of the machine's (0 but for a
// few microseconds, unless FakeTimeEnv moved the server).
var serverOffset time.Duration

// ServerClock is the package's shared server's clock, running: what a service under test that
// dates keys in Go (with no manual clock) must read, so its dates are the dates Redis expires
// by. It satisfies domain.Clock.
type ServerClock struct{}

func (ServerClock) Now() time.Time { return time.Now().Add(serverOffset) }

// Now returns the server's clock: its TIME, to the microsecond.
func (s *Server) Now() (time.Time, error) {
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr})
	defer rdb.Close()
	now, err := rdb.Time(context.Background()).Result()
	if err != nil {
		return time.Time{}, fmt.Errorf("redistest: TIME on %s: %w", s.Addr, err)
	}
	return now.UTC(), nil
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

// Log returns what the server wrote to its log, to explain a failure.
func (s *Server) Log() string {
	out, _ := os.ReadFile(filepath.Join(s.dir, "redis.log"))
	return string(out)
}

// Poll calls check until it returns nil or the deadline passes, then returns check's last
// error. It waits for a server to reach a state; it is never used to wait for time itself.
func Poll(within time.Duration, check func() error) error {
	deadline := time.Now().Add(within)
	for {
		err := check()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not within %v: %w", within, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// freePort returns a port of 127.0.0.1 that was free a moment ago and that this process has
// not handed out before: the kernel may give the same free port to two listens in a row, and
// a cluster node asks for its bus port and then its data port (seen in make test-dates: a node
// given one port for both failed "Address already in use").
func freePort() (int, error) {
	portsMu.Lock()
	defer portsMu.Unlock()
	for {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if !portsGiven[port] {
			portsGiven[port] = true
			return port, nil
		}
	}
}

var (
	portsMu    sync.Mutex
	portsGiven = map[int]bool{} // the ports freePort has handed out
)
