package webhook

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
)

func TestRoutingUnrouted(t *testing.T) {
	// Asked for no version in particular, a mapper answers its group versions.
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{{Group: "db.example.io", Version: "v1"}, {Version: "v1"}, {Group: "cache.example.io", Version: "v1"}})
	mapper.Add(schema.GroupVersionKind{Group: "db.example.io", Version: "v1", Kind: "MySQLCluster"}, meta.RESTScopeNamespace)
	mapper.Add(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, meta.RESTScopeNamespace)
	mapper.Add(schema.GroupVersionKind{Group: "cache.example.io", Version: "v1", Kind: "Redis"}, meta.RESTScopeNamespace)

	rule := func(group, resource string, ops ...admissionregistrationv1.OperationType) admissionregistrationv1.RuleWithOperations {
		return admissionregistrationv1.RuleWithOperations{Operations: ops, Rule: admissionregistrationv1.Rule{
			APIGroups: []string{group}, APIVersions: []string{"*"}, Resources: []string{resource}, Scope: ptr.To(admissionregistrationv1.NamespacedScope),
		}}
	}
	configuration := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "crdguard"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:         "validate.crdguard.dev",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: "crdguard", Name: "crdguard", Path: ptr.To("/validate")}},
			Rules: []admissionregistrationv1.RuleWithOperations{
				rule("db.example.io", "mysqlclusters", admissionregistrationv1.Create, admissionregistrationv1.Update),
				rule("cache.example.io", "*", admissionregistrationv1.OperationAll),
			},
		}, {
			// Another path routes nothing to /validate.
			Name:         "validate-policy.crdguard.dev",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://crdguard.example/validate-policy")},
			Rules:        []admissionregistrationv1.RuleWithOperations{rule("", "configmaps", admissionregistrationv1.OperationAll)},
		}},
	}
	r := &Routing{
		Reader:         fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).WithObjects(configuration).Build(),
		Mapper:         mapper,
		Configurations: []string{"crdguard"},
	}
	match := func(group string, kinds []string, ops ...v1alpha1.Operation) v1alpha1.Match {
		return v1alpha1.Match{Resources: []v1alpha1.ResourceMatch{{Group: group, Kinds: kinds}}, Operations: ops}
	}
	for _, tc := range []struct {
		name  string
		match v1alpha1.Match
		want  []string
	}{
		{"routed for the operations it matches", match("db.example.io", []string{"MySQLCluster"}, v1alpha1.Create, v1alpha1.Update), nil},
		{"an operation no rule routes", match("db.example.io", []string{"MySQLCluster"}), []string{"MySQLCluster.db.example.io v1 (DELETE)"}},
		{"a kind only another path routes", match("", []string{"ConfigMap"}), []string{"ConfigMap v1 (CREATE, UPDATE, DELETE)"}},
		{"a kind the cluster does not serve", match("db.example.io", []string{"MySQLBackup"}), []string{"MySQLBackup.db.example.io (not served)"}},
		{"every resource of a group", match("cache.example.io", []string{"Redis", "*"}), nil},
		{"every kind of a group no rule covers whole", match("db.example.io", []string{"*"}, v1alpha1.Create), []string{`every kind of group "db.example.io" (CREATE)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := r.Unrouted(t.Context(), tc.match)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Unrouted = %q, want %q", got, tc.want)
			}
		})
	}

	missing := &Routing{Reader: r.Reader, Mapper: mapper, Configurations: []string{"gone"}}
	if _, err := missing.Unrouted(t.Context(), match("", []string{"ConfigMap"})); err == nil || !strings.HasPrefix(err.Error(), "reading ValidatingWebhookConfiguration gone: ") {
		t.Errorf("a configuration that does not exist: %v", err)
	}
}

// countingReader counts the Get calls it passes on.
type countingReader struct {
	client.Reader
	gets int
}

func (c *countingReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	c.gets++
	return c.Reader.Get(ctx, key, obj, opts...)
}

// TestRoutingCollector: a scrape reads the configurations once, however
// many policies it reports, one series each.
func TestRoutingCollector(t *testing.T) {
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{{Version: "v1"}})
	mapper.Add(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, meta.RESTScopeNamespace)
	configuration := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "crdguard"}}
	reader := &countingReader{Reader: fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).WithObjects(configuration).Build()}
	var gps []*v1alpha1.GuardPolicy
	for _, name := range []string{"a", "b", "c"} {
		gps = append(gps, &v1alpha1.GuardPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: v1alpha1.GuardPolicySpec{
				Match: v1alpha1.Match{Resources: []v1alpha1.ResourceMatch{{Kinds: []string{"ConfigMap"}}}},
				Rules: []v1alpha1.Rule{{Name: "r", Deletion: &v1alpha1.DeletionRule{}}},
			},
		})
	}
	engine, err := policies.NewEngine(nil, gps...)
	if err != nil {
		t.Fatal(err)
	}
	c := &RoutingCollector{Routing: &Routing{Reader: reader, Mapper: mapper, Configurations: []string{"crdguard"}}, Engines: NewEngineHolder(engine)}
	want := `
# HELP crdguard_policy_unrouted_kinds Kinds (or kind versions) a loaded GuardPolicy matches that no ValidatingWebhookConfiguration of crdguard sends to it: the policy is not enforced on them.
# TYPE crdguard_policy_unrouted_kinds gauge
crdguard_policy_unrouted_kinds{policy="a"} 1
crdguard_policy_unrouted_kinds{policy="b"} 1
crdguard_policy_unrouted_kinds{policy="c"} 1
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
	if reader.gets != 1 {
		t.Errorf("read the configuration %d times in one scrape, want once", reader.gets)
	}
}
