package main

import (
	"bufio"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// memory is the server's Go heap in use (go_memstats_heap_alloc_bytes) and goroutine stacks
// (go_memstats_stack_inuse_bytes), read from its /metrics.
type memory struct {
	heap, stack float64
	ok          bool
}

func serverMemory(base string) memory {
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		return memory{}
	}
	defer resp.Body.Close()
	var m memory
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, value, _ := strings.Cut(sc.Text(), " ")
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			continue
		}
		switch name {
		case "go_memstats_heap_alloc_bytes":
			m.heap, m.ok = v, true
		case "go_memstats_stack_inuse_bytes":
			m.stack = v
		}
	}
	return m
}

// holdAndSample waits d, reading the server's memory twice a second, and returns the lowest
// heap seen (garbage not yet collected only adds) with the stacks of that reading.
func holdAndSample(base string, d time.Duration) memory {
	var low memory
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(500 * time.Millisecond) {
		if m := serverMemory(base); m.ok && (!low.ok || m.heap < low.heap) {
			low = m
		}
	}
	return low
}

// clientCPU is the CPU time this process used, user and system.
func clientCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
