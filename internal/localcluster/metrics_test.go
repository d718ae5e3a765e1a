package localcluster

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestMetrics(t *testing.T) {
	const text = `# HELP crdguard_policies GuardPolicies loaded.
# TYPE crdguard_policies gauge
crdguard_policies 3
crdguard_policy_invalid{policy="p"} 1
crdguard_policy_invalid{policy="p2"} 0
`
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(text))
	}))
	defer server.Close()

	body, err := ScrapeMetrics(t.Context(), server.URL+"/metrics")
	if err != nil || body != text {
		t.Fatalf("scrape: %v\n%s", err, body)
	}
	for series, want := range map[string]float64{
		"crdguard_policies":                    3,
		`crdguard_policy_invalid{policy="p"}`:  1,
		`crdguard_policy_invalid{policy="p2"}`: 0,
	} {
		if got, ok := MetricSample(body, series); !ok || got != want {
			t.Errorf("%s = %v, %v; want %v", series, got, ok, want)
		}
	}
	// A prefix of a series is not the series.
	for _, series := range []string{"crdguard_policy", "crdguard_policy_invalid", `crdguard_policy_invalid{policy="q"}`} {
		if got, ok := MetricSample(body, series); ok {
			t.Errorf("%s = %v, want absent", series, got)
		}
	}

	if _, err := ScrapeMetrics(t.Context(), server.URL+"/other"); err == nil || !strings.HasSuffix(err.Error(), ": 404 Not Found") {
		t.Errorf("a 404: %v, want the status", err)
	}
}
