package cluster

import (
	"testing"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/crdguard/crdguard/internal/mysqlexample"
	"github.com/crdguard/crdguard/internal/webhook"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/manifest"
	"github.com/crdguard/crdguard/pkg/policies"
	"github.com/crdguard/crdguard/pkg/schema"
)

// TestEnforcement: with the compiled policies installed (vap), the webhook
// leaves out exactly the rules `crdguard vap` compiles and enforces alone —
// of the example policy, production-replicas: it keeps the defaults, the
// deletion rule and the approvable Deny rules, whose approvals it records —
// and keeps the rest; webhook and both evaluate every rule.
func TestEnforcement(t *testing.T) {
	for _, tt := range []struct {
		enforcement Mode
		want        []string
	}{
		{ModeWebhook, every},
		{ModeBoth, every},
		{ModeVAP, approvable},
	} {
		t.Run(string(tt.enforcement), func(t *testing.T) {
			engine, stats, err := EngineFromFiles(t.Context(), []string{mysqlexample.Path("crd.yaml")}, []string{mysqlexample.Path("policy.yaml")}, tt.enforcement)
			if err != nil {
				t.Fatal(err)
			}
			if stats.Policies != 1 {
				t.Errorf("%d policies counted, want 1: the GuardPolicy is loaded whatever is enforced where", stats.Policies)
			}
			if diff := cmp.Diff(tt.want, unsafeFindings(t, engine)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSourceEnforcement: from the cluster, in vap mode, requests get
// the engine without the rules the compiled policies enforce alone, and AllRules (the background
// audit's) the one with every rule.
func TestSourceEnforcement(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	registry, err := schema.RegistryFromFiles(t.Context(), mysqlexample.Path("crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	objects := fake.NewClientBuilder().WithScheme(scheme).WithObjects(mysqlexample.StoredPolicy(t, "uid-a", 1, nil)).Build()
	source := &Source{
		Cache: fakeCache{objects: objects}, Schemas: registry, Log: logr.Discard(),
		Engines: &webhook.EngineHolder{}, Mode: ModeVAP, AllRules: &webhook.EngineHolder{},
	}
	if _, err := source.build(t.Context(), source.Cache); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(approvable, unsafeFindings(t, source.Engines.Load())); diff != "" {
		t.Errorf("admission engine findings (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(every, unsafeFindings(t, source.AllRules.Load())); diff != "" {
		t.Errorf("every-rule engine findings (-want +got):\n%s", diff)
	}
}

// every is what the example policy finds in unsafe.yaml, as rule and field.
var every = []string{"resources spec.resources.limits.memory", "image-version spec.image", "production-replicas spec.replicas"}

// approvable is what the example policy's approvable Deny rules find in
// unsafe.yaml.
var approvable = every[:2]

func unsafeFindings(t *testing.T, engine *policies.Engine) []string {
	t.Helper()
	docs, err := manifest.ReadFile(mysqlexample.Path("unsafe.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	obj := docs[0].Object
	res, err := engine.Evaluate(t.Context(), policies.Request{Operation: v1alpha1.Create, Object: obj, Namespace: obj.GetNamespace()})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range res.Violations {
		got = append(got, v.Rule+" "+v.Field)
	}
	return got
}

// Files that hold no GuardPolicy are an error naming the file, never an
// engine with no policies.
func TestEngineFromFilesWithoutPolicies(t *testing.T) {
	for _, path := range []string{mysqlexample.Path("good.yaml"), t.TempDir()} {
		_, _, err := EngineFromFiles(t.Context(), []string{mysqlexample.Path("crd.yaml")}, []string{path}, ModeWebhook)
		if err == nil || err.Error() != path+" holds no GuardPolicy" {
			t.Errorf("EngineFromFiles(%s) = %v, want %q", path, err, path+" holds no GuardPolicy")
		}
	}
	if _, _, err := EngineFromFiles(t.Context(), []string{mysqlexample.Path("good.yaml")}, []string{mysqlexample.Path("policy.yaml")}, ModeWebhook); err == nil || err.Error() != mysqlexample.Path("good.yaml")+" holds no CustomResourceDefinition" {
		t.Errorf("a --crds file without CRDs: %v", err)
	}
}
