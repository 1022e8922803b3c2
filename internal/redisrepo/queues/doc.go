// Package queues is the job queues' room of the Redis adapter (domain.Queues and its job
// operations): the articles' delayed-queue ZSET, leases with the reaper that returns expired
// ones, retries and the dead list, consumers and durations recorded inside the lease, ack and
// nack scripts, payloads, bulk operations and the live read of a queue.
package queues
