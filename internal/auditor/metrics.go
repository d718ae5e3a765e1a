package auditor

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the background audit's Prometheus metrics. A nil *Metrics
// records nothing.
type Metrics struct {
	violations *prometheus.GaugeVec
	duration   prometheus.Histogram
}

// NewMetrics creates the metrics; Register exposes them.
func NewMetrics() *Metrics {
	return &Metrics{
		violations: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "crdguard_audit_violations",
			Help: "Findings of the last background audit on stored objects, by policy and rule (one per object, rule and field); policy \"schema\" is the CRD schema.",
		}, []string{"policy", "rule"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "crdguard_audit_duration_seconds",
			Help: "Time one background audit took, listing, evaluating and writing reports.",
			// From a small cluster's second to a large one's quarter hour
			// at a low request rate.
			Buckets: []float64{0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 900},
		}),
	}
}

// Register adds the metrics to reg, for the manager's /metrics that is
// controller-runtime's metrics.Registry.
func (m *Metrics) Register(reg prometheus.Registerer) error {
	return errors.Join(reg.Register(m.violations), reg.Register(m.duration))
}

// observe records a completed run, replacing the previous counts so a
// fixed finding or a deleted policy disappears.
func (m *Metrics) observe(f *findings, took time.Duration) {
	if m == nil {
		return
	}
	m.violations.Reset()
	for k, n := range f.violations {
		m.violations.WithLabelValues(k.policy, k.rule).Set(float64(n))
	}
	m.duration.Observe(took.Seconds())
}
