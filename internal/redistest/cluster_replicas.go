package redistest

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// ReplicatedCluster is a Redis Cluster of ClusterMasters masters, each with one replica, on
// loopback, for failover tests: kill a master (Masters[i].Stop) and its replica
// (Replicas[i]) is promoted once the others saw the master fail for NodeTimeout. It is a
// cluster of its own (the package's shared one has no replicas, and must not fail over).
type ReplicatedCluster struct {
	Masters  []*Server // Masters[i] serves the i-th third of the slots
	Replicas []*Server // Replicas[i] replicates Masters[i]
	buses    map[*Server]int
}

// ReplicatedNodeTimeout is a replicated cluster's cluster-node-timeout: short, so a failover
// takes seconds, not Redis's default 15 s; only failover tests run on such a cluster.
const ReplicatedNodeTimeout = 1000 * time.Millisecond

// StartReplicatedCluster starts a ReplicatedCluster and waits until every slot is served and
// every replica is in sync with its master. The caller closes it.
func StartReplicatedCluster() (*ReplicatedCluster, error) {
	c := &ReplicatedCluster{buses: map[*Server]int{}}
	start := func() (*Server, error) {
		bus, err := freePort()
		if err != nil {
			return nil, err
		}
		n, err := startServer(nil, []string{"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
			"--cluster-port", strconv.Itoa(bus), "--cluster-node-timeout", strconv.Itoa(int(ReplicatedNodeTimeout.Milliseconds()))})
		if err != nil {
			return nil, fmt.Errorf("start cluster node: %w", err)
		}
		c.buses[n] = bus
		return n, nil
	}
	for range ClusterMasters {
		m, err := start()
		if err != nil {
			c.Close()
			return nil, err
		}
		r, err := start()
		if err != nil {
			c.Close()
			return nil, err
		}
		c.Masters, c.Replicas = append(c.Masters, m), append(c.Replicas, r)
	}
	if err := c.form(context.Background()); err != nil {
		var logs strings.Builder
		for _, n := range append(c.Masters[:len(c.Masters):len(c.Masters)], c.Replicas...) {
			fmt.Fprintf(&logs, "--- %s\n%s", n.Addr, n.Log())
		}
		c.Close()
		return nil, fmt.Errorf("form replicated cluster: %w\n%s", err, logs.String())
	}
	return c, nil
}

// form assigns the slots to the masters, introduces every node, makes each replica replicate
// its master and waits until the cluster is ok with every replica in sync.
func (c *ReplicatedCluster) form(ctx context.Context) error {
	dial := func(s *Server) *redis.Client { return redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1}) }
	first := dial(c.Masters[0])
	defer first.Close()
	for i, m := range c.Masters {
		rdb := dial(m)
		lo, hi := i*16384/len(c.Masters), (i+1)*16384/len(c.Masters)-1
		err := rdb.Do(ctx, "CLUSTER", "ADDSLOTSRANGE", lo, hi).Err()
		rdb.Close()
		if err != nil {
			return fmt.Errorf("%s: CLUSTER ADDSLOTSRANGE %d %d: %w", m.Addr, lo, hi, err)
		}
	}
	for _, n := range append(c.Masters[1:len(c.Masters):len(c.Masters)], c.Replicas...) {
		host, port, _ := net.SplitHostPort(n.Addr)
		if err := first.Do(ctx, "CLUSTER", "MEET", host, port, c.buses[n]).Err(); err != nil {
			return fmt.Errorf("CLUSTER MEET %s: %w", n.Addr, err)
		}
	}
	for i, r := range c.Replicas {
		master := dial(c.Masters[i])
		id, err := master.Do(ctx, "CLUSTER", "MYID").Text()
		master.Close()
		if err != nil {
			return err
		}
		rdb := dial(r)
		// The replica must know the master before it can replicate it: the MEETs spread by gossip.
		err = Poll(30*time.Second, func() error { return rdb.Do(ctx, "CLUSTER", "REPLICATE", id).Err() })
		rdb.Close()
		if err != nil {
			return fmt.Errorf("%s: CLUSTER REPLICATE %s: %w", r.Addr, id, err)
		}
	}
	return Poll(60*time.Second, func() error {
		for _, m := range c.Masters {
			rdb := dial(m)
			err := clusterReady(ctx, rdb, len(c.Masters))
			rdb.Close()
			if err != nil {
				return fmt.Errorf("%s: %w", m.Addr, err)
			}
		}
		for _, r := range c.Replicas {
			rdb := dial(r)
			info, err := rdb.Info(ctx, "replication").Result()
			rdb.Close()
			if err != nil {
				return err
			}
			if !strings.Contains(info, "master_link_status:up") {
				return fmt.Errorf("%s: replica not in sync yet", r.Addr)
			}
		}
		return nil
	})
}

// URL returns a REDIS_URL naming every master.
func (c *ReplicatedCluster) URL() string {
	addrs := make([]string, len(c.Masters))
	for i, m := range c.Masters {
		addrs[i] = m.Addr
	}
	return "redis://" + strings.Join(addrs, ",")
}

// IsMaster says whether a node answers ROLE as a master.
func IsMaster(ctx context.Context, s *Server) bool {
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1})
	defer rdb.Close()
	role, err := rdb.Do(ctx, "ROLE").Slice()
	return err == nil && len(role) > 0 && role[0] == "master"
}

// Close stops every node and removes its directory.
func (c *ReplicatedCluster) Close() {
	for _, n := range append(c.Masters[:len(c.Masters):len(c.Masters)], c.Replicas...) {
		n.Close()
	}
}
