package webhook

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnroutedPolicy: a GuardPolicy for kinds no webhook configuration
// sends to crdguard is stored with a warning naming them, and the metric
// counts them while it is loaded.
func TestUnroutedPolicy(t *testing.T) {
	policy := `apiVersion: crdguard.dev/v1alpha1
kind: GuardPolicy
metadata:
  name: e2e-unrouted
spec:
  match:
    resources:
    - kinds: [ConfigMap]
    - group: db.example.io
      kinds: [MySQLCluster]
  rules:
  - name: no-deletes
    deletion: {}
`
	file := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(file, []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	res := runKubectl(t, "admin", "apply", "-f", file)
	t.Cleanup(func() {
		runKubectlContext(context.Background(), t, "admin", "delete", "--ignore-not-found", "-f", file)
	})
	want := "Warning: GuardPolicy e2e-unrouted is not enforced on ConfigMap v1 (CREATE, UPDATE, DELETE): ValidatingWebhookConfiguration crdguard sends no such requests to crdguard; add them to its rules (the chart's webhook.rules)"
	if !res.ok || !strings.Contains(res.stderr, want) {
		t.Fatalf("kubectl apply of a policy for ConfigMaps:\n%s\nwant %q", res, want)
	}
	eventually(t, "the unrouted kinds metric", func(context.Context) (bool, string) {
		body := scrape(t)
		unrouted, routed := sample(body, `crdguard_policy_unrouted_kinds{policy="e2e-unrouted"}`), sample(body, `crdguard_policy_unrouted_kinds{policy="mysql-safety"}`)
		return unrouted == 1 && routed == 0, fmt.Sprintf("e2e-unrouted %v, mysql-safety %v", unrouted, routed)
	})

	// A routed policy gets no warning.
	res = runKubectl(t, "admin", "apply", "--dry-run=server", "-f", filepath.Join(cluster.examples, "policy.yaml"))
	if !res.ok || strings.Contains(res.stderr, "is not enforced") {
		t.Errorf("kubectl apply of the example policy:\n%s", res)
	}
}
