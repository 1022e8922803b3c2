// Command web serves the zpulse dashboard. main only wires the process to run, which the
// tests call with their own arguments and environment.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/redisrepo"
)

func main() {
	// go-redis logs to one logger for the whole process: set once, here. Its messages (every
	// failed dial while Redis is down) go to the debug level, which slog's default drops: an
	// outage is reported once, by the watcher.
	redis.SetLogger(redisrepo.GoRedisLogger{Log: slog.Default()})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", "zpulse", err)
		os.Exit(1)
	}
}
