package auditor

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/go-logr/logr/testr"
	openreportsv1alpha1 "github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/yaml"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/audit"
	"github.com/crdguard/crdguard/pkg/manifest"
	"github.com/crdguard/crdguard/pkg/policies"
	crdschema "github.com/crdguard/crdguard/pkg/schema"
)

const widgetsCRD = "../../pkg/schema/testdata/widgets-crd.yaml"

var widgetsV1 = schema.GroupVersion{Group: "test.crdguard.dev", Version: "v1"}

const replicasPolicy = `
apiVersion: crdguard.dev/v1alpha1
kind: GuardPolicy
metadata: {name: replicas}
spec:
  match:
    resources: [{group: test.crdguard.dev, kinds: [Widget]}]
  rules:
  - name: at-most-five
    cel:
      expression: "object.spec.replicas <= 5"
      message: at most 5 replicas
      fieldPath: spec.replicas
`

// fixture is an Auditor over fake clients: the policy above, the widgets
// CRD, and the stored widgets given.
type fixture struct {
	auditor *Auditor
	writer  client.Client
	lists   *dynamicfake.FakeDynamicClient
}

func newFixture(t *testing.T, widgets ...*unstructured.Unstructured) *fixture {
	t.Helper()
	ctx := t.Context()
	registry, err := crdschema.RegistryFromFiles(ctx, widgetsCRD)
	if err != nil {
		t.Fatal(err)
	}
	policyObj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(replicasPolicy), &policyObj.Object); err != nil {
		t.Fatal(err)
	}
	compiled, err := policies.PoliciesFromDocuments(ctx, []manifest.Document{{Source: "test", Object: policyObj}}, registry)
	if err != nil {
		t.Fatal(err)
	}
	engine, err := policies.NewEngine(registry, compiled...)
	if err != nil {
		t.Fatal(err)
	}
	crds, err := crdsFromFile(t, widgetsCRD)
	if err != nil {
		t.Fatal(err)
	}

	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{apiextensionsv1.AddToScheme, v1alpha1.AddToScheme, openreportsv1alpha1.Install} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	cache := fake.NewClientBuilder().WithScheme(scheme).WithObjects(policyObj.DeepCopy(), crds[0]).Build()
	writer := fake.NewClientBuilder().WithScheme(scheme).WithObjects(policyObj.DeepCopy()).
		WithStatusSubresource(&v1alpha1.GuardPolicy{}).Build()

	objects := make([]runtime.Object, len(widgets))
	for i, w := range widgets {
		objects[i] = w
	}
	lists := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{widgetsV1.WithResource("widgets"): "WidgetList"}, objects...)
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{widgetsV1})
	mapper.Add(widgetsV1.WithKind("Widget"), meta.RESTScopeNamespace)

	return &fixture{
		auditor: &Auditor{
			Engines: staticEngine{engine},
			Cache:   cache,
			Mapper:  mapper,
			Lister:  &audit.Lister{Client: lists},
			Client:  writer,
			Metrics: NewMetrics(),
			Log:     testr.New(t),
		},
		writer: writer,
		lists:  lists,
	}
}

type staticEngine struct{ engine *policies.Engine }

func (s staticEngine) Load() *policies.Engine { return s.engine }

func crdsFromFile(t *testing.T, file string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	t.Helper()
	docs, err := manifest.ReadPaths(nil, filepath.Clean(file))
	if err != nil {
		return nil, err
	}
	return crdschema.CRDsFromDocuments(t.Context(), docs)
}

func storedWidget(namespace, name string, replicas int64) *unstructured.Unstructured {
	w := widget(namespace, name)
	w.SetAPIVersion(widgetsV1.String())
	w.Object["spec"] = map[string]any{"size": "small", "replicas": replicas}
	return w
}

// A run reports the failing objects, counts them in the policy's status and
// leaves the passing ones out.
func TestRun(t *testing.T) {
	f := newFixture(t, storedWidget("shop", "big", 7), storedWidget("shop", "small", 1), storedWidget("lab", "ok", 2))
	stats, err := f.auditor.Run(t.Context(), f.auditor.Engines.Load())
	if err != nil {
		t.Fatal(err)
	}
	if stats != (Stats{Objects: 3, Results: 1}) {
		t.Errorf("stats = %+v, want 3 objects, 1 result", stats)
	}
	report := &openreportsv1alpha1.Report{}
	if err := f.writer.Get(t.Context(), client.ObjectKey{Namespace: "shop", Name: ReportName}, report); err != nil {
		t.Fatal(err)
	}
	if len(report.Results) != 1 || report.Results[0].Subjects[0].Name != "big" || report.Results[0].Description != "spec.replicas: Invalid value: 7: at most 5 replicas" ||
		report.Results[0].Policy != "replicas" || report.Results[0].Rule != "at-most-five" || report.Results[0].Result != "fail" {
		t.Errorf("report results %+v", report.Results)
	}
	if err := f.writer.Get(t.Context(), client.ObjectKey{Namespace: "lab", Name: ReportName}, &openreportsv1alpha1.Report{}); err == nil {
		t.Error("a report for a namespace without findings")
	}
	policy := &v1alpha1.GuardPolicy{}
	if err := f.writer.Get(t.Context(), client.ObjectKey{Name: "replicas"}, policy); err != nil {
		t.Fatal(err)
	}
	if policy.Status == nil || policy.Status.Audit == nil || policy.Status.Audit.Violations != 1 || policy.Status.Audit.LastRunTime.IsZero() {
		t.Errorf("status %+v, want 1 violation and a last run time", policy.Status)
	}
}

// A run that cannot list every kind writes nothing: the reports of the last
// good run stay.
func TestRunListErrorKeepsReports(t *testing.T) {
	f := newFixture(t, storedWidget("shop", "big", 7))
	if _, err := f.auditor.Run(t.Context(), f.auditor.Engines.Load()); err != nil {
		t.Fatal(err)
	}
	f.lists.PrependReactor("list", "widgets", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("etcdserver: request timed out")
	})
	_, err := f.auditor.Run(t.Context(), f.auditor.Engines.Load())
	if err == nil || err.Error() != "listing test.crdguard.dev/v1, Resource=widgets: etcdserver: request timed out" {
		t.Errorf("error = %v", err)
	}
	report := &openreportsv1alpha1.Report{}
	if err := f.writer.Get(context.Background(), client.ObjectKey{Namespace: "shop", Name: ReportName}, report); err != nil || len(report.Results) != 1 {
		t.Errorf("report after a failed run: %d results, %v; want the last good run's", len(report.Results), err)
	}
}
