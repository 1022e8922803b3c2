package store

import (
	"context"
	"errors"
	"maps"
	"net"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
)

// CommandErrors counts the Redis commands that failed, by command name ("get", "evalsha",
// ...), for /metrics: a go-redis hook on the services' client sees every command and every
// pipeline. A nil reply is an answer, not an error, and so is NOSCRIPT (exec sends the script
// again).
type CommandErrors struct {
	mu sync.Mutex
	n  map[string]uint64
}

var _ redis.Hook = (*CommandErrors)(nil)

// Counts returns a copy of the counts so far.
func (c *CommandErrors) Counts() map[string]uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.n)
}

func (c *CommandErrors) count(cmds ...redis.Cmder) {
	for _, cmd := range cmds {
		c.countErr(cmd, cmd.Err())
	}
}

// countErr counts cmd when err says it failed.
func (c *CommandErrors) countErr(cmd redis.Cmder, err error) {
	name := strings.ToLower(cmd.Name())
	// The connection handshake (HELLO, CLIENT SETINFO) may be refused by older servers;
	// go-redis goes on without it.
	if err == nil || errors.Is(err, redis.Nil) || redis.HasErrorPrefix(err, "NOSCRIPT") || name == "hello" || name == "client" {
		return
	}
	c.mu.Lock()
	if c.n == nil {
		c.n = map[string]uint64{}
	}
	c.n[name]++
	c.mu.Unlock()
}

func (c *CommandErrors) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) { return next(ctx, network, addr) }
}

func (c *CommandErrors) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		// A single command's reply error is what next returns; go-redis sets it on cmd later.
		err := next(ctx, cmd)
		if err == nil {
			err = cmd.Err()
		}
		c.countErr(cmd, err)
		return err
	}
}

func (c *CommandErrors) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		c.count(cmds...)
		return err
	}
}
