package webhook

import (
	"crypto/tls"
	"testing"

	"github.com/crdguard/crdguard/internal/localcluster"
)

// TestMetricsEndpoint: the manager serves the webhook's metrics, and they
// count what the API server sent. It creates its own denial so it does not
// depend on the order tests run in.
func TestMetricsEndpoint(t *testing.T) {
	ns := namespace(t)
	if err := cluster.client.Create(t.Context(), example(t, "unsafe.yaml", ns)); err == nil {
		t.Fatal("unsafe.yaml was accepted")
	}
	body := scrape(t)
	for _, series := range []string{
		`crdguard_admission_requests_total{decision="denied",kind="MySQLCluster",operation="CREATE"}`,
		`crdguard_policy_violations_total{enforcement="Deny",policy="mysql-safety",rule="image-version"}`,
		`crdguard_admission_duration_seconds_bucket{kind="MySQLCluster",operation="CREATE",le="30"}`,
		`crdguard_policies`,
		`crdguard_schemas`,
	} {
		if v := sample(body, series); v < 1 {
			t.Errorf("%s = %v, want at least 1", series, v)
		}
	}
	// TestServingCertificateRenewal may have renewed it: compare with the
	// certificate served now.
	served := servedCertificate(t, tls.VersionTLS12)
	if got := int64(sample(body, "crdguard_serving_certificate_expiry_timestamp_seconds")); got != served.NotAfter.Unix() {
		t.Errorf("expiry metric = %d, want the served certificate's %d", got, served.NotAfter.Unix())
	}
}

func scrape(t *testing.T) string {
	t.Helper()
	body, err := localcluster.ScrapeMetrics(t.Context(), cluster.metrics)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// sample reads one series' value from the text exposition format; -1 when
// it is absent.
func sample(body, series string) float64 {
	if v, ok := localcluster.MetricSample(body, series); ok {
		return v
	}
	return -1
}
