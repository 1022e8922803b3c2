// Package redisrepo is the Redis adapter's entry: Open wires a REDIS_URL (one server,
// Cluster, Sentinel) or an embedded miniredis, and builds every service over one client, each
// in its room below (boards, queues, limiters, locks, sources, history, auth, notify) on the
// plumbing of store; Connect reads the URL forms; Snapshots is the live watcher's reader, one
// pipeline a poll for the topics the panels declare (internal/panels).
package redisrepo
