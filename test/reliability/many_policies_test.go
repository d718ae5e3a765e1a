package reliability

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/yaml"
)

// The many-policies case: as many copies of the example GuardPolicy on the
// example kind, and denials sent at once while they are loaded.
const (
	manyPolicies = 1000
	manyDenials  = 8
	// webhookTimeout is the API server's default (and the chart's)
	// timeout for a webhook call: an answer after it is no answer.
	webhookTimeout = 10 * time.Second
)

// TestManyPolicies loads 1,001 GuardPolicies on one kind (the example one
// and 1,000 copies under other names): the webhook starts (the time to
// ready is the engine build, logged), keeps its peak RSS under the chart's
// memory limit, and answers denials of an unsafe update, several at once,
// each within the API server's timeout.
func TestManyPolicies(t *testing.T) {
	file := filepath.Join(t.TempDir(), "policies.yaml")
	writeManyPolicies(t, file, manyPolicies)
	started := time.Now()
	p := startWebhook(t, "--policies", file)
	t.Logf("%d GuardPolicies: ready after %s (engine built from files)", manyPolicies+1, time.Since(started).Round(time.Millisecond))

	good, unsafe := example(t, "good.yaml"), example(t, "unsafe.yaml")
	good.SetNamespace(shopNamespace)
	unsafe.SetNamespace(shopNamespace)
	body := review("many-policies", admissionv1.Update, unsafe, good)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: trustingClientTLS(), MaxIdleConnsPerHost: manyDenials}, Timeout: webhookTimeout}
	defer client.CloseIdleConnections()

	var wg sync.WaitGroup
	failures := make(chan string, manyDenials)
	for i := range manyDenials {
		wg.Go(func() {
			start := time.Now()
			a, err := post(t.Context(), client, p.addr, "/validate", "application/json", bytes.NewReader(body))
			took := time.Since(start)
			switch {
			case err != nil:
				failures <- fmt.Sprintf("denial %d: no answer after %s: %v", i, took, err)
			case a.status != http.StatusOK || a.response() == nil || a.response().Allowed || a.code() != http.StatusUnprocessableEntity:
				failures <- fmt.Sprintf("denial %d: %.500s", i, a)
			case !strings.Contains(a.message(), "[mysql-safety/"):
				failures <- fmt.Sprintf("denial %d does not name the example policy: %.500s", i, a.message())
			default:
				t.Logf("denial %d answered in %s", i, took.Round(time.Millisecond))
			}
		})
	}
	wg.Wait()
	close(failures)
	for f := range failures {
		t.Error(f)
	}

	peak := peakRSS(t, p.Cmd.Process.Pid)
	t.Logf("peak RSS %d MiB with %d GuardPolicies and %d denials at once", peak>>20, manyPolicies+1, manyDenials)
	if peak >= chartMemoryLimit {
		t.Errorf("peak RSS %d MiB, want under the chart's %d MiB limit", peak>>20, chartMemoryLimit>>20)
	}
}

// writeManyPolicies writes n copies of the example GuardPolicy, each
// under its own name, into file.
func writeManyPolicies(t *testing.T, file string, n int) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(cluster.examples, "policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var policy map[string]any
	if err := yaml.Unmarshal(data, &policy); err != nil {
		t.Fatal(err)
	}
	meta, ok := policy["metadata"].(map[string]any)
	if !ok {
		t.Fatalf("examples/mysql/policy.yaml has no metadata")
	}
	var docs []string
	for i := range n {
		meta["name"] = fmt.Sprintf("mysql-safety-%04d", i)
		doc, err := yaml.Marshal(policy)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(doc))
	}
	if err := os.WriteFile(file, []byte(strings.Join(docs, "---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}
