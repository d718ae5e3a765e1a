package schema_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/crdguard/crdguard/internal/corpus"
	"github.com/crdguard/crdguard/pkg/manifest"
	"github.com/crdguard/crdguard/pkg/schema"
)

// conformanceSet is a directory of objects with the CRDs they are for.
type conformanceSet struct {
	name    string
	crds    func(t testing.TB) *schema.Registry
	objects string // a directory of objects, or of <case>/new.yaml (+ old.yaml)
}

func conformanceSets() []conformanceSet {
	fromCorpus := func(set corpus.Set) func(t testing.TB) *schema.Registry {
		return func(t testing.TB) *schema.Registry {
			t.Helper()
			crds, err := set.CRDs(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			registry, err := schema.NewRegistry(crds...)
			if err != nil {
				t.Fatal(err)
			}
			return registry
		}
	}
	fromFile := func(path string) func(t testing.TB) *schema.Registry {
		return func(t testing.TB) *schema.Registry {
			t.Helper()
			registry, err := schema.RegistryFromFiles(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			return registry
		}
	}
	e2e := filepath.Join("..", "..", "test", "e2e", "testdata")
	return []conformanceSet{
		{"certmanager", fromCorpus(corpus.CertManager), filepath.Join(e2e, "certmanager")},
		{"gatewayapi", fromCorpus(corpus.GatewayAPI), filepath.Join(e2e, "gatewayapi")},
		{"prometheus", fromCorpus(corpus.PrometheusOperator), filepath.Join(e2e, "prometheus")},
		{"widgets", fromFile("testdata/widgets-crd.yaml"), filepath.Join(e2e, "widgets")},
		{"gadgets", fromFile("testdata/gadgets-crd.yaml"), filepath.Join(e2e, "gadgets")},
		{"widgets-updates", fromFile("testdata/widgets-crd.yaml"), filepath.Join(e2e, "widgets-updates")},
		{"cases", fromFile("testdata/widgets-crd.yaml"), "testdata/cases"},
		{"bench-certmanager", fromCorpus(corpus.CertManager), "testdata/bench/certificate.yaml"},
		{"bench-gatewayapi", fromCorpus(corpus.GatewayAPI), "testdata/bench/httproute.yaml"},
		{"bench-prometheus", fromCorpus(corpus.PrometheusOperator), "testdata/bench/prometheus.yaml"},
	}
}

// conformanceObject is one object of a set, an update when old is set.
type conformanceObject struct {
	source   string
	obj, old *unstructured.Unstructured
}

func readConformanceObjects(t testing.TB, path string) []conformanceObject {
	t.Helper()
	var objects []conformanceObject
	read := func(path string) []*unstructured.Unstructured {
		docs, err := manifest.ReadPaths(nil, path)
		if err != nil {
			t.Fatal(err)
		}
		var objs []*unstructured.Unstructured
		for _, doc := range docs {
			if doc.Err == nil {
				objs = append(objs, doc.Object)
			}
		}
		return objs
	}
	if entries, err := os.ReadDir(path); err == nil && len(entries) > 0 && entries[0].IsDir() {
		for _, e := range entries {
			dir := filepath.Join(path, e.Name())
			var old *unstructured.Unstructured
			if _, err := os.Stat(filepath.Join(dir, "old.yaml")); err == nil {
				if olds := read(filepath.Join(dir, "old.yaml")); len(olds) == 1 {
					old = olds[0]
				}
			}
			for _, obj := range read(filepath.Join(dir, "new.yaml")) {
				objects = append(objects, conformanceObject{dir, obj, old})
			}
		}
		return objects
	}
	for _, obj := range read(path) {
		objects = append(objects, conformanceObject{path, obj, nil})
	}
	return objects
}

// wholeValidatorStride picks the mutations the whole Validator checks.
const wholeValidatorStride = 25

// TestFastPathDifferential is the guard of the fast schema check, which
// would be a fail-open bug if it accepted what kube-apiserver rejects. On
// every conformance object, and on mutations of each valid one, it checks
// that the check's "valid" implies no error from kube-openapi's validator,
// and that the whole Validator's errors are byte-identical with and
// without the fast path.
func TestFastPathDifferential(t *testing.T) {
	ctx := schema.WithFastPathVerification(t.Context())
	for _, set := range conformanceSets() {
		t.Run(set.name, func(t *testing.T) {
			registry := set.crds(t)
			objects := readConformanceObjects(t, set.objects)
			if len(objects) == 0 {
				t.Fatalf("no objects in %s", set.objects)
			}
			var checked, mutants, accepted int
			for _, o := range objects {
				v, err := registry.Validator(o.obj.GroupVersionKind())
				if err != nil {
					continue // an unserved version: no schema to compare
				}
				_, errs, err := registry.DryRun(ctx, o.obj, o.old, schema.ValidateOptions{})
				if err != nil {
					t.Fatalf("%s %s: %v", o.source, o.obj.GetName(), err)
				}
				checked++
				decoded := v.Decode(o.obj).Object
				if fastValid, _ := schema.FastSchemaVerdict(v, decoded); fastValid {
					accepted++
				}
				for m := range mutations(decoded) {
					mutants++
					fastValid, upstreamErrs := schema.FastSchemaVerdict(v, m.value)
					if fastValid && len(upstreamErrs) > 0 {
						t.Errorf("%s %s, %s: the fast check accepts what kube-openapi rejects: %v", o.source, o.obj.GetName(), m.what, upstreamErrs)
					}
				}
				if len(errs) > 0 {
					continue // mutations of invalid objects only find the same errors
				}
				// The whole Validator on a sample of the mutations: each
				// runs CEL, and the schema level covers all of them.
				i := 0
				for m := range mutations(o.obj.Object) {
					if i++; i%wholeValidatorStride != 0 {
						continue
					}
					mutant, ok := m.value.(map[string]any)
					if !ok {
						continue
					}
					_, _, err := registry.DryRun(ctx, &unstructured.Unstructured{Object: mutant}, o.old, schema.ValidateOptions{})
					var mismatch *schema.FastPathMismatchError
					if errors.As(err, &mismatch) {
						t.Errorf("%s %s, %s: %v", o.source, o.obj.GetName(), m.what, err)
					}
				}
			}
			t.Logf("%d objects, %d accepted by the fast check; %d mutants", checked, accepted, mutants)
			if checked == 0 || mutants == 0 {
				t.Errorf("compared %d objects and %d mutants, want some of each", checked, mutants)
			}
		})
	}
}

// TestFastPathAcceptsBenchObjects checks that the fast check decides the
// real objects of the benchmarks: a check that always said "unknown" would
// pass every differential test and speed up nothing.
func TestFastPathAcceptsBenchObjects(t *testing.T) {
	for _, set := range conformanceSets() {
		if !strings.HasPrefix(set.name, "bench-") {
			continue
		}
		registry := set.crds(t)
		for _, o := range readConformanceObjects(t, set.objects) {
			v, err := registry.Validator(o.obj.GroupVersionKind())
			if err != nil {
				t.Fatal(err)
			}
			if fastValid, errs := schema.FastSchemaVerdict(v, v.Decode(o.obj).Object); !fastValid || len(errs) > 0 {
				t.Errorf("%s: fast check valid = %v, upstream errors %v; want valid and none", o.source, fastValid, errs)
			}
		}
	}
}

// mutation is a changed copy of an object.
type mutation struct {
	what  string
	value any
}

// mutatedNodes bounds the nodes of one object that mutations changes,
// evenly spread over it, so that a large object does not take minutes.
const mutatedNodes = 80

// mutations yields copies of obj with one change each, at its nodes:
// deleted, retyped, numbers nudged across bounds, strings made long or
// changed, list items duplicated or dropped, unknown keys added.
func mutations(obj map[string]any) func(yield func(mutation) bool) {
	return func(yield func(mutation) bool) {
		stride := max(1, countNodes(obj)/mutatedNodes)
		seen := 0
		for path, node := range nodes(obj) {
			seen++
			if seen%stride != 0 {
				continue
			}
			for what, replacement := range replacements(node) {
				if !yield(mutation{fmt.Sprintf("%v: %s", path, what), replaceAt(obj, path, replacement)}) {
					return
				}
			}
			if len(path) > 0 && !yield(mutation{fmt.Sprintf("%v: deleted", path), deleteAt(obj, path)}) {
				return
			}
		}
	}
}

// nodes yields every node of obj with its path, each node before the
// nodes below it, and map keys in order.
func nodes(obj any) func(yield func(path []any, node any) bool) {
	return func(yield func(path []any, node any) bool) {
		var walk func(path []any, node any) bool
		walk = func(path []any, node any) bool {
			if !yield(path, node) {
				return false
			}
			switch node := node.(type) {
			case map[string]any:
				for _, k := range slices.Sorted(mapKeys(node)) {
					if !walk(append(slices.Clone(path), k), node[k]) {
						return false
					}
				}
			case []any:
				for i, item := range node {
					if !walk(append(slices.Clone(path), i), item) {
						return false
					}
				}
			}
			return true
		}
		walk(nil, obj)
	}
}

func countNodes(node any) int {
	n := 1
	switch node := node.(type) {
	case map[string]any:
		for _, v := range node {
			n += countNodes(v)
		}
	case []any:
		for _, v := range node {
			n += countNodes(v)
		}
	}
	return n
}

func mapKeys(m map[string]any) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// replacements are the values that take node's place.
func replacements(node any) map[string]any {
	r := map[string]any{
		"null": nil, "string": "x", "int": int64(7), "float": 1.5, "bool": true,
		"object": map[string]any{}, "array": []any{},
	}
	switch node := node.(type) {
	case int64:
		for _, n := range []int64{node + 1, node - 1, -node, 0, node * 1000, 1 << 31, 1 << 40, -(1 << 40)} {
			r[fmt.Sprintf("int %d", n)] = n
		}
		r["fraction"] = float64(node) + 0.5
		r["integral float"] = float64(node)
	case float64:
		r["float+1"], r["float-1"], r["float*1000"] = node+1, node-1, node*1000
	case string:
		r["long"] = strings.Repeat("a", 300)
		r["long multibyte"] = strings.Repeat("é", 40)
		r["empty"] = ""
		r["suffixed"] = node + "!"
		r["upper"] = strings.ToUpper(node)
		r["spaced"] = " " + node
		r["string list"] = []any{node}
	case []any:
		if len(node) > 0 {
			r["duplicate item"] = append(slices.Clone(node), deepCopy(node[0]))
			r["dropped item"] = slices.Clone(node[1:])
			r["null item"] = append(slices.Clone(node), nil)
		}
	case map[string]any:
		unknown := deepCopy(node).(map[string]any)
		unknown["zzUnknownField"] = "x"
		r["unknown key"] = unknown
		important := deepCopy(node).(map[string]any)
		important["IMPORTANT!x"] = "x"
		r["IMPORTANT! key"] = important
	}
	return r
}

// replaceAt returns a copy of obj with the node at path replaced.
func replaceAt(obj map[string]any, path []any, value any) any {
	if len(path) == 0 {
		return value
	}
	out := deepCopy(obj)
	parent := nodeAt(out, path[:len(path)-1])
	switch key := path[len(path)-1].(type) {
	case string:
		parent.(map[string]any)[key] = deepCopy(value)
	case int:
		parent.([]any)[key] = deepCopy(value)
	}
	return out
}

// deleteAt returns a copy of obj without the node at path.
func deleteAt(obj map[string]any, path []any) any {
	out := deepCopy(obj).(map[string]any)
	parentPath := path[:len(path)-1]
	switch key := path[len(path)-1].(type) {
	case string:
		delete(nodeAt(out, parentPath).(map[string]any), key)
	case int:
		list := nodeAt(out, parentPath).([]any)
		shorter := slices.Delete(slices.Clone(list), key, key+1)
		if len(parentPath) == 0 {
			return out
		}
		return replaceAt(out, parentPath, shorter)
	}
	return out
}

func nodeAt(node any, path []any) any {
	for _, p := range path {
		switch key := p.(type) {
		case string:
			node = node.(map[string]any)[key]
		case int:
			node = node.([]any)[key]
		}
	}
	return node
}

func deepCopy(v any) any {
	return runtime.DeepCopyJSONValue(v)
}
