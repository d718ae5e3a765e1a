package policies

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/manifest"
)

// FuzzEvaluate builds an engine from an arbitrary policy document and
// evaluates an arbitrary object under every operation: whatever gets past
// policy validation must evaluate without panicking.
func FuzzEvaluate(f *testing.F) {
	dirs, _ := filepath.Glob("testdata/*/*")
	for _, dir := range dirs {
		policy, err := os.ReadFile(filepath.Join(dir, "policy.yaml"))
		if err != nil {
			continue
		}
		object, _ := os.ReadFile(filepath.Join(dir, "object.yaml"))
		old, _ := os.ReadFile(filepath.Join(dir, "old.yaml"))
		f.Add(policy, object, old)
	}
	f.Fuzz(func(t *testing.T, policyData, objectData, oldData []byte) {
		docs, err := manifest.Read(bytes.NewReader(policyData), "policy.yaml")
		if err != nil {
			return
		}
		gps, err := PoliciesFromDocuments(t.Context(), docs, nil)
		if err != nil {
			return
		}
		engine, err := NewEngine(nil, gps...)
		if err != nil {
			t.Fatalf("a policy that passed validation does not compile: %v", err)
		}
		obj, old := firstObject(objectData), firstObject(oldData)
		for _, req := range []Request{
			{Operation: v1alpha1.Create, Object: obj},
			{Operation: v1alpha1.Update, Object: obj, OldObject: old},
			{Operation: v1alpha1.Delete, OldObject: old},
		} {
			if req.Object == nil && req.Operation != v1alpha1.Delete || req.OldObject == nil && req.Operation != v1alpha1.Create {
				continue
			}
			_, _ = engine.Evaluate(t.Context(), req)
		}
	})
}

func firstObject(data []byte) *unstructured.Unstructured {
	docs, err := manifest.Read(bytes.NewReader(data), "object.yaml")
	if err != nil || len(docs) == 0 || docs[0].Err != nil {
		return nil
	}
	return docs[0].Object
}
