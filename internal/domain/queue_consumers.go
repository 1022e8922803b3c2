package domain

import (
	"context"
	"strings"
	"time"
)

// Who is consuming a queue: each consumer that polled it with a lease, named by the consumer
// name it sent, else by its client address; when it last polled, the leases it holds, and its
// acks and nacks per minute. zpulse's lease, ack and nack scripts record them in the queue's
// slot, in the same atomic step as the lease, ack or nack.

const (
	// ConsumerTTL is how long a consumer that stopped polling stays listed: it is forgotten
	// once it has not polled for this long, so a queue's consumers take bounded memory.
	ConsumerTTL = time.Hour
	// ConsumersKept bounds the consumers a queue lists: beyond it, the one that polled least
	// lately is forgotten.
	ConsumersKept = 100
	// ConsumerLeaseScan bounds the leases counted by consumer: the first this many of the
	// queue's in-flight jobs, soonest deadline first.
	ConsumerLeaseScan = 10_000
	// ConsumerJobsShown bounds the jobs listed under each consumer: its first this many in
	// flight, soonest deadline first (Leases counts them all).
	ConsumerJobsShown = 5
	// HiddenAddress is what an anonymous viewer sees for a consumer known by its address when
	// an admin token is set: a client address is personal data.
	HiddenAddress = "hidden"
)

// addressMark starts a stored consumer that is a client address: a consumer name
// (ValidateName) never holds it, so a name and an address never meet.
const addressMark = "@"

// Consumer is one consumer of a queue as its page and GET /api/v1/queues/:queue/consumers
// show it. Values only (compared with reflect.DeepEqual or by the rendered fragment).
type Consumer struct {
	// Name is the consumer name it polled with, or its client address (Address true).
	Name    string
	Address bool
	// LastPollMs is when it last polled with a lease, epoch ms (the lease clock).
	LastPollMs int64
	// Leases counts the jobs in flight under its leases now.
	Leases int64
	// Acks and Nacks count its acks and nacks in the minute before this one (a full minute,
	// so a rate per minute) and in this minute so far, UTC minutes of the lease clock.
	AcksLastMinute, NacksLastMinute int64
	AcksThisMinute, NacksThisMinute int64
	// AckMsLastMinute and AckMsThisMinute add up the lease-to-ack times of those acks, ms:
	// divided by the acks, its mean time a job (MeanAckMs).
	AckMsLastMinute, AckMsThisMinute int64
	// Jobs are the first ConsumerJobsShown jobs it holds now, soonest deadline first.
	Jobs []HeldJob
}

// HeldJob is a job in flight under a consumer's lease: its id and when the lease began
// (epoch ms, the lease clock), so how long it has been held.
type HeldJob struct {
	ID      string
	SinceMs int64
}

// MeanAckMs is the consumer's mean lease-to-ack time over the last full minute and this one,
// ms, and whether it acked any job in them.
func (c Consumer) MeanAckMs() (int64, bool) {
	n := c.AcksLastMinute + c.AcksThisMinute
	if n == 0 {
		return 0, false
	}
	return (c.AckMsLastMinute + c.AckMsThisMinute) / n, true
}

// ConsumerID is how a poll's consumer is stored: its name when it sent one (valid, see
// ValidateConsumer), else its address marked as one.
func ConsumerID(name, address string) string {
	if name != "" {
		return name
	}
	return addressMark + address
}

// ParseConsumerID reads a stored consumer back.
func ParseConsumerID(id string) (name string, address bool) {
	if rest, ok := strings.CutPrefix(id, addressMark); ok {
		return rest, true
	}
	return id, false
}

// ConsumerReader reads who consumes a queue.
type ConsumerReader interface {
	// Consumers lists the queue's consumers that polled with a lease in the last
	// ConsumerTTL, the latest poll first. Returns EINVALID, EUNAVAILABLE.
	Consumers(ctx context.Context, queue string) ([]Consumer, error)
}

// ValidateConsumer checks a consumer name sent with a poll: the rules of every name.
// Returns EINVALID.
func ValidateConsumer(name string) error { return ValidateName("consumer", name) }
