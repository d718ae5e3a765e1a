// Package mysqlexample reads the worked example, examples/mysql, as the
// tests of the admission handlers (internal/webhook) and of the cluster
// loops (internal/cluster) use it: its objects as the API server sends
// them, and its GuardPolicy as the API server stores it.
package mysqlexample

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"
)

// Path is the file name of examples/mysql, found from this package's
// source, so that it does not depend on the test's directory.
func Path(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "examples", "mysql", name)
}

// JSON reads one object of examples/mysql as JSON, as the API server sends
// it.
func JSON(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(Path(name))
	if err != nil {
		t.Fatal(err)
	}
	out, err := yaml.YAMLToJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// StoredPolicy returns the example policy as the API server would store
// it: with a UID and a generation, edited by fn.
func StoredPolicy(t testing.TB, uid types.UID, generation int64, fn func(*unstructured.Unstructured)) *unstructured.Unstructured {
	t.Helper()
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(JSON(t, "policy.yaml")); err != nil {
		t.Fatal(err)
	}
	obj.SetUID(uid)
	obj.SetGeneration(generation)
	obj.SetResourceVersion("1")
	obj.SetCreationTimestamp(metav1.Now())
	if fn != nil {
		fn(obj)
	}
	return obj
}

// BreakCEL makes the policy valid against its CRD's schema but not
// compilable: the kind of policy only crdguard itself can reject.
func BreakCEL(obj *unstructured.Unstructured) {
	rules, _, _ := unstructured.NestedSlice(obj.Object, "spec", "rules")
	rules[5].(map[string]any)["cel"].(map[string]any)["expression"] = "object.spec.replicas >="
	_ = unstructured.SetNestedSlice(obj.Object, rules, "spec", "rules")
}
