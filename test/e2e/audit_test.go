package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

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
