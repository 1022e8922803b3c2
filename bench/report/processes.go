package main

// The processes a run starts (a private redis-server, zpulse for the viewers' lines) and
// what it reads of them and of the machine.

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// privateRedis starts a redis-server of this run on a free port of 127.0.0.1, keeping nothing
// on disk, and returns its address.
func privateRedis() string {
	port := freePort()
	addr := "127.0.0.1:" + port
	startProc("redis-server", "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	waitTCP(addr)
	return addr
}

// viewersZpulse starts a zpulse of this run on redisAddr, with flags, and returns its URL. The
// load tools' viewers all come from 127.0.0.1: its per-address and total websocket limits are
// raised so that they measure fan-out, not admission.
func viewersZpulse(zpulse, redisAddr string, flags ...string) string {
	addr := "127.0.0.1:" + freePort()
	startProc(zpulse, append([]string{"-addr", addr, "-redis-url", "redis://" + redisAddr, "-ws-per-address", "30000", "-ws-max-conns", "30000"}, flags...)...)
	waitHTTP("http://" + addr + "/healthz")
	return "http://" + addr
}

// serverPID finds the zpulse process listening at zURL among this program's children: the
// one whose command line holds its address.
func serverPID(zURL string) int {
	addr := strings.TrimPrefix(zURL, "http://")
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if bytes.Contains(cmdline, []byte(addr)) && bytes.Contains(cmdline, []byte("-redis-url")) {
			return pid
		}
	}
	return 0
}

// cpuTicks is utime+stime of pid in clock ticks (100 a second on Linux).
func cpuTicks(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s
}

func freePort() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fatalf("%v", err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

func waitTCP(addr string) {
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
	}
	fatalf("%s did not start listening", addr)
}

func waitHTTP(url string) {
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
	}
	fatalf("%s did not answer 200", url)
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return s
}

func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "model name") {
			_, v, _ := strings.Cut(line, ":")
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

func numCPU() int {
	b, _ := os.ReadFile("/proc/cpuinfo")
	return strings.Count(string(b), "processor\t:")
}
