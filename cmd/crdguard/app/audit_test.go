package app

import (
	"strings"
	"testing"
)

// The audit against a live cluster is tested in test/e2e (TestAudit); here
// only what fails before a cluster is reached.
func TestAuditUsageErrors(t *testing.T) {
	r := crdguard(t, "", "audit", "--kubeconfig", "testdata/no-such-kubeconfig")
	if r.code != ExitUsage || !strings.HasPrefix(r.stder, "crdguard: kubeconfig: ") || !strings.Contains(r.stder, "no-such-kubeconfig") {
		t.Errorf("missing kubeconfig: exit %d, stderr %q", r.code, r.stder)
	}
	if r := crdguard(t, "", "audit", "extra-arg"); r.code != ExitUsage || !strings.Contains(r.stder, `unknown command "extra-arg" for "crdguard audit"`) {
		t.Errorf("positional argument: exit %d, stderr %q", r.code, r.stder)
	}
}
