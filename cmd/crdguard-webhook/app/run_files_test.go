package app

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/crdguard/crdguard/pkg/policies"
)

// With --policies, the files are loaded before anything needs a cluster:
// a file without GuardPolicies stops the start rather than serving a
// webhook that allows everything.
func TestRunRefusesPoliciesWithoutGuardPolicies(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "policies.yaml")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	o := NewOptions()
	o.Policies = []string{empty}
	// A cluster it would fail to reach, were it asked.
	o.Kubeconfig = filepath.Join(t.TempDir(), "missing-kubeconfig")
	o.Complete()
	if errs := o.Validate(); len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	err := Run(t.Context(), o)
	var noPolicies *policies.EmptyPathError
	if !errors.As(err, &noPolicies) || err.Error() != empty+" holds no GuardPolicy" {
		t.Fatalf("Run = %v, want %q", err, empty+" holds no GuardPolicy")
	}
}
