package live

import "github.com/prometheus/client_golang/prometheus"

// Metrics counts what the live path does. A nil *Metrics counts nothing.
type Metrics struct {
	connections prometheus.Gauge
	drops       prometheus.Counter
	ticks       prometheus.Histogram
	pollErrors  prometheus.Counter
	pushes      prometheus.Counter
}

// NewMetrics registers the live path's metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		connections: prometheus.NewGauge(prometheus.GaugeOpts{Name: "zpulse_ws_connections", Help: "Open websocket connections."}),
		drops:       prometheus.NewCounter(prometheus.CounterOpts{Name: "zpulse_ws_dropped_total", Help: "Connections dropped because they could not keep up."}),
		ticks: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "zpulse_watcher_tick_seconds", Help: "Time of one watcher tick: poll, compare, render, publish.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 8)}),
		pollErrors: prometheus.NewCounter(prometheus.CounterOpts{Name: "zpulse_watcher_poll_errors_total", Help: "Watcher polls that failed."}),
		pushes:     prometheus.NewCounter(prometheus.CounterOpts{Name: "zpulse_watcher_fragments_total", Help: "Fragments sent to viewers because what their topic shows changed."}),
	}
	reg.MustRegister(m.connections, m.drops, m.ticks, m.pollErrors, m.pushes)
	return m
}

func (m *Metrics) connected(n int) {
	if m != nil {
		m.connections.Set(float64(n))
	}
}

func (m *Metrics) dropped() {
	if m != nil {
		m.drops.Inc()
	}
}

func (m *Metrics) ticked(seconds float64, pollFailed bool, pushed int) {
	if m == nil {
		return
	}
	m.ticks.Observe(seconds)
	if pollFailed {
		m.pollErrors.Inc()
	}
	m.pushes.Add(float64(pushed))
}
