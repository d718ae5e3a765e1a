package cluster

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus/testutil"
	admissionv1 "k8s.io/api/admission/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache/informertest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllertest"

	"github.com/crdguard/crdguard/internal/mysqlexample"
	"github.com/crdguard/crdguard/internal/webhook"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/manifest"
	"github.com/crdguard/crdguard/pkg/policies"
	"github.com/crdguard/crdguard/pkg/schema"
)

func setEnforcement(value string) func(*unstructured.Unstructured) {
	return func(obj *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(obj.Object, value, "spec", "enforcement")
	}
}

func mysqlRegistry(t *testing.T) *schema.Registry {
	t.Helper()
	r, err := schema.RegistryFromFiles(t.Context(), mysqlexample.Path("crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// verdict is how the engine answers a create of unsafe.yaml: "denied",
// "warned" (allowed with the ratio finding as a warning) or "allowed".
func verdict(t *testing.T, engine *policies.Engine) string {
	t.Helper()
	resp := (&webhook.Validator{Engines: webhook.NewEngineHolder(engine)}).Handle(t.Context(), request(admissionv1.Create, bob, mysqlexample.JSON(t, "unsafe.yaml")))
	switch {
	case !resp.Allowed:
		return "denied"
	case slices.ContainsFunc(resp.Warnings, func(w string) bool { return strings.Contains(w, "limits.memory 8Gi") }):
		return "warned"
	}
	return "allowed"
}

// TestPolicyBookKeepsLastGood walks one policy through the versions a
// cluster might store: a new valid version replaces the old one, an
// invalid one never does, not even on later rebuilds, and a fix ends the
// problem.
func TestPolicyBookKeepsLastGood(t *testing.T) {
	registry := mysqlRegistry(t)
	var book policyBook
	type step struct {
		name     string
		obj      *unstructured.Unstructured
		verdict  string
		problems []PolicyProblem // Errs not compared
	}
	steps := []step{
		{name: "generation 1 denies", obj: mysqlexample.StoredPolicy(t, "uid-a", 1, nil), verdict: "denied"},
		{name: "generation 2 warns", obj: mysqlexample.StoredPolicy(t, "uid-a", 2, setEnforcement("Warn")), verdict: "warned"},
		{
			name: "generation 3 is invalid: generation 2 stays", obj: mysqlexample.StoredPolicy(t, "uid-a", 3, mysqlexample.BreakCEL), verdict: "warned",
			problems: []PolicyProblem{{Name: "mysql-safety", Generation: 3, KeptGeneration: 2}},
		},
		{
			name: "a rebuild for another reason keeps generation 2", obj: mysqlexample.StoredPolicy(t, "uid-a", 3, mysqlexample.BreakCEL), verdict: "warned",
			problems: []PolicyProblem{{Name: "mysql-safety", Generation: 3, KeptGeneration: 2}},
		},
		{name: "generation 4 fixes it", obj: mysqlexample.StoredPolicy(t, "uid-a", 4, setEnforcement("Deny")), verdict: "denied"},
	}
	for _, s := range steps {
		engine, stats, problems, err := book.build(t.Context(), registry, []*unstructured.Unstructured{s.obj})
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := verdict(t, engine); got != s.verdict {
			t.Errorf("%s: unsafe.yaml %s, want %s", s.name, got, s.verdict)
		}
		if stats.Policies != 1 || stats.Schemas != 1 {
			t.Errorf("%s: stats %+v, want 1 policy and 1 schema", s.name, stats)
		}
		if len(problems) != len(s.problems) {
			t.Fatalf("%s: problems %+v, want %+v", s.name, problems, s.problems)
		}
		for i, p := range problems {
			want := s.problems[i]
			if p.Name != want.Name || p.Generation != want.Generation || p.KeptGeneration != want.KeptGeneration {
				t.Errorf("%s: problem %+v, want %+v", s.name, p, want)
			}
			// The error names the field, for the log line.
			if !strings.Contains(p.Errs.ToAggregate().Error(), "spec.rules[5].cel.expression") {
				t.Errorf("%s: errors %v do not name spec.rules[5].cel.expression", s.name, p.Errs)
			}
		}
	}
}

// TestPolicyBookForgets: the last good version belongs to one object. A
// policy that is deleted, or deleted and created again under the same
// name, does not come back when its successor is invalid.
func TestPolicyBookForgets(t *testing.T) {
	registry := mysqlRegistry(t)
	for _, tt := range []struct {
		name    string
		between []*unstructured.Unstructured // what the cluster holds in between
		then    *unstructured.Unstructured
	}{{
		name: "recreated under the same name",
		then: mysqlexample.StoredPolicy(t, "uid-b", 1, mysqlexample.BreakCEL),
	}, {
		name:    "deleted",
		between: nil,
		then:    mysqlexample.StoredPolicy(t, "uid-a", 2, mysqlexample.BreakCEL),
	}} {
		t.Run(tt.name, func(t *testing.T) {
			var book policyBook
			if _, _, _, err := book.build(t.Context(), registry, []*unstructured.Unstructured{mysqlexample.StoredPolicy(t, "uid-a", 1, nil)}); err != nil {
				t.Fatal(err)
			}
			if tt.name == "deleted" {
				if _, _, _, err := book.build(t.Context(), registry, tt.between); err != nil {
					t.Fatal(err)
				}
			}
			engine, stats, problems, err := book.build(t.Context(), registry, []*unstructured.Unstructured{tt.then})
			if err != nil {
				t.Fatal(err)
			}
			if stats.Policies != 0 || verdict(t, engine) != "allowed" {
				t.Errorf("the old policy came back: %d policies, unsafe.yaml %s", stats.Policies, verdict(t, engine))
			}
			if len(problems) != 1 || problems[0].KeptGeneration != 0 {
				t.Errorf("problems %+v, want mysql-safety with nothing kept", problems)
			}
		})
	}
}

// TestPolicyBookOneBadPolicy: an invalid policy does not keep the others
// out, and a policy with no good version is left out rather than failing
// the build.
func TestPolicyBookOneBadPolicy(t *testing.T) {
	other := mysqlexample.StoredPolicy(t, "uid-o", 1, func(obj *unstructured.Unstructured) {
		obj.SetName("other")
		mysqlexample.BreakCEL(obj)
	})
	var book policyBook
	engine, stats, problems, err := book.build(t.Context(), mysqlRegistry(t), []*unstructured.Unstructured{mysqlexample.StoredPolicy(t, "uid-a", 1, nil), other})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Policies != 1 || verdict(t, engine) != "denied" {
		t.Errorf("%d policies, unsafe.yaml %s; want mysql-safety alone, denying", stats.Policies, verdict(t, engine))
	}
	if len(problems) != 1 || problems[0].Name != "other" {
		t.Errorf("problems %+v, want other", problems)
	}

	m := NewMetrics()
	m.setInvalidPolicies(problems)
	if got := testutil.ToFloat64(m.invalid.WithLabelValues("other")); got != 1 {
		t.Errorf(`crdguard_policy_invalid{policy="other"} = %v, want 1`, got)
	}
	m.setInvalidPolicies(nil)
	if got := testutil.CollectAndCount(m.invalid); got != 0 {
		t.Errorf("crdguard_policy_invalid has %d series after the fix, want none", got)
	}
}

// TestDebounce: a burst of changes is one rebuild; a change after it is
// another.
// TestDebounce runs in a synctest bubble, whose clock moves only when
// every goroutine waits, so a loaded machine cannot split the burst.
func TestDebounce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		changed := make(chan struct{}, 1)
		var rebuilds atomic.Int32
		done := make(chan struct{})
		go func() {
			defer close(done)
			debounce(ctx, changed, 50*time.Millisecond, func() { rebuilds.Add(1) })
		}()
		notify := func() {
			select {
			case changed <- struct{}{}:
			default:
			}
		}
		for range 20 {
			notify()
			time.Sleep(time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond)
		synctest.Wait()
		if n := rebuilds.Load(); n != 1 {
			t.Errorf("%d rebuilds for one burst, want 1", n)
		}
		notify()
		time.Sleep(100 * time.Millisecond)
		synctest.Wait()
		if n := rebuilds.Load(); n != 2 {
			t.Errorf("%d rebuilds after a second change, want 2", n)
		}
		cancel()
		<-done
	})
}

// fakeCache is informertest's cache, whose informers a test drives, with
// List served from a fake client holding what the cluster holds.
type fakeCache struct {
	*informertest.FakeInformers
	objects client.Client
}

func (c fakeCache) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	return c.objects.List(ctx, list, opts...)
}

// TestSource drives Source.Start through its informers: no
// engine (so /readyz fails) until every informer has synced, then the
// cluster's policy; an edit is applied; an invalid edit is reported and
// does not replace the last good version.
func TestSource(t *testing.T) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{apiextensionsv1.AddToScheme, v1alpha1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	docs, err := manifest.ReadFile(mysqlexample.Path("crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	crds, err := schema.CRDsFromDocuments(t.Context(), docs)
	if err != nil {
		t.Fatal(err)
	}
	policy := mysqlexample.StoredPolicy(t, "uid-a", 1, nil)
	objects := fake.NewClientBuilder().WithScheme(scheme).WithObjects(crds[0], policy.DeepCopy()).Build()

	policyGVK := v1alpha1.GroupVersion.WithKind("GuardPolicy")
	crdGVK := apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition")
	policyInformer, crdInformer := controllertest.NewFakeInformer(), controllertest.NewFakeInformer()
	informers := &informertest.FakeInformers{Scheme: scheme, InformersByGVK: map[k8sschema.GroupVersionKind]toolscache.SharedIndexInformer{
		policyGVK: policyInformer, crdGVK: crdInformer,
	}}
	metrics := NewMetrics()
	holder := &webhook.EngineHolder{}
	source := &Source{
		Cache: fakeCache{FakeInformers: informers, objects: objects}, Engines: holder, Metrics: metrics,
		Log: logr.Discard(), Debounce: 10 * time.Millisecond,
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- source.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Start: %v", err)
		}
	})

	waitFor := func(what string, cond func() bool) {
		t.Helper()
		if err := wait.PollUntilContextTimeout(t.Context(), 5*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
			return cond(), nil
		}); err != nil {
			t.Fatalf("%s: never happened", what)
		}
	}

	// One informer synced is not enough. Proving that nothing happens
	// takes a wait: three of WaitForCacheSync's 100ms polls.
	policyInformer.Synced()
	time.Sleep(300 * time.Millisecond)
	if holder.Ready() {
		t.Fatal("an engine was stored before the CRD informer synced")
	}
	crdInformer.Synced()
	waitFor("the first engine", holder.Ready)
	if got := verdict(t, holder.Load()); got != "denied" {
		t.Fatalf("the first engine: unsafe.yaml %s, want denied by the cluster's policy", got)
	}

	// store changes the cluster's copy and tells the informer, as the API
	// server's watch would.
	store := func(obj *unstructured.Unstructured) {
		t.Helper()
		old := &unstructured.Unstructured{}
		old.SetGroupVersionKind(policyGVK)
		if err := objects.Get(t.Context(), client.ObjectKeyFromObject(obj), old); err != nil {
			t.Fatal(err)
		}
		obj.SetResourceVersion(old.GetResourceVersion())
		if err := objects.Update(t.Context(), obj.DeepCopy()); err != nil {
			t.Fatal(err)
		}
		policyInformer.Update(old, obj)
	}
	store(mysqlexample.StoredPolicy(t, "uid-a", 2, setEnforcement("Warn")))
	waitFor("the Warn edit applied", func() bool { return verdict(t, holder.Load()) == "warned" })

	store(mysqlexample.StoredPolicy(t, "uid-a", 3, mysqlexample.BreakCEL))
	// Three builds: the first and one per edit. The counter moves last in
	// a rebuild, so once it is 3 the third build is complete.
	waitFor("the invalid edit processed", func() bool {
		return testutil.ToFloat64(metrics.builds.WithLabelValues("success")) == 3
	})
	if got := testutil.ToFloat64(metrics.invalid.WithLabelValues("mysql-safety")); got != 1 {
		t.Errorf(`crdguard_policy_invalid{policy="mysql-safety"} = %v, want 1`, got)
	}
	if got := verdict(t, holder.Load()); got != "warned" {
		t.Errorf("after the invalid edit: unsafe.yaml %s, want warned by the last good version", got)
	}
}

// TestPolicyBookDecodesChangesOnly: a rebuild validates against the
// GuardPolicy CRD only the stored versions it has not seen, and a new
// version of a policy is validated again.
func TestPolicyBookDecodesChangesOnly(t *testing.T) {
	registry := mysqlRegistry(t)
	var book policyBook
	build := func(objs ...*unstructured.Unstructured) *LoadedPolicies {
		t.Helper()
		if _, _, _, err := book.build(t.Context(), registry, objs); err != nil {
			t.Fatal(err)
		}
		return book.loaded
	}
	first := build(mysqlexample.StoredPolicy(t, "uid-a", 1, nil))
	again := build(mysqlexample.StoredPolicy(t, "uid-a", 1, nil))
	if again.Policies["mysql-safety"].Policy != first.Policies["mysql-safety"].Policy {
		t.Error("a rebuild decoded an unchanged stored version again")
	}
	changed := mysqlexample.StoredPolicy(t, "uid-a", 1, setEnforcement("Warn"))
	changed.SetResourceVersion("2")
	after := build(changed)
	if got := after.Policies["mysql-safety"].Policy; got == first.Policies["mysql-safety"].Policy || got.Spec.Enforcement != "Warn" {
		t.Errorf("a new stored version was not decoded: enforcement %q", got.Spec.Enforcement)
	}
}
