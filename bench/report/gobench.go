package main

// The Go benchmarks that carry their own references, run and read by the table.

import (
	"bufio"
	"bytes"
	"log"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

var metric = regexp.MustCompile(`([0-9.e+]+) (\S+)`)

// goBench runs one Go benchmark and returns its metrics by unit, per sub-benchmark name.
func goBench(pkg, name, benchtime string) map[string]map[string]float64 {
	out, err := exec.Command("go", "test", "-run", "^$", "-bench", name, "-benchtime", benchtime, pkg).CombinedOutput()
	if err != nil {
		log.Printf("go test -bench %s %s: %v\n%s", name, pkg, err, out)
		add("go test -bench "+name+" "+pkg, "failed: "+err.Error(), "", "", "")
		return nil
	}
	res := map[string]map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "Benchmark") {
			continue
		}
		fields := strings.SplitN(line, "\t", 3)
		if len(fields) < 3 {
			continue
		}
		bench := strings.TrimSpace(fields[0])
		if i := strings.LastIndexByte(bench, '-'); i > 0 {
			bench = bench[:i]
		}
		res[bench] = map[string]float64{}
		for _, m := range metric.FindAllStringSubmatch(fields[2], -1) {
			v, _ := strconv.ParseFloat(m[1], 64)
			res[bench][m[2]] = v
		}
	}
	if len(res) == 0 { // moved or renamed: a line of the table says so rather than going missing
		add("go test -bench "+name+" "+pkg, "failed: no benchmark of that name ran", "", "", "")
		return nil
	}
	return res
}

func goBenchmarks() {
	if r := goBench("./internal/redisrepo/limiters", "BenchmarkAllow", "3000x"); r != nil {
		gcra := r["BenchmarkAllow/redis_rate_gcra"]["allows/s"]
		for name, m := range r {
			if v, ok := m["vs_gcra"]; ok {
				add("limiter Allow, "+strings.TrimPrefix(name, "BenchmarkAllow/")+" (allows/s)", rate(m["allows/s"]), "go-redis/redis_rate GCRA "+rate(gcra), strconv.FormatFloat(v, 'f', 2, 64)+"×", "(reference)")
			}
		}
	}
	if r := goBench("./internal/web", "BenchmarkQueueEnqueueTake", "20000x"); r != nil {
		m := r["BenchmarkQueueEnqueueTake"]
		add("queue enqueue, 50 clients (jobs/s)", rate(m["enqueue/s"]), "asynq Client.Enqueue "+rate(m["asynq-enqueue/s"]), ratio(m["enqueue/s"], m["asynq-enqueue/s"]), "≥ 1.0×")
		add("queue lease+ack, 50 clients (jobs/s)", rate(m["lease+ack/s"]), "asynq server, 50 workers "+rate(m["asynq-dequeue/s"]), ratio(m["lease+ack/s"], m["asynq-dequeue/s"]), "≥ 1.0×")
		add("queue take without a lease (jobs/s)", rate(m["take/s"]), "redis-benchmark ZPOPMIN "+rate(m["redis-benchmark-zpopmin/s"]), ratio(m["take/s"], m["redis-benchmark-zpopmin/s"]), "(reference)")
	}
	// What keeping completed jobs and a player's score history cost, side by side on one
	// client: the ack and the add without the record (before) and with it (after).
	perSecond := func(m map[string]float64) float64 { return 1e9 / m["ns/op"] }
	if r := goBench("./internal/redisrepo/queues", "BenchmarkLeaseAck", "5000x"); r != nil {
		before, after := perSecond(r["BenchmarkLeaseAck/keep-none"]), perSecond(r["BenchmarkLeaseAck/keep-default"])
		add("lease+ack, one client, completed jobs kept (/s)", rate(after), "none kept (before) "+rate(before), ratio(after, before), "(cost of the record)")
	}
	if r := goBench("./internal/redisrepo/boards", "BenchmarkAddPointsHistory", "5000x"); r != nil {
		before, after := perSecond(r["BenchmarkAddPointsHistory/history-off"]), perSecond(r["BenchmarkAddPointsHistory/history-10k"])
		add("add points, one client, score history on (/s)", rate(after), "history off (before) "+rate(before), ratio(after, before), "(cost of the record)")
	}
	if r := goBench("./internal/redisrepo", "BenchmarkCommandsPerTick", "20x"); r != nil {
		for _, kind := range []string{"board", "boards", "queue", "queues", "limiter", "limiters", "locks"} {
			ref, target := "", ""
			if kind == "queue" {
				ref, target = "32 earlier (docs/performance.md)", "≤ 10"
			}
			add("Redis commands per tick, one "+kind+" topic", strconv.FormatFloat(r["BenchmarkCommandsPerTick/"+kind]["cmds/tick"], 'f', 0, 64), ref, "", target)
		}
	}
}
