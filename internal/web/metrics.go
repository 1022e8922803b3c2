package web

import (
	"context"
	"log/slog"
	"time"

	"github.com/labstack/echo-contrib/echoprometheus"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/web/httpio"
)

// BusinessCollector reports the queues, limiters, locks and boards zpulse watches at scrape
// time: one stateless repository read (one pipelined round trip, at most Limit entities of
// each kind), whatever pages are open. Redis command errors come from ErrorCounts.
type BusinessCollector struct {
	Read        domain.BusinessReader
	Limit       int                      // labelled entities of each kind, at most
	ErrorCounts func() map[string]uint64 // failed Redis commands by command; nil: not reported
	// Health reads every master at scrape time, for zpulse_redis_masters_down
	// (redisrepo.Services.Health); nil: not reported.
	Health  func(context.Context) domain.RedisHealth
	Timeout time.Duration // one scrape's read; 0 is 5 s
	Log     *slog.Logger
}

var _ prometheus.Collector = (*BusinessCollector)(nil)

var (
	queueJobsDesc = prometheus.NewDesc("zpulse_queue_jobs", "Jobs in a queue by state, as GET /api/v1/queues/:queue reports them: waiting (due), scheduled, in_flight, dead.",
		[]string{"queue", "state"}, nil)
	queueOldestDesc = prometheus.NewDesc("zpulse_queue_oldest_waiting_seconds", "How long the oldest due job of a queue has waited; 0 when none waits.",
		[]string{"queue"}, nil)
	queueProcessedDesc = prometheus.NewDesc("zpulse_queue_processed_total", "Jobs of a queue that completed (acked, or polled without a lease) or failed (nacked, or their lease ended), since the history recorder began counting.",
		[]string{"queue", "outcome"}, nil)
	queuePausedDesc = prometheus.NewDesc("zpulse_queue_paused", "1 while a queue is paused (polls through zpulse take nothing), else 0.",
		[]string{"queue"}, nil)
	jobDurationDesc = prometheus.NewDesc("zpulse_job_duration_seconds", "Time from a job's lease to its ack, by queue, since zpulse first counted one (acks through zpulse of jobs leased through zpulse).",
		[]string{"queue"}, nil)
	queueEnqueuedDesc = prometheus.NewDesc("zpulse_queue_enqueued_total", "Jobs enqueued through zpulse, since the history recorder began counting.",
		[]string{"queue"}, nil)
	limiterDecisionsDesc = prometheus.NewDesc("zpulse_limiter_decisions_total", "Checks of a limiter policy made through zpulse by decision (allowed, rejected), since the history recorder began counting.",
		[]string{"limiter", "decision"}, nil)
	locksHeldDesc = prometheus.NewDesc("zpulse_locks_held", "Locks held now, among those zpulse knows (at most the entity cap are checked).",
		nil, nil)
	boardPlayersDesc = prometheus.NewDesc("zpulse_board_players", "Players on a board (all time).",
		[]string{"board"}, nil)
	droppedDesc = prometheus.NewDesc("zpulse_metrics_entities_dropped", "Entities of a kind left out of this scrape by the cap (--metrics-max-entities).",
		[]string{"kind"}, nil)
	scrapeErrorDesc = prometheus.NewDesc("zpulse_metrics_read_error", "1 when this scrape could not read Redis (the business series are then missing).",
		nil, nil)
	mastersDownDesc = prometheus.NewDesc("zpulse_redis_masters_down", "Redis masters that did not answer a PING within a second at this scrape (a Cluster's every master, the master Sentinel names, or the one server); with no master known (no node answers, Sentinel names none), 1 when no master is known (no Cluster node answers, no sentinel names the master).",
		nil, nil)
	redisErrorsDesc = prometheus.NewDesc("zpulse_redis_command_errors_total", "Redis commands that failed (not nil replies), by command.",
		[]string{"command"}, nil)
)

func (b *BusinessCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{queueJobsDesc, queueOldestDesc, queueProcessedDesc, queueEnqueuedDesc, queuePausedDesc, jobDurationDesc, limiterDecisionsDesc,
		locksHeldDesc, boardPlayersDesc, droppedDesc, scrapeErrorDesc, redisErrorsDesc, mastersDownDesc} {
		ch <- d
	}
}

func (b *BusinessCollector) Collect(ch chan<- prometheus.Metric) {
	if b.ErrorCounts != nil {
		for cmd, n := range b.ErrorCounts() {
			ch <- prometheus.MustNewConstMetric(redisErrorsDesc, prometheus.CounterValue, float64(n), cmd)
		}
	}
	if b.Health != nil {
		hctx, cancel := context.WithTimeout(context.Background(), time.Second)
		h := b.Health(hctx)
		cancel()
		down := h.Down()
		if h.Unknown != "" {
			down = max(len(h.Masters), 1)
		}
		ch <- prometheus.MustNewConstMetric(mastersDownDesc, prometheus.GaugeValue, float64(down))
	}
	timeout := b.Timeout
	if timeout == 0 {
		timeout = 5 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	m, err := b.Read.Snapshot(ctx, b.Limit)
	if err != nil {
		if b.Log != nil {
			b.Log.Warn("metrics: cannot read the business series", "err", err)
		}
		ch <- prometheus.MustNewConstMetric(scrapeErrorDesc, prometheus.GaugeValue, 1)
		return
	}
	ch <- prometheus.MustNewConstMetric(scrapeErrorDesc, prometheus.GaugeValue, 0)
	gauge := func(d *prometheus.Desc, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v), labels...)
	}
	counter := func(d *prometheus.Desc, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	for _, q := range m.Queues {
		gauge(queueJobsDesc, q.Waiting, q.Queue, "waiting")
		gauge(queueJobsDesc, q.Scheduled, q.Queue, "scheduled")
		gauge(queueJobsDesc, q.InFlight, q.Queue, "in_flight")
		gauge(queueJobsDesc, q.Dead, q.Queue, "dead")
		ch <- prometheus.MustNewConstMetric(queueOldestDesc, prometheus.GaugeValue, float64(max(q.OldestWaitingMs, 0))/1000, q.Queue)
		counter(queueProcessedDesc, q.Completed, q.Queue, "completed")
		counter(queueProcessedDesc, q.Failed, q.Queue, "failed")
		counter(queueEnqueuedDesc, q.Enqueued, q.Queue)
		paused := int64(0)
		if q.Paused {
			paused = 1
		}
		gauge(queuePausedDesc, paused, q.Queue)
		ch <- durationHistogram(q.Queue, q.Durations)
	}
	for _, l := range m.Limiters {
		counter(limiterDecisionsDesc, l.Allowed, l.Limiter, "allowed")
		counter(limiterDecisionsDesc, l.Rejected, l.Limiter, "rejected")
	}
	gauge(locksHeldDesc, m.LocksHeld)
	for _, bd := range m.Boards {
		gauge(boardPlayersDesc, bd.Players, bd.Board)
	}
	for _, kind := range []domain.HistoryKind{domain.HistoryQueue, domain.HistoryLimiter, domain.HistoryBoard} {
		gauge(droppedDesc, int64(m.Dropped[kind]), string(kind))
	}
}

// httpMetrics counts HTTP requests by route template (never the raw path, so the labels stay
// bounded), method and status, with their durations: echo-contrib's echoprometheus, as
// zpulse_http_requests_total and friends. The host label is left empty: a Host header is the
// client's to choose.
func httpMetrics(reg prometheus.Registerer) echo.MiddlewareFunc {
	mw, err := echoprometheus.MiddlewareConfig{
		Namespace: "zpulse", Subsystem: "http", Registerer: reg, DoNotUseRequestPathFor404: true,
		LabelFuncs: map[string]echoprometheus.LabelValueFunc{"host": func(echo.Context, error) string { return "" }},
		// The status the error handler will answer (httpio's error table), not a blanket 500.
		StatusCodeResolver: func(c echo.Context, err error) int {
			if err != nil {
				status, _, _ := httpio.DescribeError(err)
				return status
			}
			return c.Response().Status
		},
	}.ToMiddleware()
	if err != nil { // only a second registration on one registry fails: a wiring bug
		panic("web.httpMetrics: " + err.Error())
	}
	return mw
}

// durationHistogram is a queue's lease-to-ack times as a Prometheus histogram: the buckets
// of domain.DurationBoundsMs, in seconds, cumulative.
func durationHistogram(queue string, h domain.DurationHistogram) prometheus.Metric {
	buckets := make(map[float64]uint64, len(domain.DurationBoundsMs))
	cum := uint64(0)
	for i, bound := range domain.DurationBoundsMs {
		if i < len(h.Counts) {
			cum += uint64(max(h.Counts[i], 0))
		}
		buckets[float64(bound)/1000] = cum
	}
	return prometheus.MustNewConstHistogram(jobDurationDesc, uint64(max(h.Count(), 0)), float64(h.SumMs)/1000, buckets, queue)
}
