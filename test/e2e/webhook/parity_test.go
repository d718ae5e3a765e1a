package webhook

import (
	"encoding/json"
	"fmt"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
	"github.com/crdguard/crdguard/pkg/report"
)

// users as the CLI is told about them: the same names and groups as the
// cluster's users.
var cliUsers = map[string][]string{
	"alice": {"--user", "alice", "--groups", "dba,system:masters"},
	"bob":   {"--user", "bob", "--groups", "developers,system:masters"},
}

// TestParity: `crdguard validate` and the cluster (kube-apiserver with the
// webhook) give every example object the same verdict, on create, on the
// example's updates and on delete, and the webhook's denials the CLI's
// findings. The cluster is asked with the real
// kubectl and --dry-run=server, so nothing a case does is stored except
// the old objects an update or a delete needs.
func TestParity(t *testing.T) {
	type parityCase struct {
		name   string
		file   string // in examples/mysql
		index  int    // the object's index in file
		old    string // update: the stored object's file
		delete bool
		user   string
		want   bool // accepted; both sides must agree with it too
	}
	cases := []parityCase{
		{name: "create good", file: "good.yaml", want: true},
		{name: "create bad staging", file: "bad.yaml", index: 0},
		{name: "create bad Reporting_DB", file: "bad.yaml", index: 1},
		{name: "create unsafe", file: "unsafe.yaml"},
		{name: "create ephemeral", file: "delete/ephemeral.yaml", want: true},
		{name: "create update old", file: "update/old.yaml", want: true},
		{name: "create update new", file: "update/new.yaml", want: true},
		{name: "create update approved by bob", file: "update/approved.yaml"},
		{name: "create update approved by alice", file: "update/approved.yaml", user: "alice", want: true},
		{name: "update new", file: "update/new.yaml", old: "update/old.yaml", user: "alice"},
		{name: "update approved by alice", file: "update/approved.yaml", old: "update/old.yaml", user: "alice", want: true},
		{name: "update approved by bob", file: "update/approved.yaml", old: "update/old.yaml", user: "bob"},
		{name: "delete ephemeral", file: "delete/ephemeral.yaml", delete: true, user: "bob"},
		{name: "delete good", file: "good.yaml", delete: true, user: "bob", want: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.user == "" {
				tc.user = "bob"
			}
			ns := namespace(t)
			objs, err := readExamples(tc.file, ns)
			if err != nil {
				t.Fatal(err)
			}
			obj := objs[tc.index]
			file := writeObject(t, obj)
			cli := []string{"validate", "--crds", filepath.Join(cluster.examples, "crd.yaml"), "-o", "json"}
			for _, p := range cluster.policies {
				cli = append(cli, "--policies", p)
			}
			cli = append(cli, cliUsers[tc.user]...)
			cli = append(cli, "--namespace-labels", namespaceLabels(t, ns))
			var kubectlArgs []string
			switch {
			case tc.old != "":
				createExample(t, tc.old, ns)
				cli = append(cli, "--old", writeObject(t, example(t, tc.old, ns)))
				kubectlArgs = []string{"replace", "--dry-run=server", "-f", file}
			case tc.delete:
				if err := cluster.client.Create(t.Context(), obj.DeepCopy()); err != nil {
					t.Fatalf("creating %s: %v", tc.file, err)
				}
				cli = append(cli, "--delete")
				kubectlArgs = []string{"delete", "--dry-run=server", "-f", file}
			default:
				kubectlArgs = []string{"create", "--dry-run=server", "-f", file}
			}

			fromCLI := cliVerdict(t, append(cli, file)...)
			res := runKubectl(t, tc.user, kubectlArgs...)
			// A denial is an Invalid status ("The MySQLCluster "x" is
			// invalid:") or another server error; anything else means
			// kubectl gave up before asking.
			if !res.ok && !strings.Contains(res.stderr, "Error from server") && !strings.Contains(res.stderr, " is invalid: ") {
				t.Fatalf("kubectl failed before the server decided:\n%s", res)
			}
			if fromCLI.Allowed != res.ok {
				t.Errorf("crdguard validate allowed=%v, the cluster allowed=%v\ncrdguard: %s\nkubectl %s", fromCLI.Allowed, res.ok, fromCLI.raw, res)
			}
			if res.ok != tc.want {
				t.Errorf("the cluster allowed=%v, want %v:\n%s", res.ok, tc.want, res)
			}
			// A denial by the webhook alone (the API server had nothing to
			// say) prints the CLI's Deny findings, each as kubectl prints a
			// cause: "field: [policy/rule] message".
			if want, ok := fromCLI.webhookDenial(); ok && !res.ok {
				if got := invalidLines(res.stderr); !slices.Equal(got, want) {
					t.Errorf("kubectl printed\n%q\nwant the CLI's findings\n%q\ncrdguard: %s", got, want, fromCLI.raw)
				}
			}
			if stored := stored(t, obj); (stored != nil) != (tc.old != "" || (tc.delete)) {
				t.Errorf("a dry run changed what is stored: %v", stored)
			}
		})
	}
}

// cliResult is the one result of `crdguard validate -o json`.
type cliResult struct {
	Allowed    bool             `json:"allowed"`
	Error      string           `json:"error"`
	Skipped    bool             `json:"skipped"`
	Name       string           `json:"name"`
	Violations []report.Finding `json:"violations"`
	raw        string
}

// webhookDenial are the lines kubectl prints for the webhook's denial of
// the object (after any warnings): the Invalid header, then its causes,
// the only one on the header's line. ok is false when the CLI found no
// Deny violation, or a schema one, which the API server words itself.
func (r cliResult) webhookDenial() (lines []string, ok bool) {
	var causes []string
	for _, v := range r.Violations {
		switch {
		case v.Enforcement != v1alpha1.Deny:
			continue
		case v.Policy == policies.SchemaPolicy:
			return nil, false
		}
		causes = append(causes, fmt.Sprintf("%s: [%s/%s] %s", v.Field, v.Policy, v.Rule, v.Message))
	}
	header := fmt.Sprintf("The MySQLCluster %q is invalid: ", r.Name)
	switch len(causes) {
	case 0:
		return nil, false
	case 1:
		return []string{header + causes[0]}, true
	}
	lines = []string{header}
	for _, c := range causes {
		lines = append(lines, "* "+c)
	}
	return lines, true
}

// invalidLines are the lines of kubectl's stderr but its warnings.
func invalidLines(stderr string) []string {
	var lines []string
	for line := range strings.Lines(stderr) {
		if !strings.HasPrefix(line, "Warning: ") {
			lines = append(lines, strings.TrimSuffix(line, "\n"))
		}
	}
	return lines
}

// cliVerdict runs `crdguard validate -o json` on one object and returns
// its result.
func cliVerdict(t *testing.T, args ...string) cliResult {
	t.Helper()
	var decoded struct {
		Results []cliResult `json:"results"`
	}
	_, out := crdguardJSON(t, &decoded, args...)
	if len(decoded.Results) != 1 || decoded.Results[0].Error != "" || decoded.Results[0].Skipped {
		t.Fatalf("crdguard: want one evaluated result:\n%s", out)
	}
	res := decoded.Results[0]
	res.raw = string(out)
	return res
}

// crdguardJSON runs crdguard with args, which ask for -o json, and
// decodes its output into v. Exit 1 (findings) is a result like exit 0;
// any other failure ends the test. It returns the exit code and the
// output.
func crdguardJSON(t *testing.T, v any, args ...string) (int, []byte) {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), cluster.crdguard, args...).Output()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	}
	if err != nil && code != 1 {
		t.Fatalf("crdguard %s: %v\n%s%s", strings.Join(args, " "), err, out, stderrOf(err))
	}
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatalf("crdguard -o json: %v\n%s", err, out)
	}
	return code, out
}

func stderrOf(err error) string {
	if exit, ok := err.(*exec.ExitError); ok {
		return string(exit.Stderr)
	}
	return fmt.Sprint(err)
}

// namespaceLabels are the labels of the namespace as stored, as
// --namespace-labels takes them: what the webhook reads from the cluster.
func namespaceLabels(t *testing.T, name string) string {
	t.Helper()
	var ns corev1.Namespace
	if err := cluster.client.Get(t.Context(), client.ObjectKey{Name: name}, &ns); err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, k := range slices.Sorted(maps.Keys(ns.Labels)) {
		labels = append(labels, k+"="+ns.Labels[k])
	}
	return name + "=" + strings.Join(labels, ",")
}
