package schema_test

import (
	"encoding/json"
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	crdschema "github.com/crdguard/crdguard/pkg/schema"
)

// FuzzFastSchema compares the fast schema check with kube-openapi's
// validator on the real CRDs of the corpora and the test CRDs: the check
// may never accept a value upstream rejects, and the whole Validator's
// errors must not change with it. kind picks the CRD's kind, data is the
// value as JSON; the seeds are the conformance objects.
func FuzzFastSchema(f *testing.F) {
	// A kind's registry; the sets after the fifth reuse these CRDs.
	type kind struct {
		registry *crdschema.Registry
		gvk      schema.GroupVersionKind
	}
	var kinds []kind
	for _, set := range conformanceSets()[:5] {
		registry := set.crds(f)
		for _, gvk := range registry.Kinds() {
			kinds = append(kinds, kind{registry, gvk})
		}
	}
	for _, set := range conformanceSets() {
		for _, o := range readConformanceObjects(f, set.objects) {
			data, err := json.Marshal(o.obj.Object)
			if err != nil {
				f.Fatal(err)
			}
			for i, k := range kinds {
				if k.gvk == o.obj.GroupVersionKind() {
					f.Add(uint16(i), data)
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, kindIndex uint16, data []byte) {
		var value any
		if err := utiljson.Unmarshal(data, &value); err != nil {
			return
		}
		k := kinds[int(kindIndex)%len(kinds)]
		v, err := k.registry.Validator(k.gvk)
		if err != nil {
			t.Fatal(err)
		}
		if fastValid, errs := crdschema.FastSchemaVerdict(v, value); fastValid && len(errs) > 0 {
			t.Fatalf("the fast check accepts what kube-openapi rejects as %s: %v", k.gvk, errs)
		}
		obj, ok := value.(map[string]any)
		if !ok {
			return
		}
		u := &unstructured.Unstructured{Object: obj}
		u.SetGroupVersionKind(k.gvk)
		_, _, err = k.registry.DryRun(crdschema.WithFastPathVerification(t.Context()), u, nil, crdschema.ValidateOptions{})
		if mismatch := (*crdschema.FastPathMismatchError)(nil); errors.As(err, &mismatch) {
			t.Fatal(err)
		}
	})
}
