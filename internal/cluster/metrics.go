package cluster

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the Prometheus metrics of what feeds and follows the engine:
// its size, its rebuilds, the invalid GuardPolicies and the managed
// webhook rules. A nil *Metrics records nothing, so the loops work
// without them (in tests, say).
type Metrics struct {
	policies    prometheus.Gauge
	schemas     prometheus.Gauge
	invalid     *prometheus.GaugeVec
	builds      *prometheus.CounterVec
	rulesErrors prometheus.Counter
	rulesSynced prometheus.Gauge
}

// NewMetrics creates the metrics; Register exposes them.
func NewMetrics() *Metrics {
	return &Metrics{
		policies: newGauge("crdguard_policies",
			"GuardPolicies in the engine serving requests."),
		schemas: newGauge("crdguard_schemas",
			"CRD kinds (group, version, kind) whose schemas the engine serving requests knows."),
		invalid: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "crdguard_policy_invalid",
			Help: "1 for each GuardPolicy in the cluster whose stored version is invalid; the engine uses its last good version, or leaves it out if it never had one. The logs say why.",
		}, []string{"policy"}),
		builds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "crdguard_engine_builds_total",
			Help: "Engines built from the cluster's GuardPolicies and CRDs, by result (success, error); on an error the previous engine keeps serving.",
		}, []string{"result"}),
		rulesErrors: newCounter("crdguard_webhook_rules_sync_errors_total",
			"Failed attempts of the elected replica to compute or write the rules of its webhooks (--manage-webhook-rules); the last written rules stay. The logs say why."),
		rulesSynced: newGauge("crdguard_webhook_rules_last_sync_timestamp_seconds",
			"When the elected replica last found or made the rules of its webhooks equal to its GuardPolicies' (--manage-webhook-rules), in seconds since the Unix epoch; 0 on the other replicas."),
	}
}

// newGauge and newCounter make a metric without labels; the ones with
// labels spell out their options.
func newGauge(name, help string) prometheus.Gauge {
	return prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
}

func newCounter(name, help string) prometheus.Counter {
	return prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
}

// Register adds the metrics to reg, for the manager's /metrics that is
// controller-runtime's metrics.Registry.
func (m *Metrics) Register(reg prometheus.Registerer) error {
	var errs []error
	for _, c := range []prometheus.Collector{m.policies, m.schemas, m.invalid, m.builds, m.rulesErrors, m.rulesSynced} {
		errs = append(errs, reg.Register(c))
	}
	return errors.Join(errs...)
}

// SetSources records the size of the engine now serving.
func (m *Metrics) SetSources(policies, schemas int) {
	if m == nil {
		return
	}
	m.policies.Set(float64(policies))
	m.schemas.Set(float64(schemas))
}

// setInvalidPolicies records the GuardPolicies whose stored version is
// invalid, replacing the previous set so a fixed or deleted one disappears.
func (m *Metrics) setInvalidPolicies(problems []PolicyProblem) {
	if m == nil {
		return
	}
	m.invalid.Reset()
	for _, p := range problems {
		m.invalid.WithLabelValues(p.Name).Set(1)
	}
}

// engineBuilt counts one rebuild from the cluster.
func (m *Metrics) engineBuilt(ok bool) {
	if m == nil {
		return
	}
	result := "success"
	if !ok {
		result = "error"
	}
	m.builds.WithLabelValues(result).Inc()
}

// rulesSyncFailed counts one failed computation or write of the managed
// webhook rules.
func (m *Metrics) rulesSyncFailed() {
	if m == nil {
		return
	}
	m.rulesErrors.Inc()
}

// rulesSyncSucceeded records when the managed webhook rules were last
// found or made current.
func (m *Metrics) rulesSyncSucceeded(at time.Time) {
	if m == nil {
		return
	}
	m.rulesSynced.Set(float64(at.Unix()))
}
