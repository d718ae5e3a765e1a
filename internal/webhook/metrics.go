package webhook

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/crdguard/crdguard/pkg/policies"
)

// Decisions of crdguard_admission_requests_total.
const (
	decisionAllowed = "allowed"
	decisionDenied  = "denied"
	// decisionError is a request that could not be evaluated (a 500).
	decisionError = "error"
)

// decisionOf is a response's decision. Only a 422 is a verdict on the
// object; a 400 (an AdmissionReview that cannot be read) or a 500 is an
// error.
func decisionOf(resp admission.Response) string {
	switch {
	case resp.Allowed:
		return decisionAllowed
	case resp.Result != nil && resp.Result.Code == http.StatusUnprocessableEntity:
		return decisionDenied
	}
	return decisionError
}

// Metrics are the admission handlers' Prometheus metrics and the serving
// certificate's expiry; the engine's own are internal/cluster's. A nil
// *Metrics records nothing, so handlers work without them (in tests, say).
type Metrics struct {
	requests    *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	violations  *prometheus.CounterVec
	approvals   prometheus.Counter
	certExpires prometheus.Gauge

	// series are the requests' and duration's series already looked up:
	// WithLabelValues hashes its labels and looks them up under a lock
	// with every call.
	mu     sync.RWMutex
	series map[decisionLabels]decisionSeries
}

// decisionLabels are the labels of one decision's series.
type decisionLabels struct{ op, kind, decision string }

// decisionSeries are the series a decision is recorded in.
type decisionSeries struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

// NewMetrics creates the metrics; Register exposes them.
func NewMetrics() *Metrics {
	return &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "crdguard_admission_requests_total",
			Help: "Admission requests /validate decided, by operation, kind and decision (allowed, denied, error).",
		}, []string{"operation", "kind", "decision"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "crdguard_admission_duration_seconds",
			Help: "Time /validate took to decide a request, by operation and kind.",
			// Up to 30s, the longest timeout a webhook configuration may
			// set: a request slower than that never got its answer.
			Buckets: []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30},
		}, []string{"operation", "kind"}),
		violations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "crdguard_policy_violations_total",
			Help: "Findings of /validate, by policy, rule and enforcement (Deny, Warn, Audit).",
		}, []string{"policy", "rule", "enforcement"}),
		approvals: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "crdguard_approvals_total",
			Help: "Requests /validate allowed because an approver lifted a denial.",
		}),
		certExpires: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "crdguard_serving_certificate_expiry_timestamp_seconds",
			Help: "When the serving certificate expires, in seconds since the Unix epoch.",
		}),
		series: map[decisionLabels]decisionSeries{},
	}
}

// Register adds the metrics to reg, for the manager's /metrics that is
// controller-runtime's metrics.Registry.
func (m *Metrics) Register(reg prometheus.Registerer) error {
	var errs []error
	for _, c := range []prometheus.Collector{m.requests, m.duration, m.violations, m.approvals, m.certExpires} {
		errs = append(errs, reg.Register(c))
	}
	return errors.Join(errs...)
}

// otherKind is the kind label of a request for a kind crdguard does not
// know. Labels take their values from a bounded set: a kind taken from the
// request as it came would let any caller mint series, and a large one
// grow every scrape.
const otherKind = "other"

// knownKind is kind when the engine knows it, else otherKind.
func knownKind(engine *policies.Engine, kind string) string {
	if engine != nil && engine.KnowsKind(kind) {
		return kind
	}
	return otherKind
}

// observe records one decision of /validate.
func (m *Metrics) observe(op, kind, decision string, took time.Duration, res *policies.Result) {
	if m == nil {
		return
	}
	series := m.decisionSeries(decisionLabels{op, kind, decision})
	series.requests.Inc()
	series.duration.Observe(took.Seconds())
	if res == nil {
		return
	}
	for _, v := range res.Violations {
		m.violations.WithLabelValues(v.Policy, v.Rule, string(v.Enforcement)).Inc()
	}
	if decision == decisionAllowed && res.Approval != nil && res.Approval.Lifted {
		m.approvals.Inc()
	}
}

// decisionSeries returns the series of a decision, looked up once. They
// are as many as the vectors' series: operations, known kinds and
// decisions are bounded sets.
func (m *Metrics) decisionSeries(labels decisionLabels) decisionSeries {
	m.mu.RLock()
	series, ok := m.series[labels]
	m.mu.RUnlock()
	if ok {
		return series
	}
	series = decisionSeries{
		requests: m.requests.WithLabelValues(labels.op, labels.kind, labels.decision),
		duration: m.duration.WithLabelValues(labels.op, labels.kind),
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.series[labels] = series
	return series
}

// SetServingCertificate records when cert expires; a certwatcher callback,
// so a renewal shows at once.
func (m *Metrics) SetServingCertificate(cert tls.Certificate) {
	if m == nil {
		return
	}
	leaf := cert.Leaf
	if leaf == nil && len(cert.Certificate) > 0 {
		leaf, _ = x509.ParseCertificate(cert.Certificate[0])
	}
	if leaf != nil {
		m.certExpires.Set(float64(leaf.NotAfter.Unix()))
	}
}
