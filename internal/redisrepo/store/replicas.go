package store

import (
	"context"
	"errors"
	"fmt"

	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
)

// replicaWaitTimeout bounds how long a critical write waits for its replicas.
const replicaWaitTimeout = time.Second

// MaxWaitReplicas bounds OpenOptions.WaitReplicas.
const MaxWaitReplicas = 16

// ReplicaWait makes critical writes (an enqueue, a lock taken) wait until n replicas have
// them, so that a failover right after keeps them: Redis replicates asynchronously, and a
// master acknowledges a write before any replica has it. n 0 waits for nothing.
//
// WAIT covers the writes of its own connection only, so the write and its WAIT go on one
// connection to the master that serves the key; a write sent elsewhere (say, to a master
// the client left during a failover) is never confirmed by another server's replicas.
type ReplicaWait struct{ N int }

// ErrNotReplicated wraps the EUNAVAILABLE of a write that fewer replicas confirmed than asked:
// the write is on the master, and a failover could lose it.
var ErrNotReplicated = errors.New("not confirmed by the replicas")

// pipeliner is what runs a pipeline: a client, or one connection of it.
type pipeliner interface{ Pipeline() redis.Pipeliner }

// Write runs a critical write. write adds its commands, all in key's slot, to a pipeline;
// bookkeeping, nil when there is none to send, adds idempotent commands in other slots (an
// index). The bookkeeping is sent only once the write succeeded, in a second round trip: a
// Write its script refused (a key of another type at the name) indexes nothing. Without
// Replicas to await and without bookkeeping, the write is one pipeline on rdb. With replicas,
// the write runs on one connection to key's master, followed there by WAIT. Returns the
// pipeline's error, or one wrapping errNotReplicated (an EUNAVAILABLE) when fewer replicas
// confirmed; the write's commands hold their answers either way.
func (w ReplicaWait) Write(ctx context.Context, rdb redis.UniversalClient, key string, write, bookkeeping func(redis.Pipeliner)) error {
	if w.N == 0 {
		pipe := rdb.Pipeline()
		write(pipe)
		if err := Exec(ctx, rdb, pipe); err != nil || bookkeeping == nil {
			return err
		}
		pipe = rdb.Pipeline()
		bookkeeping(pipe)
		return Exec(ctx, rdb, pipe)
	}
	var node *redis.Client
	switch c := rdb.(type) {
	case *redis.ClusterClient:
		m, err := c.MasterForKey(ctx, key)
		if err != nil {
			return err
		}
		node = m
	case *redis.Client:
		node = c
	default:
		return fmt.Errorf("waiting for replicas through a %T", rdb)
	}
	conn := node.Conn()
	defer conn.Close()
	pipe := conn.Pipeline()
	write(pipe)
	if err := Exec(ctx, conn, pipe); err != nil {
		return err
	}
	got, err := conn.Do(ctx, "wait", w.N, replicaWaitTimeout.Milliseconds()).Int64()
	if err != nil {
		return err
	}
	if bookkeeping != nil {
		pipe = rdb.Pipeline()
		bookkeeping(pipe)
		if err := Exec(ctx, rdb, pipe); err != nil {
			return err
		}
	}
	if got < int64(w.N) {
		return fmt.Errorf("%w: %w", ErrNotReplicated, domain.Errorf(domain.EUNAVAILABLE,
			"only %d of the %d replicas asked for confirmed the write within %v: it is on the master, but a failover now could lose it", got, w.N, replicaWaitTimeout))
	}
	return nil
}

// ValidateWaitReplicas checks OpenOptions.WaitReplicas.
func ValidateWaitReplicas(n int) error {
	if n < 0 || n > MaxWaitReplicas {
		return fmt.Errorf("wait replicas must be from 0 to %d (got %d)", MaxWaitReplicas, n)
	}
	return nil
}
