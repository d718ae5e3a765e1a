package chart

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// mysqlPolicyRules are examples/mysql's rules as `crdguard webhook-config`
// renders them: every operation for /validate, CREATE and UPDATE for
// /mutate (its defaults rule and its approvers).
func mysqlPolicyRules() (validate, mutate []admissionregistrationv1.RuleWithOperations) {
	all := admissionregistrationv1.AllScopes
	rule := func(ops ...admissionregistrationv1.OperationType) []admissionregistrationv1.RuleWithOperations {
		return []admissionregistrationv1.RuleWithOperations{{
			Operations: ops,
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{"db.example.io"}, APIVersions: []string{"*"}, Resources: []string{"mysqlclusters"}, Scope: &all},
		}}
	}
	return rule(admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete),
		rule(admissionregistrationv1.Create, admissionregistrationv1.Update)
}

// webhookConfig runs `crdguard webhook-config` on examples/mysql.
func webhookConfig(t *testing.T, format string) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), env.crdguard, "webhook-config", "-o", format, "--name", "r-crdguard",
		"--policies", filepath.Join(env.root, "examples", "mysql", "policy.yaml"),
		"--crds", filepath.Join(env.root, "examples", "mysql", "crd.yaml"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("crdguard webhook-config -o %s: %v", format, err)
	}
	path := filepath.Join(t.TempDir(), format+".yaml")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkPolicyRules asserts the rules of the two policy webhooks.
func checkPolicyRules(t *testing.T, r *rendered) {
	t.Helper()
	validate, mutate := mysqlPolicyRules()
	var got []admissionregistrationv1.RuleWithOperations
	for _, w := range r.validating(t).Webhooks {
		if w.Name == "validate.crdguard.dev" {
			got = w.Rules
		}
	}
	if diff := cmp.Diff(validate, got); diff != "" {
		t.Errorf("validate.crdguard.dev rules (-want +got):\n%s", diff)
	}
	m := r.mutating(t)
	if len(m.Webhooks) != 1 {
		t.Fatalf("%d mutating webhooks, want 1", len(m.Webhooks))
	}
	if diff := cmp.Diff(mutate, m.Webhooks[0].Rules); diff != "" {
		t.Errorf("mutate.crdguard.dev rules (-want +got):\n%s", diff)
	}
}

// TestWebhookConfigValues: the values file `crdguard webhook-config`
// renders installs its rules with the chart.
func TestWebhookConfigValues(t *testing.T) {
	args := []string{"template", "r", env.chart, "-n", releaseNamespace, "-f", webhookConfig(t, "values")}
	out, errOut, err := helm(t.Context(), args...)
	if err != nil {
		t.Fatalf("helm template: %v\n%s", err, errOut)
	}
	r := decodeRendered(t, "helm template -f values.yaml", out)
	checkPolicyRules(t, r)
	for _, arg := range r.deployment(t).Spec.Template.Spec.Containers[0].Args {
		if arg == "--manage-webhook-rules" {
			t.Errorf("the webhook runs with %s; the values file keeps the rules static", arg)
		}
	}
}

// TestWebhookConfigKustomize: the kustomize patch sets the rules of the
// chart's rendered configurations, leaving every other field alone.
func TestWebhookConfigKustomize(t *testing.T) {
	dir := t.TempDir()
	out, errOut, err := helm(t.Context(), "template", "r", env.chart, "-n", releaseNamespace, "--set", "webhook.manageRules=false", "--set", "webhook.rules[0].apiGroups={placeholder.example.io}",
		"--set", "webhook.rules[0].apiVersions={*}", "--set", "webhook.rules[0].resources={placeholders}")
	if err != nil {
		t.Fatalf("helm template: %v\n%s", err, errOut)
	}
	before := decodeRendered(t, "helm template", out)
	patch, err := os.ReadFile(webhookConfig(t, "kustomize"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"chart.yaml":         out,
		"webhook-rules.yaml": string(patch),
		"kustomization.yaml": "resources: [chart.yaml]\npatches:\n  - path: webhook-rules.yaml\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	after := renderKustomize(t, dir)
	checkPolicyRules(t, after)

	// Everything but the rules is as the chart rendered it (the webhooks
	// by name: a strategic merge may reorder them, which changes nothing).
	v, m := after.validating(t), after.mutating(t)
	wantV, wantM := before.validating(t), before.mutating(t)
	for i := range v.Webhooks {
		if v.Webhooks[i].Name == "validate.crdguard.dev" {
			v.Webhooks[i].Rules = nil
		}
	}
	for i := range wantV.Webhooks {
		if wantV.Webhooks[i].Name == "validate.crdguard.dev" {
			wantV.Webhooks[i].Rules = nil
		}
	}
	m.Webhooks[0].Rules, wantM.Webhooks[0].Rules = nil, nil
	byName := func(a, b admissionregistrationv1.ValidatingWebhook) int { return strings.Compare(a.Name, b.Name) }
	slices.SortFunc(v.Webhooks, byName)
	slices.SortFunc(wantV.Webhooks, byName)
	if diff := cmp.Diff(wantV.Webhooks, v.Webhooks); diff != "" {
		t.Errorf("the patch changed more than the rules of validate.crdguard.dev (-chart +patched):\n%s", diff)
	}
	if diff := cmp.Diff(wantM.Webhooks, m.Webhooks); diff != "" {
		t.Errorf("the patch changed more than the rules of mutate.crdguard.dev (-chart +patched):\n%s", diff)
	}
}
