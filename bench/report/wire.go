package main

// The live path's figures beside their references and goals: bytes on the wire
// per change per panel kind (browser settings: permessage-deflate offered) against the whole
// panel with and without deflate, idle frames per minute of each page, the fan-out's memory
// per connection and the load client's CPU, and (-hold19k) 19,000 connections held for a
// minute. All through bench/wsload against the running zpulse.

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
)

var hold19k = flag.Bool("hold19k", false, "also hold 19,000 idle viewers for a minute (needs ulimit -n above 19,100 in zpulse and in the load tool)")

// wireGoals are the live path's goals for one change, in bytes on the wire; "" for none stated.
var wireGoals = map[string]string{"board top ten": "≤ 1,500 B", "queue": "≤ 2,000 B"}

// idleBefore is what each page got idle before the live path's rework (docs/performance.md).
var idleBefore = map[string]string{
	"overview": "about 240 before the live path's rework (the locks' countdowns, every tick)", "locks": "about 240 before the live path's rework (every countdown, every tick)",
	"queue": "66 before the live path's rework for 3 min after a job came (a 17 KB frame a second: the sparkline), then 6",
	"board": "6 before the live path's rework (the history chart)", "limiter": "6 before the live path's rework (the history chart)", "job": "0 before the live path's rework",
}

// wire runs bench/wsload -mode pages and adds its lines.
func wire(wsload, zURL, redisAddr string) {
	connectionMemory()
	out, err := exec.Command(wsload, "-mode", "pages", "-url", zURL, "-redis", redisAddr, "-idle", "30s").Output()
	if err != nil {
		add("live bytes per change and idle frames", "failed: "+firstLine(out), "", "", "")
		return
	}
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var f map[string]any
		if json.Unmarshal(line, &f) != nil {
			continue
		}
		str := func(k string) string { v, _ := f[k].(string); return v }
		num := func(k string) float64 { v, _ := f[k].(float64); return v }
		switch str("figure") {
		case "idle":
			add("idle frames per minute, "+str("page")+" page", strconv.FormatFloat(num("frames_per_min"), 'f', 1, 64),
				idleBefore[str("page")], "", "0")
		case "change":
			target := wireGoals[str("panel")]
			if target == "" {
				target = "(measured)"
			}
			// A change may take more than one frame (a limiter's check, then its quota
			// refilling a second later): each would carry the whole panel if parts were not sent.
			frames := num("frames")
			add("bytes on the wire per change, "+str("panel")+" (deflate offered; only the changed parts)",
				fmt.Sprintf("%.0f B (%.0f B without deflate) in %.0f %s", num("wire_deflate"), num("wire_plain"), frames, plural(frames, "frame", "frames")),
				fmt.Sprintf("the whole panel: %.0f B deflated, %.0f B plain, a frame", num("whole_deflate"), num("whole_plain")), "", target)
		}
	}
}

var (
	wsMemory    = regexp.MustCompile(`memory per connection: ([0-9.-]+) KB \(heap ([0-9.-]+) KB, stacks ([0-9.-]+) KB; (\d+) held`)
	wsClientCPU = regexp.MustCompile(`load client CPU: (\d+)% of a core`)
)

// connectionMemory adds live.BenchmarkIdleConnectionMemory: the hub's own cost of an idle
// connection after a GC, measured in one process.
func connectionMemory() {
	r := goBench("./internal/live", "BenchmarkIdleConnectionMemory", "1x")["BenchmarkIdleConnectionMemory"]
	if r == nil {
		add("memory per idle live connection (live.Hub, after a GC)", "failed", "", "", "")
		return
	}
	add("memory per idle live connection (live.Hub, 2,000 held, after a GC)", fmt.Sprintf("%.1f KB", r["B/conn"]/1024),
		"10.0 KB before the live path's rework (docs/performance.md), same benchmark; 16.9 KB measured before", "", "≤ 12 KB")
}

// fanoutExtras adds the memory per connection and the load client's CPU of a wsload run.
func fanoutExtras(out []byte, n int) {
	// From zpulse's /metrics, the lowest heap over the hold: with fewer viewers the dials do
	// not trigger a GC, and the garbage of the HTTP runs before makes it meaningless.
	if m := wsMemory.FindSubmatch(out); m != nil && n >= 10000 {
		add(fmt.Sprintf("memory per idle live connection, %d viewers of zpulse (Go heap + stacks, /metrics)", n), string(m[1])+" KB (heap "+string(m[2])+", stacks "+string(m[3])+")",
			"16.9 KB before the live path's rework", "", "≤ 12 KB")
	}
	if m := wsClientCPU.FindSubmatch(out); m != nil {
		add(fmt.Sprintf("load client (bench/wsload) CPU, %d viewers", n), string(m[1])+"% of a core", "", "", "(beside zpulse on the same cores)")
	}
}

// hold holds 19,000 idle viewers for a minute and says how many stayed.
func hold(zpulse, wsload string) {
	if !*hold19k {
		return
	}
	// A zpulse of its own: its memory before the viewers is not the garbage and the goroutine
	// stacks the 10,000-viewer runs left in the other (which read as less than nothing a viewer).
	redisAddr := privateRedis()
	zURL := viewersZpulse(zpulse, redisAddr)
	out, err := exec.Command(wsload, "-url", zURL, "-redis", redisAddr, "-viewers", "19000", "-dialers", "100", "-hold", "60s", "-duration", "2s").CombinedOutput()
	open, frames := wsOpen.FindSubmatch(out), wsFrames.FindSubmatch(out)
	if err != nil || open == nil || frames == nil {
		fmt.Fprintf(os.Stderr, "%s", out)
		add("19,000 viewers held for a minute", "failed: "+firstLine(out), "", "", "")
		return
	}
	add("19,000 viewers held for a minute: open, failed, dropped", string(open[1])+" open, "+string(open[2])+" failed, "+string(frames[3])+" dropped", "", "", "all held")
	fanoutExtras(out, 19000)
}

// plural says n's noun.
func plural(n float64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
