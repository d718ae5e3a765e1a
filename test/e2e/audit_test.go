package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	crdreport "github.com/crdguard/crdguard/pkg/report"
)

// TestAudit stores the MySQL examples in the cluster, audits them with
// `crdguard audit` and checks that every stored object gets the findings
// `crdguard validate` gives the same object as an UPDATE of itself.
func TestAudit(t *testing.T) {
	const namespace = "audit"
	ensureNamespaces(t, namespace)
	policy := filepath.Join(cluster.root, "examples", "mysql", "policy.yaml")
	var files []string
	for _, name := range []string{"good.yaml", "unsafe.yaml"} {
		docs := readDocuments(t, filepath.Join(cluster.root, "examples", "mysql", name))
		obj := docs[0].obj
		obj.SetNamespace(namespace)
		if err := cluster.client.Create(t.Context(), obj); err != nil {
			t.Fatalf("storing %s: %v", name, err)
		}
		data, err := obj.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, writeTemp(t, name, data))
	}

	audit := runReport(t, cluster.crdguard, "audit", "--kubeconfig", cluster.kubeconfig, "-n", namespace, "--policies", policy, "-o", "json")
	if audit.Summary.Objects != 2 || audit.Summary.Denied != 1 {
		t.Fatalf("audit summary = %+v, want 2 objects, 1 denied", audit.Summary)
	}
	for i, file := range files {
		validate := runReport(t, cluster.crdguard, "validate", "--crds", cluster.crds[setMySQL], "--policies", policy, "--old", file, "-o", "json", file)
		want, got := findingSet(validate.Results[0]), findingSet(auditResult(t, audit, validate.Results[0].Name))
		if !slices.Equal(got, want) {
			t.Errorf("object %d: audit findings differ from validate's\n audit:    %q\n validate: %q", i, got, want)
		}
	}
	// Fail closed: a wrong file must not audit with no schemas or no
	// policies.
	good := filepath.Join(cluster.root, "examples", "mysql", "good.yaml")
	for flag, kind := range map[string]string{"--crds": "CustomResourceDefinition", "--policies": "GuardPolicy"} {
		cmd := exec.CommandContext(t.Context(), cluster.crdguard, "audit", "--kubeconfig", cluster.kubeconfig, "-n", namespace, flag, good)
		if code, _, stderr, err := runCommand(cmd); err != nil || code != 2 || stderr != "crdguard: "+good+" holds no "+kind+"\n" {
			t.Errorf("audit %s good.yaml: exit %d, %v, stderr %q; want exit 2, naming the file", flag, code, err, stderr)
		}
	}
	// A policy without a namespaceSelector needs no access to namespaces:
	// listing the kind in the audited namespace is enough.
	grantList(t, namespace, "db.example.io", "mysqlclusters")
	crd := filepath.Join(cluster.root, "examples", "mysql", "crd.yaml")
	cmd := exec.CommandContext(t.Context(), cluster.crdguard, "audit", "--kubeconfig", cluster.unprivileged, "-n", namespace, "--crds", crd, "--policies", policy, "-q")
	if code, _, stderr, err := runCommand(cmd); err != nil || code != 1 || stderr != "" {
		t.Errorf("audit by a user who may list only mysqlclusters in %s: exit %d, %v, stderr %q; want 1, the unsafe object", namespace, code, err, stderr)
	}
	// A listing RBAC forbids is an audit that checked nothing: exit 2, as
	// an unreadable input, naming what was refused; never a clean run.
	for _, tc := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{
			name: "objects in a namespace without a grant",
			args: []string{"-n", "default", "--crds", crd, "--policies", policy},
			stderr: `crdguard: cannot read the cluster: listing db.example.io/v1, Resource=mysqlclusters: mysqlclusters.db.example.io is forbidden: ` +
				`User "` + unprivilegedUser + `" cannot list resource "mysqlclusters" in API group "db.example.io" in the namespace "default"` + "\n",
		},
		{
			name: "GuardPolicies",
			args: []string{"-n", namespace, "--crds", crd},
			stderr: `crdguard: cannot read the cluster: listing GuardPolicies (is the GuardPolicy CRD installed? --policies reads files instead): guardpolicies.crdguard.dev is forbidden: ` +
				`User "` + unprivilegedUser + `" cannot list resource "guardpolicies" in API group "crdguard.dev" at the cluster scope` + "\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.CommandContext(t.Context(), cluster.crdguard, append([]string{"audit", "--kubeconfig", cluster.unprivileged, "-o", "json"}, tc.args...)...)
			if code, stdout, stderr, err := runCommand(cmd); err != nil || code != 2 || stdout != "" || stderr != tc.stderr {
				t.Errorf("exit %d, %v, stdout %q\nstderr %q\n  want %q", code, err, stdout, stderr, tc.stderr)
			}
		})
	}
	unsafe := findingSet(auditResult(t, audit, "analytics"))
	for _, want := range []string{"spec.resources.limits.memory mysql-safety/resources Deny", "spec.image mysql-safety/image-version Deny"} {
		if !slices.Contains(unsafe, want) {
			t.Errorf("audit of analytics lacks %q: %q", want, unsafe)
		}
	}
}

func auditResult(t *testing.T, rep crdreport.Report, name string) crdreport.Result {
	t.Helper()
	for _, r := range rep.Results {
		if r.Name == name {
			if r.Operation != "UPDATE" || !r.NotStream {
				t.Errorf("%s: operation %s, notStream %v; want an UPDATE of a stored object", name, r.Operation, r.NotStream)
			}
			return r
		}
	}
	t.Fatalf("no audit result for %s", name)
	return crdreport.Result{}
}

func findingSet(r crdreport.Result) []string {
	var out []string
	for _, f := range r.Violations {
		out = append(out, f.Field+" "+f.Policy+"/"+f.Rule+" "+string(f.Enforcement))
	}
	slices.Sort(out)
	return out
}

// runReport runs crdguard and decodes its JSON report; exit code 1
// (violations) is a result, any other failure ends the test.
func runReport(t *testing.T, binary string, args ...string) crdreport.Report {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), binary, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+cluster.kubeconfig)
	code, stdout, stderr, err := runCommand(cmd)
	if err != nil || (code != 0 && code != 1) {
		t.Fatalf("crdguard %s: exit %d, %v\n%s", strings.Join(args, " "), code, err, stderr)
	}
	var rep crdreport.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("crdguard %s: %v\n%s", strings.Join(args, " "), err, stdout)
	}
	return rep
}

// grantList lets the unprivileged user list resource of group in
// namespace, and nothing else.
func grantList(t *testing.T, namespace, group, resource string) {
	t.Helper()
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "list-" + resource},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{group}, Resources: []string{resource}, Verbs: []string{"list"}}},
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: role.ObjectMeta,
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: unprivilegedUser}},
	}
	for _, obj := range []client.Object{role, binding} {
		if err := cluster.client.Create(t.Context(), obj); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
}
