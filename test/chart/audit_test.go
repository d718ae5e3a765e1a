package chart

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/crdguard/crdguard/internal/corpus"
)

// auditOn turns the background audit on for one guarded kind.
var auditOn = []string{
	"audit.enabled=true", "audit.interval=10m", "audit.qps=5", "audit.pageSize=100",
	"webhook.rules[0].apiGroups={cert-manager.io}",
	"webhook.rules[0].apiVersions={v1}",
	"webhook.rules[0].resources={certificaterequests}",
}

// The chart ships the OpenReports CRDs of the module crdguard is built
// with, and config/crd the same: `make generate` copies them.
func TestOpenReportsCRDsAreCopied(t *testing.T) {
	module, err := corpus.Module("github.com/openreports/reports-api")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"openreports.io_reports.yaml", "openreports.io_clusterreports.yaml"} {
		want, err := os.ReadFile(filepath.Join(module, "config", "crd", name))
		if err != nil {
			t.Fatal(err)
		}
		for _, copied := range []string{filepath.Join(env.chart, "crds", name), filepath.Join(env.root, "config", "crd", "openreports", name)} {
			got, err := os.ReadFile(copied)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the module's config/crd/%s: run make generate", copied, name)
			}
		}
	}
}

func TestAuditValues(t *testing.T) {
	off := render(t, "webhook.manageRules=false", "webhook.policyStatus=false")
	if r := off.get("ClusterRole", "r-crdguard-audit"); r != nil {
		t.Error("audit RBAC with audit.enabled=false")
	}
	if args := off.args(t); slices.ContainsFunc(args, func(a string) bool {
		return strings.HasPrefix(a, "--audit") || strings.HasPrefix(a, "--leader-election")
	}) {
		t.Errorf("audit flags with audit.enabled=false: %v", args)
	}

	r := render(t, auditOn...)
	args := r.args(t)
	for _, a := range []string{"--audit", "--audit-interval=10m", "--audit-qps=5", "--audit-page-size=100", "--leader-election-lease-duration=15s"} {
		if !slices.Contains(args, a) {
			t.Errorf("args %v lack %s", args, a)
		}
	}
	role := &rbacv1.ClusterRole{}
	r.typed(t, "ClusterRole", "r-crdguard-audit", role)
	want := []rbacv1.PolicyRule{
		{APIGroups: []string{"cert-manager.io"}, Resources: []string{"certificaterequests"}, Verbs: []string{"list"}},
		{APIGroups: []string{"openreports.io"}, Resources: []string{"reports", "clusterreports"}, Verbs: []string{"create", "get", "list", "update", "delete"}},
		{APIGroups: []string{"crdguard.dev"}, Resources: []string{"guardpolicies/status"}, Verbs: []string{"patch"}},
	}
	if len(role.Rules) != len(want) {
		t.Fatalf("ClusterRole r-crdguard-audit rules %v, want %v", role.Rules, want)
	}
	for i, w := range want {
		g := role.Rules[i]
		if !slices.Equal(g.APIGroups, w.APIGroups) || !slices.Equal(g.Resources, w.Resources) || !slices.Equal(g.Verbs, w.Verbs) {
			t.Errorf("ClusterRole rule %d = %v, want %v", i, g, w)
		}
	}
	checkLeaseRole(t, r)

	// With managed rules the chart does not know the rules: audit.resources
	// names the kinds, and an audit with neither is refused.
	listed := render(t, "audit.enabled=true", "audit.resources[0].apiGroups={db.example.io}", "audit.resources[0].resources={mysqlclusters}")
	role = &rbacv1.ClusterRole{}
	listed.typed(t, "ClusterRole", "r-crdguard-audit", role)
	if g := role.Rules[0]; !slices.Equal(g.APIGroups, []string{"db.example.io"}) || !slices.Equal(g.Resources, []string{"mysqlclusters"}) || !slices.Equal(g.Verbs, []string{"list"}) {
		t.Errorf("with audit.resources, the first rule is %v, want list on mysqlclusters.db.example.io", g)
	}
	_, errOut, err := helm(t.Context(), "template", "r", env.chart, "-n", releaseNamespace, "--set", "audit.enabled=true")
	if want := "Error: execution error at (crdguard/templates/audit-rbac.yaml:4:4): audit.enabled needs the kinds the audit lists: set audit.resources (with webhook.manageRules the webhook's rules are not known when the chart renders)\n\nUse --debug flag to render out invalid YAML\n"; err == nil || errOut != want {
		t.Errorf("an audit without kinds: %v\n got %q\nwant %q", err, errOut, want)
	}
}

// TestAuditRBAC creates the chart's RBAC with the audit on and asks the API
// server, as the chart's ServiceAccount, for what the audit needs and for
// what it must not get: list of the guarded kinds and no more, reports,
// the GuardPolicy status and not the spec, and its own Lease only.
func TestAuditRBAC(t *testing.T) {
	kinds := append([]string{"Role", "RoleBinding"}, rbacKinds...)
	r := renderChart(t, defaultRelease, auditOn...)
	applyRendered(t, r, kinds...)
	t.Cleanup(func() { deleteRendered(t, r, kinds...) })

	lease := access{"get", "leases/crdguard-audit", "-n", releaseNamespace}
	waitAllowed(t, lease)
	yes := []access{
		{"list", "certificaterequests.cert-manager.io", "--all-namespaces"},
		{"create", "reports.openreports.io", "-n", "shop"}, {"get", "reports.openreports.io", "-n", "shop"},
		{"update", "reports.openreports.io", "-n", "shop"}, {"delete", "reports.openreports.io", "-n", "shop"},
		{"list", "reports.openreports.io", "--all-namespaces"},
		{"create", "clusterreports.openreports.io"}, {"update", "clusterreports.openreports.io"}, {"delete", "clusterreports.openreports.io"},
		{"patch", "guardpolicies.crdguard.dev", "--subresource=status"},
		{"create", "leases.coordination.k8s.io", "-n", releaseNamespace}, {"update", "leases/crdguard-audit", "-n", releaseNamespace},
	}
	no := []access{
		{"watch", "certificaterequests.cert-manager.io", "--all-namespaces"}, {"get", "certificaterequests.cert-manager.io", "-n", "shop"},
		{"update", "certificaterequests.cert-manager.io", "-n", "shop"}, {"list", "certificates.cert-manager.io", "--all-namespaces"},
		{"patch", "guardpolicies.crdguard.dev"}, {"update", "guardpolicies.crdguard.dev"},
		{"watch", "reports.openreports.io", "--all-namespaces"},
		{"get", "leases/another", "-n", releaseNamespace}, {"update", "leases/crdguard-audit", "-n", "kube-system"},
		{"create", "leases.coordination.k8s.io", "-n", "kube-system"},
	}
	checkAccess(t, "the audit needs it", yes, append(no, neverNeeded...))
}
