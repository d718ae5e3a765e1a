package chart

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// checkLeaseRole checks the Role and RoleBinding of the leader election:
// create of Leases, get and update of the one it is elected by, for the
// chart's ServiceAccount in the release namespace.
func checkLeaseRole(t *testing.T, r *rendered) {
	t.Helper()
	role := &rbacv1.Role{}
	r.typed(t, "Role", "r-crdguard-leader-election", role)
	want := []rbacv1.PolicyRule{
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"create"}},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, ResourceNames: []string{"crdguard-audit"}, Verbs: []string{"get", "update"}},
	}
	if diff := cmp.Diff(want, role.Rules); diff != "" || role.Namespace != releaseNamespace {
		t.Errorf("Role r-crdguard-leader-election in %s, rules (-want +got):\n%s", role.Namespace, diff)
	}
	binding := &rbacv1.RoleBinding{}
	r.typed(t, "RoleBinding", "r-crdguard-leader-election", binding)
	if binding.Namespace != releaseNamespace || binding.RoleRef.Name != "r-crdguard-leader-election" || len(binding.Subjects) != 1 ||
		binding.Subjects[0].Name != "r-crdguard" || binding.Subjects[0].Namespace != releaseNamespace {
		t.Errorf("RoleBinding %+v", binding)
	}
}

// TestManagedRulesRBAC creates the chart's RBAC with its default, managed
// rules, and asks the API server, as the chart's ServiceAccount, for what
// the elected replica needs: get and patch of its own two configurations
// and nothing else of any configuration, and its Lease only.
func TestManagedRulesRBAC(t *testing.T) {
	kinds := append([]string{"Role", "RoleBinding"}, rbacKinds...)
	r := renderChart(t, defaultRelease)
	applyRendered(t, r, kinds...)
	t.Cleanup(func() { deleteRendered(t, r, kinds...) })

	const vwc, mwc = "validatingwebhookconfigurations.admissionregistration.k8s.io", "mutatingwebhookconfigurations.admissionregistration.k8s.io"
	patch := access{"patch", mwc + "/" + defaultRelease}
	waitAllowed(t, patch)
	yes := append([]access{
		{"get", vwc + "/" + defaultRelease}, {"patch", vwc + "/" + defaultRelease},
		{"get", mwc + "/" + defaultRelease}, {"patch", mwc + "/" + defaultRelease},
		{"create", "leases.coordination.k8s.io", "-n", releaseNamespace},
		{"get", "leases/crdguard-audit", "-n", releaseNamespace}, {"update", "leases/crdguard-audit", "-n", releaseNamespace},
		// --policy-status, on by default too: the conditions, and the
		// compiled policies that may enforce a GuardPolicy.
		{"patch", "guardpolicies.crdguard.dev", "--subresource=status"},
		{"get", "validatingadmissionpolicies.admissionregistration.k8s.io"},
		{"get", "validatingadmissionpolicybindings.admissionregistration.k8s.io"},
	}, readsSources...)
	no := []access{
		{"patch", vwc + "/another"}, {"get", mwc + "/another"}, {"patch", mwc + "/another"},
		{"update", vwc + "/" + defaultRelease}, {"update", mwc + "/" + defaultRelease},
		{"delete", vwc + "/" + defaultRelease}, {"delete", mwc + "/" + defaultRelease},
		{"create", vwc}, {"create", mwc}, {"list", vwc}, {"list", mwc},
		{"get", "leases/another", "-n", releaseNamespace}, {"update", "leases/crdguard-audit", "-n", "kube-system"},
		{"create", "leases.coordination.k8s.io", "-n", "kube-system"},
		{"list", "validatingadmissionpolicies.admissionregistration.k8s.io"},
		{"update", "validatingadmissionpolicies.admissionregistration.k8s.io"},
		{"update", "guardpolicies.crdguard.dev", "--subresource=status"},
	}
	checkAccess(t, "the managed rules need it", yes, append(no, neverNeeded...))
}

// TestManagedRulesUpgrade: a helm upgrade renders the rules the webhook
// wrote into the live configurations (Helm's lookup), so an upgrade never
// resets them to the values' first rules; the rules of the values apply
// where there is nothing to keep.
func TestManagedRulesUpgrade(t *testing.T) {
	const release = "upgrade"
	first := renderChart(t, release)
	// The configurations as the webhook left them: validate.crdguard.dev
	// with the rules of examples/mysql's policy, mutate.crdguard.dev with
	// none (no policy with defaults or approvers).
	written, _ := mysqlPolicyRules()
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	first.typed(t, "ValidatingWebhookConfiguration", release+"-crdguard", vwc)
	for i := range vwc.Webhooks {
		if vwc.Webhooks[i].Name == "validate.crdguard.dev" {
			vwc.Webhooks[i].Rules = written
		}
	}
	mwc := &admissionregistrationv1.MutatingWebhookConfiguration{}
	first.typed(t, "MutatingWebhookConfiguration", release+"-crdguard", mwc)
	// Owned by the release, as helm install leaves them.
	for _, obj := range []metav1.Object{vwc, mwc} {
		obj.SetAnnotations(map[string]string{"meta.helm.sh/release-name": release, "meta.helm.sh/release-namespace": releaseNamespace})
	}
	c := adminClient(t)
	if err := c.Create(t.Context(), vwc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), vwc) })
	if err := c.Create(t.Context(), mwc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), mwc) })

	// --dry-run=server renders with lookup against the cluster.
	values := append([]string{"--set", "webhook.rules[0].apiGroups={placeholder.example.io}"},
		"--set", "webhook.rules[0].apiVersions={*}", "--set", "webhook.rules[0].resources={placeholders}")
	upgrade := func(set ...string) *rendered {
		args := append([]string{"upgrade", "--install", release, env.chart, "-n", releaseNamespace, "--dry-run=server", "--kubeconfig", env.kubeconfig}, values...)
		args = append(append(args, set...), "-o", "json")
		out, errOut, err := helm(t.Context(), args...)
		if err != nil {
			t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, errOut)
		}
		return decodeRendered(t, "helm upgrade --dry-run=server", manifestOf(t, out))
	}
	r := upgrade()
	if diff := cmp.Diff(written, validateRules(t, r, release+"-crdguard")); diff != "" {
		t.Errorf("validate.crdguard.dev after an upgrade: not the rules written (-written +rendered):\n%s", diff)
	}
	m := &admissionregistrationv1.MutatingWebhookConfiguration{}
	r.typed(t, "MutatingWebhookConfiguration", release+"-crdguard", m)
	if len(m.Webhooks) != 1 || len(m.Webhooks[0].Rules) != 0 {
		t.Errorf("mutate.crdguard.dev after an upgrade: %+v, want the no rules written", m.Webhooks)
	}
	// Static rules are the values', whatever the cluster holds.
	r = upgrade("--set", "webhook.manageRules=false")
	if got := validateRules(t, r, release+"-crdguard"); len(got) != 1 || !slices.Equal(got[0].Resources, []string{"placeholders"}) {
		t.Errorf("validate.crdguard.dev with webhook.manageRules=false: %+v, want the placeholders of the values", got)
	}
}

// manifestOf is the manifest of a release helm printed with -o json.
func manifestOf(t *testing.T, release string) string {
	t.Helper()
	var r struct {
		Manifest string `json:"manifest"`
	}
	if err := json.Unmarshal([]byte(release), &r); err != nil {
		t.Fatalf("decoding helm's release: %v", err)
	}
	return r.Manifest
}

// validateRules are the rules of validate.crdguard.dev in the rendered
// ValidatingWebhookConfiguration name.
func validateRules(t *testing.T, r *rendered, name string) []admissionregistrationv1.RuleWithOperations {
	t.Helper()
	c := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	r.typed(t, "ValidatingWebhookConfiguration", name, c)
	for _, w := range c.Webhooks {
		if w.Name == "validate.crdguard.dev" {
			return w.Rules
		}
	}
	t.Fatalf("%s has no validate.crdguard.dev", name)
	return nil
}
