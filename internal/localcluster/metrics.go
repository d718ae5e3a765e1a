package localcluster

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// ScrapeMetrics reads what the /metrics endpoint at url serves: the
// Prometheus text format.
func ScrapeMetrics(ctx context.Context, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", fmt.Errorf("GET %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return string(body), nil
}

// MetricSample is the value of series, a sample's name and labels as the
// text format prints them (`crdguard_policy_invalid{policy="p"}`); false
// when body has no such sample.
func MetricSample(body, series string) (float64, bool) {
	for line := range strings.Lines(body) {
		if value, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), series+" "); ok {
			v, err := strconv.ParseFloat(value, 64)
			return v, err == nil
		}
	}
	return 0, false
}
