package schema_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdguard/crdguard/internal/corpus"
	"github.com/crdguard/crdguard/pkg/schema"
)

// BenchmarkValidate measures the validation of one object against a real
// CRD, the per-object cost of `crdguard validate` once its CRDs are loaded:
//
//   - small: a cert-manager Certificate (plain OpenAPI checks, a few enums);
//   - medium: a Gateway API HTTPRoute, whose CRD is dense with CEL rules on
//     rules, matches, filters and backendRefs, so CEL dominates;
//   - large: a prometheus-operator Prometheus with a production-sized spec
//     against the biggest schema of the three.
//
// Each size runs as a create and as an update of the same object with one
// field changed, which adds the old object's decoding, ratcheting and
// transition rules. The objects are valid, and the setup checks it: an
// invalid object would stop at the first blocking error and skip CEL,
// measuring a path real traffic rarely takes.
func BenchmarkValidate(b *testing.B) {
	sizes := []struct {
		name   string
		crds   corpus.Set
		object string
		// change makes the updated object from the stored one.
		change func(obj map[string]any)
	}{
		{"small", corpus.CertManager, "testdata/bench/certificate.yaml", func(obj map[string]any) {
			specOf(obj)["renewBefore"] = "720h"
		}},
		{"medium", corpus.GatewayAPI, "testdata/bench/httproute.yaml", func(obj map[string]any) {
			rule := specOf(obj)["rules"].([]any)[0].(map[string]any)
			rule["backendRefs"].([]any)[1].(map[string]any)["weight"] = int64(20)
		}},
		{"large", corpus.PrometheusOperator, "testdata/bench/prometheus.yaml", func(obj map[string]any) {
			specOf(obj)["replicas"] = int64(3)
		}},
	}
	for _, size := range sizes {
		b.Run(size.name, func(b *testing.B) {
			registry := corpusRegistry(b, size.crds)
			obj := readObject(b, size.object)
			// Compiling (OpenAPI validator, CEL programs) happens once per
			// kind in the CLI too: keep it out of the measurement.
			v, err := registry.Validator(obj.GroupVersionKind())
			if err != nil {
				b.Fatal(err)
			}
			updated := obj.DeepCopy()
			size.change(updated.Object)

			b.Run("create", func(b *testing.B) {
				benchmarkValidate(b, v, obj, nil)
			})
			b.Run("update", func(b *testing.B) {
				benchmarkValidate(b, v, updated, obj)
			})
		})
	}
}

func benchmarkValidate(b *testing.B, v *schema.Validator, obj, old *unstructured.Unstructured) {
	ctx := b.Context()
	if errs := v.Validate(ctx, obj, old); len(errs) > 0 {
		b.Fatalf("the benchmark object must be valid, so that every check runs; got %v", errs)
	}
	b.ReportAllocs()
	for b.Loop() {
		v.Validate(ctx, obj, old)
	}
}

// corpusRegistry loads one of the real CRD sets.
func corpusRegistry(b *testing.B, set corpus.Set) *schema.Registry {
	b.Helper()
	crds, err := set.CRDs(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	registry, err := schema.NewRegistry(crds...)
	if err != nil {
		b.Fatal(err)
	}
	return registry
}

// specOf returns obj's spec.
func specOf(obj map[string]any) map[string]any {
	return obj["spec"].(map[string]any)
}

// BenchmarkFirstObject measures what one object costs before any other:
// reading the CRDs of all three real sets (26 CRDs), validating them as the
// API server does, compiling the one kind the object has and validating it.
// This is the latency of `crdguard validate` on a single file.
func BenchmarkFirstObject(b *testing.B) {
	var dirs []string
	for _, set := range []corpus.Set{corpus.CertManager, corpus.GatewayAPI, corpus.PrometheusOperator} {
		dir, err := set.Path()
		if err != nil {
			b.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	obj := readObject(b, "testdata/bench/certificate.yaml")
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		registry, err := schema.RegistryFromFiles(ctx, dirs...)
		if err != nil {
			b.Fatal(err)
		}
		if errs, err := registry.Validate(ctx, obj, nil); err != nil || len(errs) > 0 {
			b.Fatalf("want a valid object, got %v, %v", errs, err)
		}
	}
}

// BenchmarkDecode measures Validator.Decode, the object as admission
// webhooks and policies see it (unknown fields and nulls pruned, embedded
// metadata coerced, defaults applied), on the objects of BenchmarkValidate.
func BenchmarkDecode(b *testing.B) {
	objects := []struct {
		name   string
		crds   corpus.Set
		object string
	}{
		{"small", corpus.CertManager, "testdata/bench/certificate.yaml"},
		{"medium", corpus.GatewayAPI, "testdata/bench/httproute.yaml"},
		{"large", corpus.PrometheusOperator, "testdata/bench/prometheus.yaml"},
	}
	for _, o := range objects {
		b.Run(o.name, func(b *testing.B) {
			obj := readObject(b, o.object)
			v, err := corpusRegistry(b, o.crds).Validator(obj.GroupVersionKind())
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				v.Decode(obj)
			}
		})
	}
}
