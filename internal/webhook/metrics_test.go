package webhook

import (
	"crypto/tls"
	"crypto/x509"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/crdguard/crdguard/internal/mysqlexample"
)

func TestMetrics(t *testing.T) {
	m := NewMetrics()
	reg := prometheus.NewPedanticRegistry()
	if err := m.Register(reg); err != nil {
		t.Fatal(err)
	}
	v := &Validator{Engines: engines(t), Metrics: m}
	old := mysqlexample.JSON(t, "update/old.yaml")
	for _, req := range []admission.Request{
		request(admissionv1.Create, bob, mysqlexample.JSON(t, "good.yaml"), nil),
		request(admissionv1.Create, bob, mysqlexample.JSON(t, "unsafe.yaml"), nil),
		request(admissionv1.Update, alice, mysqlexample.JSON(t, "update/approved.yaml"), old),
		request(admissionv1.Create, bob, []byte("{"), nil),
		withKind(request(admissionv1.Create, bob, mysqlexample.JSON(t, "good.yaml"), nil), "Random"+strings.Repeat("x", 1<<20)),
		withKind(request(admissionv1.Create, bob, mysqlexample.JSON(t, "good.yaml"), nil), "Another"),
	} {
		v.Handle(t.Context(), req)
	}
	m.SetServingCertificate(tls.Certificate{Leaf: &x509.Certificate{NotAfter: time.Unix(1800000000, 0)}})

	want := `
# HELP crdguard_admission_requests_total Admission requests /validate decided, by operation, kind and decision (allowed, denied, error).
# TYPE crdguard_admission_requests_total counter
crdguard_admission_requests_total{decision="allowed",kind="MySQLCluster",operation="CREATE"} 1
crdguard_admission_requests_total{decision="allowed",kind="MySQLCluster",operation="UPDATE"} 1
crdguard_admission_requests_total{decision="denied",kind="MySQLCluster",operation="CREATE"} 1
crdguard_admission_requests_total{decision="error",kind="MySQLCluster",operation="CREATE"} 1
crdguard_admission_requests_total{decision="allowed",kind="other",operation="CREATE"} 2
# HELP crdguard_approvals_total Requests /validate allowed because an approver lifted a denial.
# TYPE crdguard_approvals_total counter
crdguard_approvals_total 1
# HELP crdguard_policy_violations_total Findings of /validate, by policy, rule and enforcement (Deny, Warn, Audit).
# TYPE crdguard_policy_violations_total counter
crdguard_policy_violations_total{enforcement="Audit",policy="mysql-safety",rule="safe-updates"} 1
crdguard_policy_violations_total{enforcement="Deny",policy="mysql-safety",rule="image-version"} 1
crdguard_policy_violations_total{enforcement="Deny",policy="mysql-safety",rule="resources"} 1
crdguard_policy_violations_total{enforcement="Warn",policy="mysql-safety",rule="production-replicas"} 1
# HELP crdguard_serving_certificate_expiry_timestamp_seconds When the serving certificate expires, in seconds since the Unix epoch.
# TYPE crdguard_serving_certificate_expiry_timestamp_seconds gauge
crdguard_serving_certificate_expiry_timestamp_seconds 1.8e+09
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want),
		"crdguard_admission_requests_total", "crdguard_approvals_total", "crdguard_policy_violations_total",
		"crdguard_serving_certificate_expiry_timestamp_seconds"); err != nil {
		t.Error(err)
	}
	if n := testutil.CollectAndCount(m.duration); n != 3 {
		t.Errorf("duration series = %d, want 3 (CREATE and UPDATE of MySQLClusters, CREATE of other kinds)", n)
	}
}

// withKind is req for another kind, as a caller may send any.
func withKind(req admission.Request, kind string) admission.Request {
	req.Kind.Kind = kind
	req.RequestKind = &req.Kind
	return req
}

// TestMetricsNil: handlers without metrics record nothing and do not
// panic.
func TestMetricsNil(t *testing.T) {
	var m *Metrics
	m.observe("CREATE", "MySQLCluster", decisionAllowed, time.Second, nil)
	m.SetServingCertificate(tls.Certificate{})
}
