package policies

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/manifest"
	"github.com/crdguard/crdguard/pkg/policies/internal/rules"
)

var reflectStrings = reflect.TypeFor[[]string]()

// benchPolicy is the example policy's checks for a MySQLCluster UPDATE:
// resource ratios, image/version agreement, storage and version
// transitions and a custom CEL rule. Deletion (DELETE only) and defaults
// (a mutation) have no counterpart in a validating CEL program.
const benchPolicy = `
apiVersion: crdguard.dev/v1alpha1
kind: GuardPolicy
metadata:
  name: mysql-safety
spec:
  match:
    resources:
    - group: db.example.io
      kinds: [MySQLCluster]
  rules:
  - name: resources
    resources:
      paths: [spec.resources]
      requireLimits: [cpu, memory]
      ratios:
      - {resource: cpu, min: "1.5", minExclusive: true, max: "4", maxExclusive: true}
      - {resource: memory, min: "1.5", minExclusive: true, max: "4", maxExclusive: true}
  - name: image-version
    imageVersion:
      versionPath: spec.version
      imagePaths: [spec.image]
      compare: TagPrefix
  - name: storage
    transitions:
    - {path: spec.storage.size, check: NoDecrease}
    - {path: spec.storage.storageClassName, check: Immutable}
    - {path: spec.version, check: NoDowngrade}
  - name: odd-replicas
    cel:
      expression: object.spec.replicas % 2 == 1
      message: replicas must be odd so the group keeps a quorum
      fieldPath: spec.replicas
`

// benchCEL is the same checks as one CEL program in the same Kubernetes
// CEL environment, returning the names of the rules that fail. Ratios are
// exact like the engine's: 1.5 < l/r < 4 is 2l > 3r and l < 4r, written
// with quantity add(). The image check is simpler than the engine's (it
// splits at the last ":" instead of parsing the reference), which only
// favours CEL.
const benchCEL = `
(!has(object.spec.resources) || !has(object.spec.resources.limits)
  || !('cpu' in object.spec.resources.limits) || !('memory' in object.spec.resources.limits)
  || ['cpu', 'memory'].exists(r, r in object.spec.resources.requests && (
    quantity(object.spec.resources.limits[r]).add(quantity(object.spec.resources.limits[r]))
      .compareTo(quantity(object.spec.resources.requests[r]).add(quantity(object.spec.resources.requests[r]))
        .add(quantity(object.spec.resources.requests[r]))) <= 0
    || quantity(object.spec.resources.limits[r]).compareTo(
      quantity(object.spec.resources.requests[r]).add(quantity(object.spec.resources.requests[r]))
        .add(quantity(object.spec.resources.requests[r])).add(quantity(object.spec.resources.requests[r]))) >= 0))
  ? ['resources'] : [])
+ (has(object.spec.version) && has(object.spec.image) && !(
    object.spec.image.substring(object.spec.image.lastIndexOf(':') + 1) == object.spec.version
    || object.spec.image.substring(object.spec.image.lastIndexOf(':') + 1).startsWith(object.spec.version + '-'))
  ? ['image-version'] : [])
+ (oldObject != null && (
    quantity(object.spec.storage.size).compareTo(quantity(oldObject.spec.storage.size)) < 0
    || object.spec.storage.storageClassName != oldObject.spec.storage.storageClassName
    || semver(object.spec.version, true).compareTo(semver(oldObject.spec.version, true)) < 0)
  ? ['storage'] : [])
+ (object.spec.replicas % 2 != 1 ? ['odd-replicas'] : [])
`

// benchCluster is a MySQLCluster with the fields the policy's rules read
// set to the given values; everything else is the same in every object.
func benchCluster(version, image string, replicas int, storageSize, memoryLimit string) string {
	return fmt.Sprintf(`
apiVersion: db.example.io/v1
kind: MySQLCluster
metadata: {name: prod, namespace: shop, labels: {app: mysql}}
spec:
  version: %q
  image: %s
  replicas: %d
  storage: {size: %s, storageClassName: fast}
  resources:
    requests: {cpu: "2", memory: 4Gi}
    limits: {cpu: "4", memory: %s}
  users:
  - {name: app, privileges: [SELECT, INSERT, UPDATE]}
  - {name: report, privileges: [SELECT]}
`, version, image, replicas, storageSize, memoryLimit)
}

// benchOld is the stored object both new objects update.
var benchOld = benchCluster("8.0.35", "mysql:8.0.35", 3, "100Gi", "8Gi")

// benchObjects are the new objects: one that passes, and one that breaks
// every rule once (an image that is not the version, even replicas, a
// smaller volume, memory limits 8× the requests).
var benchObjects = map[string]string{
	"good": benchCluster("8.0.36", "mysql:8.0.36", 3, "100Gi", "8Gi"),
	"bad":  benchCluster("8.0.36", "mysql:8.4.0", 2, "50Gi", "32Gi"),
}

// wantFailing is what both must find on each object.
var wantFailing = map[string][]string{
	"good": nil,
	"bad":  {"image-version", "odd-replicas", "resources", "storage"},
}

func benchRequest(b *testing.B, object string) Request {
	b.Helper()
	// Read as the CLI reads objects (the webhook decodes the same way):
	// integers are int64, which CEL's arithmetic needs.
	parse := func(s string) *unstructured.Unstructured {
		docs, err := manifest.Read(strings.NewReader(s), "object.yaml")
		if err != nil || len(docs) != 1 || docs[0].Err != nil {
			b.Fatalf("%v %v", err, docs)
		}
		return docs[0].Object
	}
	return Request{
		Operation: v1alpha1.Update,
		Object:    parse(object),
		OldObject: parse(benchOld),
		Namespace: "shop",
		UserInfo:  authenticationv1.UserInfo{Username: "alice", Groups: []string{"dev", "system:authenticated"}},
	}
}

// BenchmarkEvaluate is the engine deciding one request with the policy.
func BenchmarkEvaluate(b *testing.B) {
	// Loaded as the CLI loads it: validated and defaulted by the CRD.
	docs, err := manifest.Read(strings.NewReader(benchPolicy), "policy.yaml")
	if err != nil {
		b.Fatal(err)
	}
	gps, err := PoliciesFromDocuments(b.Context(), docs, nil)
	if err != nil {
		b.Fatal(err)
	}
	engine, err := NewEngine(nil, gps...)
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"good", "bad"} {
		b.Run(name, func(b *testing.B) {
			req := benchRequest(b, benchObjects[name])
			res, err := engine.Evaluate(b.Context(), req)
			if err != nil {
				b.Fatal(err)
			}
			failing := map[string]bool{}
			for _, v := range res.Violations {
				failing[v.Rule] = true
			}
			if got := slices.Sorted(maps.Keys(failing)); !slices.Equal(got, wantFailing[name]) {
				b.Fatalf("engine: failing rules %v, want %v; violations: %+v", got, wantFailing[name], res.Violations)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := engine.Evaluate(b.Context(), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEvaluateAsCEL is the same checks as one CEL program, compiled
// once, evaluated on the same request with the same cost tracking.
func BenchmarkEvaluateAsCEL(b *testing.B) {
	prog, err := rules.CompileProgram(benchCEL, cel.ListType(cel.StringType))
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"good", "bad"} {
		b.Run(name, func(b *testing.B) {
			req := benchRequest(b, benchObjects[name])
			eval := func() []string {
				out, err := prog.Eval(b.Context(), req.forRules())
				if err != nil {
					b.Fatal(err)
				}
				failing, err := out.ConvertToNative(reflectStrings)
				if err != nil {
					b.Fatal(err)
				}
				return failing.([]string)
			}
			if got := slices.Sorted(slices.Values(eval())); !slices.Equal(got, wantFailing[name]) {
				b.Fatalf("CEL: failing rules %v, want %v", got, wantFailing[name])
			}
			b.ReportAllocs()
			for b.Loop() {
				eval()
			}
		})
	}
}

// benchPolicies are n copies of benchPolicy under their own names, loaded
// as the CLI loads them: the cost of many GuardPolicies on one kind.
func benchPolicies(b *testing.B, n int) []*v1alpha1.GuardPolicy {
	b.Helper()
	docs, err := manifest.Read(strings.NewReader(benchPolicy), "policy.yaml")
	if err != nil {
		b.Fatal(err)
	}
	gps, err := PoliciesFromDocuments(b.Context(), docs, nil)
	if err != nil || len(gps) != 1 {
		b.Fatalf("%v %v", err, gps)
	}
	out := make([]*v1alpha1.GuardPolicy, n)
	for i := range out {
		out[i] = gps[0].DeepCopy()
		out[i].Name = fmt.Sprintf("mysql-safety-%04d", i)
	}
	return out
}

// BenchmarkEvaluatePolicies is BenchmarkEvaluate's request decided by 1,
// 100 and 1,000 GuardPolicies that all match it.
func BenchmarkEvaluatePolicies(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		engine, err := NewEngine(nil, benchPolicies(b, n)...)
		if err != nil {
			b.Fatal(err)
		}
		for _, name := range []string{"good", "bad"} {
			b.Run(fmt.Sprintf("policies=%d/%s", n, name), func(b *testing.B) {
				req := benchRequest(b, benchObjects[name])
				res, err := engine.Evaluate(b.Context(), req)
				if err != nil {
					b.Fatal(err)
				}
				if got, want := len(res.Policies), n; got != want {
					b.Fatalf("%d policies matched, want %d", got, want)
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := engine.Evaluate(b.Context(), req); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkNewEngine is building the engine from 1, 100 and 1,000
// GuardPolicies: what a webhook pays on every policy change.
func BenchmarkNewEngine(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		gps := benchPolicies(b, n)
		b.Run(fmt.Sprintf("policies=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := NewEngine(nil, gps...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
