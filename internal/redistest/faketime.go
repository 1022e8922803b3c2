package redistest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

// FakeTimeEnv names the environment variable that moves every redis-server of the tests to
// another date, with Debian's libfaketime: ZPULSE_TEST_REDIS_TIME="2028-02-29 23:59:30" (UTC)
// puts the servers' clocks there when the first one starts, running, all by the same offset
// (`make test-dates` sets it). Tests that take their clock from the server (Main's ready
// functions, ServerClock, Server.Now) move with it; Go reads the clock without libc, so
// libfaketime moves only Redis, and the tests move through their injected clock.
const FakeTimeEnv = "ZPULSE_TEST_REDIS_TIME"

// fakeOffset is FakeTimeEnv's date less the machine's clock, fixed when the first server
// starts, so a Cluster's or Sentinel's servers started later tell the same time.
var fakeOffset = sync.OnceValues(func() (time.Duration, error) {
	at, err := time.Parse(time.DateTime, os.Getenv(FakeTimeEnv))
	if err != nil {
		return 0, fmt.Errorf("%s: want YYYY-MM-DD hh:mm:ss (UTC): %w", FakeTimeEnv, err)
	}
	return time.Until(at), nil
})

// serverCommand is redis-server with args, with libfaketime preloaded when FakeTimeEnv is set
// (the library itself, not the faketime wrapper, which forks: a kill must reach the server).
// Debian's redis-server allocates with jemalloc, whose start reads the clock before libfaketime
// is ready, and hangs (https://github.com/wolfcw/libfaketime/issues/130); glibc's libc_malloc_debug, preloaded first,
// serves malloc and free from glibc instead, so jemalloc starts only later, for its statistics.
// The monotonic clock is left real: Redis times its own timeouts with it.
func serverCommand(args []string) (*exec.Cmd, error) {
	cmd := exec.Command("redis-server", args...)
	if os.Getenv(FakeTimeEnv) == "" {
		return cmd, nil
	}
	offset, err := fakeOffset()
	if err != nil {
		return nil, err
	}
	faketime, _ := filepath.Glob("/usr/lib/*/faketime/libfaketime.so.1")
	glibcMalloc, _ := filepath.Glob("/lib/*/libc_malloc_debug.so.0")
	if len(faketime) == 0 || len(glibcMalloc) == 0 {
		return nil, fmt.Errorf("%s is set but libfaketime (apt-get install -y faketime) or glibc's libc_malloc_debug is missing", FakeTimeEnv)
	}
	cmd.Env = append(os.Environ(), "LD_PRELOAD="+glibcMalloc[0]+" "+faketime[0], fmt.Sprintf("FAKETIME=%+.3f", offset.Seconds()), "FAKETIME_DONT_FAKE_MONOTONIC=1")
	return cmd, nil
}
