// Command report is `make bench`: every speed figure of zpulse next to its reference, run side
// by side, with the ratio and the target, in one table.
//
// It starts a private redis-server, builds and starts zpulse and bench/minimal on it, and
// measures over real TCP: HTTP add-points (bench/httpload, 50 keep-alive connections) against
// bench/minimal and redis-benchmark ZINCRBY; batch add-points against redis-benchmark -P 16
// ZINCRBY; fan-out and live latency with bench/wsload (1,000 viewers; 10,000 with -viewers10k,
// which needs `ulimit -n` above 20,000). Then it runs the Go benchmarks that carry their own
// references on a private Redis of their own: limiter Allow against go-redis/redis_rate, queue
// enqueue and lease+ack against hibiken/asynq, and Redis commands per tick per topic kind.
//
//	go run ./bench/report            # or: make bench
//	go run ./bench/report -viewers10k -duration 10s
//	go run ./bench/report -viewers10k -only fanout   # the fan-out lines alone
//	go run ./bench/report -only foreign              # the foreign write → frame lines alone
//	go run ./bench/report -only wire                 # bytes per change and idle frames alone
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/zpulse/zpulse/internal/redisrepo"
)

var (
	duration  = flag.Duration("duration", 8*time.Second, "length of each HTTP load run")
	rounds    = flag.Int("rounds", 2, "alternating rounds of each side-by-side HTTP pair (the best of each side is kept)")
	viewers10 = flag.Bool("viewers10k", false, "also measure fan-out to 10,000 viewers (needs ulimit -n > 20000)")
	skipGo    = flag.Bool("skip-go", false, "skip the Go benchmarks (limiter, queue, commands per tick)")
	zpulseBin = flag.String("zpulse", "", "a zpulse binary to measure instead of this tree's ./cmd/web (e.g. main's, built into /tmp, for an A/B with the same load tools)")
	only      = flag.String("only", "", "fanout: run only the fan-out lines (1,000 viewers; 10,000 with -viewers10k, polling and with keyspace notifications); foreign: only the foreign write → frame lines; wire: only the bytes per change and idle frames per page")
)

// procs are the processes this run started: stopped on every way out, a fatal one included.
var (
	procs  []*exec.Cmd
	tmpDir string // the binaries built for this run
)

func stopAll() {
	for _, p := range procs {
		_ = p.Process.Kill()
		_ = p.Wait()
	}
	procs = nil
	if tmpDir != "" {
		_ = os.RemoveAll(tmpDir)
	}
}

// fatalf stops what this run started, then exits like log.Fatalf.
func fatalf(format string, args ...any) {
	stopAll()
	log.Fatalf(format, args...)
}

// row is one line of the table.
type row struct{ figure, zpulse, reference, ratio, target string }

var rows []row

func add(figure, z, ref, ratio, target string) {
	rows = append(rows, row{figure, z, ref, ratio, target})
	fmt.Fprintf(os.Stderr, "  %s: %s | %s | %s\n", figure, z, ref, ratio)
}

func main() {
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("bench/report: ")
	tmp, err := os.MkdirTemp("", "zpulse-bench")
	if err != nil {
		fatalf("%v", err)
	}
	tmpDir = tmp
	defer stopAll()
	build := func(pkg string) string {
		out := filepath.Join(tmp, filepath.Base(pkg))
		if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
			fatalf("go build %s: %v\n%s", pkg, err, b)
		}
		return out
	}
	if *only != "" && *only != "fanout" && *only != "foreign" && *only != "wire" {
		fatalf("-only: fanout, foreign or wire")
	}
	if *only == "foreign" { // zpulse alone, on Redis servers of its own
		zpulse := *zpulseBin
		if zpulse == "" {
			zpulse = build("./cmd/web")
		}
		fmt.Fprintln(os.Stderr, "foreign write → frame, notifications on and off…")
		foreignWrites(zpulse, *foreignN)
		printTable()
		return
	}
	fmt.Fprintln(os.Stderr, "building zpulse and the load tools…")
	zpulse, minimal, httpload, wsload := *zpulseBin, build("./bench/minimal"), build("./bench/httpload"), build("./bench/wsload")
	if zpulse == "" {
		zpulse = build("./cmd/web")
	}

	redisAddr := privateRedis()
	zURL := viewersZpulse(zpulse, redisAddr)
	mPort := freePort()
	startProc(minimal, "-addr", "127.0.0.1:"+mPort, "-redis", redisAddr)
	mURL := "http://127.0.0.1:" + mPort
	waitTCP("127.0.0.1:" + mPort)

	load := func(url string, extra ...string) result {
		args := append([]string{"-url", url, "-duration", duration.String(), "-json"}, extra...)
		out, err := exec.Command(httpload, args...).Output()
		if err != nil {
			fatalf("httpload %v: %v\n%s", args, err, out)
		}
		var r result
		if err := json.Unmarshal(out, &r); err != nil {
			fatalf("httpload answer %q: %v", out, err)
		}
		return r
	}

	if *only == "wire" {
		wire(wsload, zURL, redisAddr)
		printTable()
		return
	}
	if *only == "" {
		httpLines(load, zURL, mURL, redisAddr)
	}

	fmt.Fprintln(os.Stderr, "fan-out and live latency (bench/wsload)…")
	fanout(wsload, zURL, redisAddr, 1000, "")
	if *viewers10 {
		fanout(wsload, zURL, redisAddr, 10000, "")
		fanoutNotified(zpulse, wsload, 10000)
	}
	if *only == "" {
		hold(zpulse, wsload)
		wire(wsload, zURL, redisAddr)

		fmt.Fprintln(os.Stderr, "foreign write → frame, notifications on and off…")
		foreignWrites(zpulse, *foreignN)

		if !*skipGo {
			fmt.Fprintln(os.Stderr, "Go benchmarks (each on a private Redis of its own, reference in the same run)…")
			goBenchmarks()
		}
	}
	printTable()
}

// httpLines are the HTTP add-points lines beside bench/minimal and redis-benchmark.
func httpLines(load func(url string, extra ...string) result, zURL, mURL, redisAddr string) {
	fmt.Fprintln(os.Stderr, "HTTP add-points, side by side…")
	var z, m result
	for range *rounds {
		if r := load(mURL + "/api/v1/boards/load/scores"); r.ReqPerSec > m.ReqPerSec {
			m = r
		}
		if r := load(zURL + "/api/v1/boards/load/scores"); r.ReqPerSec > z.ReqPerSec {
			z = r
		}
	}
	add("HTTP add-points, 50 connections (req/s; p50/p99 ms)", z.String(), "bench/minimal "+m.String(), ratio(z.ReqPerSec, m.ReqPerSec), "≥ 0.9×")
	rb := redisBenchmark(redisAddr, "-c", "50", "-n", "200000", "-r", "10000", "ZINCRBY", redisrepo.DefaultKeys.Leaderboard("rb"), "1", "__rand_int__")
	add("HTTP add-points vs redis-benchmark ZINCRBY -c 50 (req/s)", rate(z.ReqPerSec), rate(rb), ratio(z.ReqPerSec, rb), "(reference)")

	fmt.Fprintln(os.Stderr, "batch add-points…")
	batch := load(zURL+"/api/v1/boards/load-batch/batch/scores", "-batch", "1000", "-c", "8")
	rbP := redisBenchmark(redisAddr, "-c", "50", "-n", "1000000", "-P", "16", "-r", "10000", "ZINCRBY", redisrepo.DefaultKeys.Leaderboard("rbp"), "1", "__rand_int__")
	add("batch add-points, 1,000 players a request, 8 connections (players/s)", rate(batch.ItemPerSec), "redis-benchmark -P 16 ZINCRBY "+rate(rbP), ratio(batch.ItemPerSec, rbP), "≥ 0.5×")
}

func printTable() {
	fmt.Printf("\nzpulse speed, %s, %s (%d cores; the machine is shared, so compare within a run)\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"), cpuModel(), numCPU())
	fmt.Println("| figure | zpulse | reference | ratio | target |")
	fmt.Println("|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Printf("| %s | %s | %s | %s | %s |\n", r.figure, r.zpulse, r.reference, r.ratio, r.target)
	}
}

// result is bench/httpload's -json line.
type result struct {
	Requests   int64   `json:"requests"`
	Errors     int64   `json:"errors"`
	ReqPerSec  float64 `json:"req_per_sec"`
	ItemPerSec float64 `json:"items_per_sec"`
	P50Ms      float64 `json:"p50_ms"`
	P99Ms      float64 `json:"p99_ms"`
}

func (r result) String() string {
	return fmt.Sprintf("%s (%.1f / %.1f ms)", rate(r.ReqPerSec), r.P50Ms, r.P99Ms)
}

func rate(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) + "/s" }

func ratio(a, b float64) string {
	if b == 0 {
		return "–"
	}
	return strconv.FormatFloat(a/b, 'f', 2, 64) + "×"
}

var rbRate = regexp.MustCompile(`([0-9.]+) requests per second`)

func redisBenchmark(addr string, args ...string) float64 {
	host, port, _ := strings.Cut(addr, ":")
	out, err := exec.Command("redis-benchmark", append([]string{"-h", host, "-p", port, "-q"}, args...)...).CombinedOutput()
	if err != nil {
		fatalf("redis-benchmark %v: %v\n%s", args, err, out)
	}
	m := rbRate.FindAllStringSubmatch(string(out), -1)
	if m == nil {
		fatalf("redis-benchmark printed no rate:\n%s", out)
	}
	v, _ := strconv.ParseFloat(m[len(m)-1][1], 64)
	return v
}

var (
	wsLatency = regexp.MustCompile(`write-to-frame: p50 (\S+)\s+p90 (\S+)\s+p99 (\S+)\s+max (\S+)`)
	wsFrames  = regexp.MustCompile(`frames: ([0-9.]+)/s \(([0-9.]+) MB/s\); dropped viewers: (\d+)`)
	wsOpen    = regexp.MustCompile(`viewers: (\d+) open, (\d+) failed`)
)

// fanout runs bench/wsload with n viewers of one board while it writes to the board in Redis
// (4 writes a second, found by the 250 ms tick), and reads the server's CPU over the run.
// how is "" for the polling zpulse or says how this one learns of writes.
func fanout(wsload, zURL, redisAddr string, n int, how string) {
	pid := serverPID(zURL)
	before := cpuTicks(pid)
	began := time.Now()
	out, err := exec.Command(wsload, "-url", zURL, "-redis", redisAddr, "-viewers", strconv.Itoa(n), "-dialers", "100", "-duration", "10s").CombinedOutput()
	if err != nil {
		add(fmt.Sprintf("fan-out, %d viewers", n), "failed: "+firstLine(out), "", "", "")
		return
	}
	cpu := "?"
	if pid > 0 {
		cpu = fmt.Sprintf("%.0f%% of a core", 100*float64(cpuTicks(pid)-before)/100/time.Since(began).Seconds())
	}
	lat, frames, open := wsLatency.FindSubmatch(out), wsFrames.FindSubmatch(out), wsOpen.FindSubmatch(out)
	if lat == nil || frames == nil || open == nil {
		add(fmt.Sprintf("fan-out, %d viewers", n), "unreadable wsload output", "", "", "")
		return
	}
	if how == "" {
		add(fmt.Sprintf("live latency, %d viewers: write-to-frame p50 / p99 (250 ms tick)", n), string(lat[1])+" / "+string(lat[3]), "tick + 50 ms = 300 ms", "", "p99 ≤ 300 ms")
	} else {
		add(fmt.Sprintf("live latency, %d viewers, %s: write-to-frame p50 / p99", n, how), string(lat[1])+" / "+string(lat[3]), "", "", "p99 ≤ 100 ms")
	}
	add(fmt.Sprintf("fan-out, %d viewers%s: frames/s, dropped, server CPU over the run", n, strings.TrimSuffix(", "+how, ", ")),
		fmt.Sprintf("%s/s (%s MB/s), %s dropped, %s open, %s", frames[1], frames[2], frames[3], open[1], cpu), "", "", "no drops")
	if how == "" {
		fanoutExtras(out, n)
	} else if m := wsClientCPU.FindSubmatch(out); m != nil {
		add(fmt.Sprintf("load client (bench/wsload) CPU, %d viewers, %s", n, how), string(m[1])+"% of a core", "", "", "(beside zpulse on the same cores)")
	}
}

// fanoutNotified is fanout's 10,000 viewers on a zpulse of a private Redis that wakes on
// keyspace notifications (--live-notifications on: it CONFIG SETs notify-keyspace-events),
// still polling every 250 ms. The polling zpulse of the other lines idles meanwhile (no
// viewers, its board unwritten).
func fanoutNotified(zpulse, wsload string, n int) {
	addr := privateRedis()
	zURL := viewersZpulse(zpulse, addr, "-live-notifications", "on")
	zAddr := strings.TrimPrefix(zURL, "http://")
	for deadline := time.Now().Add(10 * time.Second); !liveByNotifications(zAddr) && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond) // the notifier's first probe
	}
	if !liveByNotifications(zAddr) {
		add(fmt.Sprintf("live latency, %d viewers, keyspace notifications on", n), "failed: zpulse did not report live by notifications", "", "", "p99 ≤ 100 ms")
		return
	}
	fanout(wsload, zURL, addr, n, "keyspace notifications on")
}
