package policies

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/crdguard/crdguard/internal/golden"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/manifest"
	"github.com/crdguard/crdguard/pkg/schema"
)

// requestFile is request.yaml of a case: what the object alone does not say.
type requestFile struct {
	Operation       v1alpha1.Operation `json:"operation"`
	User            string             `json:"user"`
	Groups          []string           `json:"groups"`
	Namespace       string             `json:"namespace"`
	NamespaceLabels map[string]string  `json:"namespaceLabels"`
}

// runCases runs every case in testdata/<rule>/: a directory with
// policy.yaml, object.yaml and/or old.yaml (an old object makes an UPDATE,
// an old object alone a DELETE), optional request.yaml and crd.yaml, and
// want.txt with the expected result under each enforcement of the policy.
func runCases(t *testing.T, rule string) {
	dirs, err := filepath.Glob(filepath.Join("testdata", rule, "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases in testdata/%s (%v)", rule, err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			var got strings.Builder
			for _, enforcement := range []v1alpha1.Enforcement{v1alpha1.Deny, v1alpha1.Warn, v1alpha1.Audit} {
				fmt.Fprintf(&got, "== %s\n%s", enforcement, evaluateCase(t, dir, enforcement))
			}
			golden.Assert(t, filepath.Join(dir, "want.txt"), []byte(got.String()))
		})
	}
}

func evaluateCase(t *testing.T, dir string, enforcement v1alpha1.Enforcement) string {
	t.Helper()
	policyDocs := readDocs(t, filepath.Join(dir, "policy.yaml"))
	var schemas *schema.Registry
	if _, err := os.Stat(filepath.Join(dir, "crd.yaml")); err == nil {
		var err error
		if schemas, err = schema.RegistryFromFiles(t.Context(), filepath.Join(dir, "crd.yaml")); err != nil {
			t.Fatal(err)
		}
	}
	gps, err := PoliciesFromDocuments(t.Context(), policyDocs, schemas)
	if err != nil {
		t.Fatal(err)
	}
	for _, gp := range gps {
		gp.Spec.Enforcement = enforcement
	}
	engine, err := NewEngine(schemas, gps...)
	if err != nil {
		t.Fatal(err)
	}

	req := Request{Operation: v1alpha1.Create}
	if obj := readOptionalObject(t, filepath.Join(dir, "object.yaml")); obj != nil {
		req.Object = obj
	}
	if old := readOptionalObject(t, filepath.Join(dir, "old.yaml")); old != nil {
		req.OldObject = old
		req.Operation = v1alpha1.Update
		if req.Object == nil {
			req.Operation = v1alpha1.Delete
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, "request.yaml")); err == nil {
		var rf requestFile
		if err := yaml.UnmarshalStrict(data, &rf); err != nil {
			t.Fatal(err)
		}
		if rf.Operation != "" {
			req.Operation = rf.Operation
		}
		req.UserInfo = authenticationv1.UserInfo{Username: rf.User, Groups: rf.Groups}
		req.Namespace, req.NamespaceLabels = rf.Namespace, rf.NamespaceLabels
	}
	if req.Namespace == "" && req.subject() != nil {
		req.Namespace = req.subject().GetNamespace()
	}

	res, err := engine.Evaluate(t.Context(), req)
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	return renderResult(res)
}

// renderResult writes a result one fact per line, in a stable order.
func renderResult(res Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "allowed: %v\n", res.Allowed())
	fmt.Fprintf(&b, "policies: %s\n", strings.Join(res.Policies, ", "))
	for _, v := range res.Violations {
		fmt.Fprintf(&b, "violation: %s %s [%s/%s] %s: %s\n", v.Field, v.Type, v.Policy, v.Rule, v.Enforcement, v.Message)
	}
	if a := res.Approval; a != nil {
		fmt.Fprintf(&b, "approval: user=%s rules=%s reason=%s lifted=%v\n", a.User, strings.Join(a.Rules, ","), a.Reason, a.Lifted)
	}
	for _, w := range res.AdmissionWarnings() {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	audit := res.AuditAnnotations()
	keys := make([]string, 0, len(audit))
	for k := range audit {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "audit: %s: %s\n", k, audit[k])
	}
	for _, p := range res.Patches {
		value, _ := json.Marshal(p.Value)
		fmt.Fprintf(&b, "patch: %s %s %s\n", p.Operation, p.Path, value)
	}
	return b.String()
}

func readDocs(t testing.TB, path string) []manifest.Document {
	t.Helper()
	docs, err := manifest.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

func readOptionalObject(t testing.TB, path string) *unstructured.Unstructured {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	docs := readDocs(t, path)
	if len(docs) != 1 || docs[0].Err != nil {
		t.Fatalf("%s: want one valid document", path)
	}
	return docs[0].Object
}

// object decodes one YAML object.
func object(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
		t.Fatal(err)
	}
	return obj
}
