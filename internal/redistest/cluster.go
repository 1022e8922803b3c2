package redistest

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// ClusterMasters is how many masters a test cluster has; the 16384 slots are shared evenly.
const ClusterMasters = 3

// Cluster is a Redis Cluster of ClusterMasters masters without replicas, on loopback.
type Cluster struct {
	Nodes []*Server // the masters; Nodes[i] serves the i-th third of the slots
	buses []int     // the nodes' cluster bus ports
}

var sharedCluster lazySetup[*Cluster]

// SharedCluster returns the package's cluster, started on first use and stopped by Main.
func SharedCluster(t testing.TB) *Cluster {
	t.Helper()
	return sharedCluster.get(t, "cluster", StartCluster)
}

// ClusterClient returns a client of the package's cluster (started on first use), with every
// master flushed for this test, closed after it.
func ClusterClient(t testing.TB) *redis.ClusterClient {
	t.Helper()
	rdb := SharedCluster(t).Client()
	err := rdb.ForEachMaster(context.Background(), func(ctx context.Context, m *redis.Client) error {
		return m.FlushAll(ctx).Err()
	})
	if err != nil {
		rdb.Close()
		t.Fatalf("redistest: flush cluster: %v", err)
	}
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// StartCluster starts ClusterMasters cluster-enabled servers, gives each an equal share of the
// slots, introduces them with CLUSTER MEET and waits until every node reports the cluster ok
// with every slot served. The caller closes it.
func StartCluster() (*Cluster, error) { return StartClusterWith() }

// StartClusterWith is StartCluster with extra redis-server arguments for every node (e.g.
// "--cluster-require-full-coverage", "no": the other masters go on serving while one is down).
func StartClusterWith(args ...string) (*Cluster, error) {
	c := &Cluster{}
	for range ClusterMasters {
		bus, err := freePort()
		if err != nil {
			c.Close()
			return nil, err
		}
		// The bus port is chosen (not port+10000) so that it is known to be free; the node
		// timeout stays Redis's default so that a loaded CI machine never sees a node as failed.
		n, err := startServer(nil, append([]string{"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
			"--cluster-port", strconv.Itoa(bus)}, args...))
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("start cluster node: %w", err)
		}
		c.Nodes, c.buses = append(c.Nodes, n), append(c.buses, bus)
	}
	if err := c.form(context.Background()); err != nil {
		var logs strings.Builder
		for _, n := range c.Nodes {
			fmt.Fprintf(&logs, "--- %s\n%s", n.Addr, n.Log())
		}
		c.Close()
		return nil, fmt.Errorf("form cluster: %w\n%s", err, logs.String())
	}
	return c, nil
}

// form assigns the slots and joins the nodes into one cluster.
func (c *Cluster) form(ctx context.Context) error {
	clients := make([]*redis.Client, len(c.Nodes))
	for i, n := range c.Nodes {
		clients[i] = redis.NewClient(&redis.Options{Addr: n.Addr, MaxRetries: -1})
		defer clients[i].Close()
	}
	for i, rdb := range clients {
		lo, hi := i*16384/len(clients), (i+1)*16384/len(clients)-1
		if err := rdb.Do(ctx, "CLUSTER", "ADDSLOTSRANGE", lo, hi).Err(); err != nil {
			return fmt.Errorf("%s: CLUSTER ADDSLOTSRANGE %d %d: %w", c.Nodes[i].Addr, lo, hi, err)
		}
	}
	for i, n := range c.Nodes[1:] {
		host, port, _ := net.SplitHostPort(n.Addr)
		// The bus port is given because it is not Redis's default of port+10000.
		if err := clients[0].Do(ctx, "CLUSTER", "MEET", host, port, c.buses[i+1]).Err(); err != nil {
			return fmt.Errorf("CLUSTER MEET %s: %w", n.Addr, err)
		}
	}
	return Poll(30*time.Second, func() error {
		for i, rdb := range clients {
			if err := clusterReady(ctx, rdb, len(clients)); err != nil {
				return fmt.Errorf("%s: %w", c.Nodes[i].Addr, err)
			}
		}
		return nil
	})
}

// clusterReady says why a node does not yet see the whole cluster: state ok, every slot
// assigned, and as many masters with slots as were started.
func clusterReady(ctx context.Context, rdb *redis.Client, masters int) error {
	info, err := rdb.ClusterInfo(ctx).Result()
	if err != nil {
		return err
	}
	if !strings.Contains(info, "cluster_state:ok") || !strings.Contains(info, "cluster_slots_ok:16384") {
		return fmt.Errorf("not ok yet: %q", info)
	}
	shards, err := rdb.ClusterShards(ctx).Result()
	if err != nil {
		return err
	}
	if len(shards) != masters {
		return fmt.Errorf("%d of %d masters known", len(shards), masters)
	}
	return nil
}

// Addrs returns the masters' addresses.
func (c *Cluster) Addrs() []string {
	addrs := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		addrs[i] = n.Addr
	}
	return addrs
}

// URL returns a REDIS_URL naming every master, as an operator would write it.
func (c *Cluster) URL() string { return "redis://" + strings.Join(c.Addrs(), ",") }

// Client returns a new cluster client; the caller closes it. Nothing is flushed.
func (c *Cluster) Client() *redis.ClusterClient {
	return redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs(), ReadTimeout: hangGuard, WriteTimeout: hangGuard})
}

// Close stops every node and removes its directory.
func (c *Cluster) Close() {
	for _, n := range c.Nodes {
		n.Close()
	}
}
