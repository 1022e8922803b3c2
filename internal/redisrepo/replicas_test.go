package redisrepo

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// With WaitReplicas, an enqueue and a lock taken behind Sentinel return once the replica has
// them; asking for more replicas than there are fails with EUNAVAILABLE, and the lock is given
// back. Through a SENTINEL FAILOVER, every enqueue that returned without error is on the new
// master: the confirmed writes are the ones a failover keeps.
func TestWaitReplicasBehindSentinel(t *testing.T) {
	// Serial: the package's one Sentinel setup (its master, its failovers) is shared by the Sentinel tests.
	ctx := context.Background()
	rdb := redistest.SentinelClient(t)
	s := redistest.SharedSentinel(t)
	svc, err := Open(ctx, OpenOptions{Client: rdb, WaitReplicas: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	if _, err := Open(ctx, OpenOptions{Client: rdb, WaitReplicas: -1}); err == nil {
		t.Error("Open accepted WaitReplicas -1")
	}

	master, err := s.MasterAddr(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var replica string
	for _, d := range s.Data {
		if d.Addr != master {
			replica = d.Addr
		}
	}
	direct := redis.NewClient(&redis.Options{Addr: replica})
	defer direct.Close()
	if _, err := svc.Queues.Enqueue(ctx, "mail", domain.NewJob{ID: "j1", Priority: 1, HasPriority: true}); err != nil {
		t.Fatal(err)
	}
	lease, err := svc.Locks.Acquire(ctx, "report", domain.LockOptions{TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	// Read at once from the replica: WAIT returned only after it had them.
	if direct.ZScore(ctx, "queue:mail", "j1").Err() != nil || direct.Get(ctx, "lock:report").Val() != lease.Token {
		t.Fatal("the replica lacks a write that WAIT confirmed")
	}

	greedy, err := Open(ctx, OpenOptions{Client: rdb, WaitReplicas: 2}) // the setup has one replica
	if err != nil {
		t.Fatal(err)
	}
	defer greedy.Close()
	_, err = greedy.Queues.Enqueue(ctx, "mail", domain.NewJob{ID: "j2", Priority: 1, HasPriority: true})
	if domain.ErrorCode(err) != domain.EUNAVAILABLE || !strings.Contains(domain.ErrorMessage(err), "1 of the 2 replicas") {
		t.Errorf("enqueue waiting for 2 replicas = %v, want EUNAVAILABLE naming 1 of 2", err)
	}
	_, err = greedy.Locks.Acquire(ctx, "invoice", domain.LockOptions{TTL: time.Minute})
	if domain.ErrorCode(err) != domain.EUNAVAILABLE {
		t.Errorf("acquire waiting for 2 replicas = %v, want EUNAVAILABLE", err)
	}
	if n := rdb.Exists(ctx, "lock:invoice").Val(); n != 0 {
		t.Error("a lock whose replicas did not confirm it was not given back")
	}
	if _, err := greedy.Locks.Acquire(ctx, "report", domain.LockOptions{TTL: time.Minute}); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Errorf("acquire of a lock another owner holds, waiting for 2 replicas = %v, want ECONFLICT", err)
	}

	// Enqueue through a failover: whatever returned without error survives it.
	var (
		mu        sync.Mutex
		confirmed []string
		refused   int
	)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			wctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			id := fmt.Sprintf("f%d", i)
			_, err := svc.Queues.Enqueue(wctx, "failover", domain.NewJob{ID: id, Priority: 1, HasPriority: true})
			cancel()
			mu.Lock()
			if err == nil {
				confirmed = append(confirmed, id)
			} else {
				refused++
			}
			mu.Unlock()
		}
	}()
	newMaster := s.Failover(t)
	// Wait until an enqueue confirmed after the failover settled: the client follows the new master.
	mu.Lock()
	before := len(confirmed)
	mu.Unlock()
	err = redistest.Poll(30*time.Second, func() error {
		mu.Lock()
		defer mu.Unlock()
		if len(confirmed) <= before+1 {
			return fmt.Errorf("no enqueue confirmed since the failover settled")
		}
		return nil
	})
	close(stop)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	onNew := redis.NewClient(&redis.Options{Addr: newMaster})
	defer onNew.Close()
	var lost []string
	for _, id := range confirmed {
		if onNew.ZScore(ctx, "queue:failover", id).Err() != nil {
			lost = append(lost, id)
		}
	}
	t.Logf("through SENTINEL FAILOVER with WaitReplicas 1: %d enqueues confirmed, %d refused, %d confirmed then lost", len(confirmed), refused, len(lost))
	if len(lost) > 0 {
		t.Errorf("confirmed enqueues missing on the new master %s: %v", newMaster, lost)
	}
}

// On a Cluster the write and its WAIT go to the master of the key, whichever it is: the test
// Cluster has no replicas, so an enqueue is on its master and reported unconfirmed.
func TestWaitReplicasOnTheCluster(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rdb := redistest.ClusterTurn(t)
	svc, err := Open(ctx, OpenOptions{Client: rdb, WaitReplicas: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	_, err = svc.Queues.Enqueue(ctx, "mail", domain.NewJob{ID: "j", Priority: 1, HasPriority: true})
	if domain.ErrorCode(err) != domain.EUNAVAILABLE || !strings.Contains(domain.ErrorMessage(err), "0 of the 1") {
		t.Fatalf("enqueue on a Cluster without replicas = %v, want EUNAVAILABLE naming 0 of 1", err)
	}
	if rdb.ZScore(ctx, "queue:mail", "j").Err() != nil || rdb.SIsMember(ctx, "zpulse:index:queues", "mail").Val() != true {
		t.Error("the unconfirmed enqueue is not on its master with its index entry")
	}
}
