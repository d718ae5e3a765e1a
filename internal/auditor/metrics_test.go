package auditor

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
	"github.com/crdguard/crdguard/pkg/report"
)

// Each run replaces the violation counts: a fixed finding or a deleted
// policy leaves no stale series behind.
func TestMetricsObserve(t *testing.T) {
	m := NewMetrics()
	reg := prometheus.NewRegistry()
	if err := m.Register(reg); err != nil {
		t.Fatal(err)
	}
	first := newFindings(10)
	first.add(widget("shop", "w"), policies.Result{Violations: []report.Finding{
		{Field: "spec.a", Policy: "p", Rule: "r", Enforcement: v1alpha1.Deny},
		{Field: "spec.b", Policy: "p", Rule: "r", Enforcement: v1alpha1.Deny},
		{Field: "spec", Policy: "old", Rule: "q", Enforcement: v1alpha1.Warn},
	}}, nil, metav1.Timestamp{})
	m.observe(first, 2*time.Second)
	second := newFindings(10)
	second.add(widget("shop", "w"), policies.Result{Violations: []report.Finding{
		{Field: "spec.a", Policy: "p", Rule: "r", Enforcement: v1alpha1.Deny},
	}}, nil, metav1.Timestamp{})
	m.observe(second, 3*time.Second)

	want := `
# HELP crdguard_audit_violations Findings of the last background audit on stored objects, by policy and rule (one per object, rule and field); policy "schema" is the CRD schema.
# TYPE crdguard_audit_violations gauge
crdguard_audit_violations{policy="p",rule="r"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "crdguard_audit_violations"); err != nil {
		t.Error(err)
	}
	if n := testutil.CollectAndCount(m.duration); n != 1 {
		t.Errorf("duration series = %d, want 1", n)
	}
	var nilMetrics *Metrics
	nilMetrics.observe(second, time.Second) // records nothing, does not panic
}
