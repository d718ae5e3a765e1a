package vap

import (
	"strings"
	"testing"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// TestStatic renames every policy and binding, and each binding's
// policyName with its policy, and leaves the compiled objects as they are.
func TestStatic(t *testing.T) {
	c := compileExample(t, example, Summaries)
	static, err := c.Static()
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range static.Policies {
		want := Name("mysql-safety", v1alpha1.Enforcement(c.Bindings[i].Spec.ValidationActions[0])) + ".static.k8s.io"
		if p.Name != want || static.Bindings[i].Name != want || static.Bindings[i].Spec.PolicyName != want {
			t.Errorf("policy %q, binding %q of policy %q; want %q for all three", p.Name, static.Bindings[i].Name, static.Bindings[i].Spec.PolicyName, want)
		}
		if c.Policies[i].Name+".static.k8s.io" != want || c.Bindings[i].Spec.PolicyName+".static.k8s.io" != want {
			t.Errorf("the compiled policy %q (binding of %q) was renamed too", c.Policies[i].Name, c.Bindings[i].Spec.PolicyName)
		}
		if p.Labels[ManagedByLabel] != ManagedBy || p.Annotations[PolicyAnnotation] != "mysql-safety" {
			t.Errorf("policy %q lost its labels %v or annotations %v", p.Name, p.Labels, p.Annotations)
		}
	}
	want := "crdguard-mysql-safety-defaults.static.k8s.io"
	if static.Mutating.Name != want || static.MutatingBinding.Name != want || static.MutatingBinding.Spec.PolicyName != want {
		t.Errorf("mutating policy %q, binding %q of %q; want %q", static.Mutating.Name, static.MutatingBinding.Name, static.MutatingBinding.Spec.PolicyName, want)
	}
	if len(static.Policies) != 2 || c.Mutating.Name != "crdguard-mysql-safety-defaults" {
		t.Errorf("%d static policies, compiled mutating policy %q; want 2 and the name unchanged", len(static.Policies), c.Mutating.Name)
	}
}

// TestStaticNameTooLong: a GuardPolicy name near the 253-character limit
// leaves no room for the suffix, and the error names the policy.
func TestStaticNameTooLong(t *testing.T) {
	c := compileExample(t, example, Summaries)
	c.Policy = strings.Repeat("a", 230)
	c.Policies[0].Name = Name(c.Policy, v1alpha1.Deny)
	_, err := c.Static()
	want := "GuardPolicy " + c.Policy + `: static manifest name "crdguard-` + c.Policy + `-deny.static.k8s.io": must be no more than 253 characters`
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}
}

func TestAdmissionConfigurationRelativeDir(t *testing.T) {
	if _, err := AdmissionConfiguration("static", ValidatingPolicyPlugin); err == nil || err.Error() != `static manifests directory "static" is not an absolute path` {
		t.Errorf("error %v, want one about the relative path", err)
	}
}
