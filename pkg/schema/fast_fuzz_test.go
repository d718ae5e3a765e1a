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
	kinds := fuzzKinds(f, func(*crdschema.Validator) bool { return true })
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

// FuzzFastCEL compares the fast CEL check with kube-apiserver's CEL
// validator on the kinds of the corpora and test CRDs that have rules:
// errors and warnings must be byte-identical with and without the fast
// paths, for a create of data, and for an update of old to data when old
// is an object. The seeds are the conformance objects, created, updated
// from themselves and from their old objects.
func FuzzFastCEL(f *testing.F) {
	kinds := fuzzKinds(f, crdschema.HasFastCEL)
	marshal := func(obj *unstructured.Unstructured) []byte {
		if obj == nil {
			return nil
		}
		data, err := json.Marshal(obj.Object)
		if err != nil {
			f.Fatal(err)
		}
		return data
	}
	for _, set := range conformanceSets() {
		for _, o := range readConformanceObjects(f, set.objects) {
			for i, k := range kinds {
				if k.gvk == o.obj.GroupVersionKind() {
					f.Add(uint16(i), marshal(o.obj), []byte(nil))
					f.Add(uint16(i), marshal(o.obj), marshal(o.obj))
					if o.old != nil {
						f.Add(uint16(i), marshal(o.obj), marshal(o.old))
					}
				}
			}
		}
	}
	object := func(data []byte, gvk schema.GroupVersionKind) *unstructured.Unstructured {
		var obj map[string]any
		if err := utiljson.Unmarshal(data, &obj); err != nil || obj == nil {
			return nil
		}
		u := &unstructured.Unstructured{Object: obj}
		u.SetGroupVersionKind(gvk)
		return u
	}
	f.Fuzz(func(t *testing.T, kindIndex uint16, data, oldData []byte) {
		k := kinds[int(kindIndex)%len(kinds)]
		obj := object(data, k.gvk)
		if obj == nil {
			return
		}
		v, err := k.registry.Validator(k.gvk)
		if err != nil {
			t.Fatal(err)
		}
		fast, upstream := crdschema.ValidateBothWays(t.Context(), v, obj, object(oldData, k.gvk))
		if !sameOutcome(fast, upstream) {
			t.Fatalf("%s: with fast paths %+v, kube-apiserver's validators alone %+v", k.gvk, fast, upstream)
		}
	})
}

// fuzzKind is a kind a fuzz target picks, with the registry of its CRD.
type fuzzKind struct {
	registry *crdschema.Registry
	gvk      schema.GroupVersionKind
}

// fuzzKinds are the kinds of the corpora and test CRDs whose validator
// keep accepts; the conformance sets after the fifth reuse these CRDs.
func fuzzKinds(f *testing.F, keep func(*crdschema.Validator) bool) []fuzzKind {
	var kinds []fuzzKind
	for _, set := range conformanceSets()[:5] {
		registry := set.crds(f)
		for _, gvk := range registry.Kinds() {
			v, err := registry.Validator(gvk)
			if err != nil {
				f.Fatal(err)
			}
			if keep(v) {
				kinds = append(kinds, fuzzKind{registry, gvk})
			}
		}
	}
	return kinds
}
