package diff

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdguard/crdguard/internal/corpus"
	"github.com/crdguard/crdguard/pkg/manifest"
	"github.com/crdguard/crdguard/pkg/schema"
)

// BenchmarkCompareCorpus diffs prometheus-operator's CRDs between two
// releases (hack/tools/corpora-previous → hack/tools/corpora), what
// `crdguard diff OLD NEW` does once both directories are read:
//
//   - set: every CRD of the set, matched by name and compared (the target
//     is under a second);
//   - largest: the CRD with the biggest schema alone (Prometheus), to see
//     how the cost grows with one schema's size.
//
// Reading and decoding the YAML is left out: it is manifest's cost, the
// same for every command.
func BenchmarkCompareCorpus(b *testing.B) {
	old := corpusCRDs(b, corpus.PrometheusOperator.Previous())
	new := corpusCRDs(b, corpus.PrometheusOperator)
	pairs := MatchCRDs(old, new)

	b.Run("set", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, p := range pairs {
				if _, err := p.Compare(); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(len(pairs)), "CRDs")
	})

	largest := largestPair(b, pairs)
	b.Run("largest", func(b *testing.B) {
		b.Logf("largest CRD: %s", largest.Name)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := largest.Compare(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// replayObjects is how many stored objects BenchmarkReplay validates per
// operation, the order of a large cluster's ServiceMonitors.
const replayObjects = 10000

// BenchmarkReplay replays 10,000 stored ServiceMonitors against the new
// release's CRDs through Replay, as `crdguard diff --objects` and
// /validate-crd do: each object as an update of itself (what its next
// write meets, with ratcheting) and as a create (what ratcheting would no
// longer tolerate). The objects are
// generated from pkg/schema/testdata/bench/servicemonitor.yaml, each with
// its own name, namespace and values so that no two are alike.
func BenchmarkReplay(b *testing.B) {
	registry, err := schema.NewRegistry(corpusCRDs(b, corpus.PrometheusOperator)...)
	if err != nil {
		b.Fatal(err)
	}
	objects := serviceMonitors(b, replayObjects)
	// Compile the validator outside the measurement: the command pays it
	// once per kind.
	if _, err := registry.Validator(objects[0].GroupVersionKind()); err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		for _, obj := range objects {
			// The objects must be valid, so that every check, CEL
			// included, runs rather than stopping at the first error.
			if findings, err := Replay(ctx, registry, obj); err != nil || len(findings) > 0 {
				b.Fatalf("%s: the benchmark objects must be valid: %v %v", obj.GetName(), err, findings)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(objects)), "ns/object")
}

// corpusCRDs reads a real CRD set.
func corpusCRDs(b *testing.B, set corpus.Set) []*apiextensionsv1.CustomResourceDefinition {
	b.Helper()
	crds, err := set.CRDs(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	return crds
}

// largestPair is the pair whose new CRD has the biggest schema, measured
// as its JSON size.
func largestPair(b *testing.B, pairs []Pair) Pair {
	b.Helper()
	var largest Pair
	size := -1
	for _, p := range pairs {
		if p.Old == nil || p.New == nil {
			continue
		}
		data, err := json.Marshal(p.New.Spec.Versions)
		if err != nil {
			b.Fatal(err)
		}
		if len(data) > size {
			largest, size = p, len(data)
		}
	}
	return largest
}

// serviceMonitors makes n distinct valid ServiceMonitors from the template:
// 100 namespaces, and per object its own name, selector, port names and
// intervals.
func serviceMonitors(b *testing.B, n int) []*unstructured.Unstructured {
	b.Helper()
	docs, err := manifest.ReadFile(filepath.Join(corpus.RepositoryRoot(), "pkg", "schema", "testdata", "bench", "servicemonitor.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	if len(docs) != 1 || docs[0].Err != nil {
		b.Fatalf("servicemonitor.yaml: want one valid document, got %v", docs)
	}
	template := docs[0].Object
	objects := make([]*unstructured.Unstructured, n)
	for i := range objects {
		obj := template.DeepCopy()
		name, namespace := fmt.Sprintf("app-%d", i), fmt.Sprintf("team-%d", i%100)
		obj.SetName(name)
		obj.SetNamespace(namespace)
		spec := obj.Object["spec"].(map[string]any)
		spec["selector"] = map[string]any{"matchLabels": map[string]any{"app.kubernetes.io/name": name}}
		spec["namespaceSelector"] = map[string]any{"matchNames": []any{namespace}}
		endpoints := spec["endpoints"].([]any)
		first := endpoints[0].(map[string]any)
		first["port"] = fmt.Sprintf("metrics-%d", i%7)
		first["interval"] = fmt.Sprintf("%ds", 10+i%50)
		second := endpoints[1].(map[string]any)
		second["tlsConfig"].(map[string]any)["serverName"] = name + "." + namespace + ".svc"
		objects[i] = obj
	}
	return objects
}
