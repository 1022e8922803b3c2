package web

import (
	"context"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
)

// PageReads are the reads the boards list, the queues list, the overview and a queue's page
// start from, as the live topics show them.
type PageReads interface {
	// BoardSummaries is what domain.TopicBoards shows.
	BoardSummaries(ctx context.Context) ([]domain.BoardSummary, error)
	// QueueSummaries is what domain.TopicQueues shows.
	QueueSummaries(ctx context.Context) ([]domain.QueueSummary, error)
	// QueueView is what domain.QueueTopic(queue) shows; the zero view when there is none.
	QueueView(ctx context.Context, queue string) (domain.QueueView, error)
}

// SnapshotPageReads serves PageReads from the watcher's own snapshot reader (Read), as the
// pages always did. Being the watcher's stateful reader, a page load through it resets what
// the watcher knows of some topics; it is to give way to stateless service reads.
type SnapshotPageReads struct {
	Read         live.PollFunc
	Leaderboards domain.LeaderboardService
	Queues       domain.QueueService
}

func (r SnapshotPageReads) BoardSummaries(ctx context.Context) ([]domain.BoardSummary, error) {
	if _, err := r.Leaderboards.Boards(ctx); err != nil { // the first call discovers the boards
		return nil, err
	}
	snaps, err := r.Read(ctx, []string{domain.TopicBoards})
	if err != nil {
		return nil, err
	}
	boards, _ := snaps[domain.TopicBoards].([]domain.BoardSummary)
	return boards, nil
}

func (r SnapshotPageReads) QueueSummaries(ctx context.Context) ([]domain.QueueSummary, error) {
	if _, err := r.Queues.Queues(ctx); err != nil { // the first call discovers the queues
		return nil, err
	}
	snaps, err := r.Read(ctx, []string{domain.TopicQueues})
	if err != nil {
		return nil, err
	}
	queues, _ := snaps[domain.TopicQueues].([]domain.QueueSummary)
	return queues, nil
}

func (r SnapshotPageReads) QueueView(ctx context.Context, queue string) (domain.QueueView, error) {
	topic := domain.QueueTopic(queue)
	snaps, err := r.Read(ctx, []string{topic})
	v, _ := snaps[topic].(domain.QueueView)
	return v, err
}
