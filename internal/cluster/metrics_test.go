package cluster

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestMetrics(t *testing.T) {
	m := NewMetrics()
	reg := prometheus.NewPedanticRegistry()
	if err := m.Register(reg); err != nil {
		t.Fatal(err)
	}
	m.SetSources(1, 2)
	want := `
# HELP crdguard_policies GuardPolicies in the engine serving requests.
# TYPE crdguard_policies gauge
crdguard_policies 1
# HELP crdguard_schemas CRD kinds (group, version, kind) whose schemas the engine serving requests knows.
# TYPE crdguard_schemas gauge
crdguard_schemas 2
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "crdguard_policies", "crdguard_schemas"); err != nil {
		t.Error(err)
	}
}

// TestMetricsNil: loops without metrics record nothing and do not panic.
func TestMetricsNil(t *testing.T) {
	var m *Metrics
	m.SetSources(1, 1)
	m.setInvalidPolicies([]PolicyProblem{{Name: "p"}})
	m.engineBuilt(true)
	m.rulesSyncFailed()
	m.rulesSyncSucceeded(time.Now())
}
