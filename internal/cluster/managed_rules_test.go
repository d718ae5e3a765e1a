package cluster

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/crdguard/crdguard/pkg/webhookrules"
)

// managedFixture is a ManagedRules for examples/mysql's policy on a fake
// API server holding the two configurations as the chart renders them:
// the policy webhooks without rules, next to validate-policy.
type managedFixture struct {
	rules   *ManagedRules
	client  client.Client
	patches int
	reg     *prometheus.Registry
}

func newManagedFixture(t *testing.T) *managedFixture {
	t.Helper()
	scope := admissionregistrationv1.ClusterScope
	policyRule := []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{"crdguard.dev"}, APIVersions: []string{"*"}, Resources: []string{"guardpolicies"}, Scope: &scope},
	}}
	validating := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "crdguard"},
		Webhooks:   []admissionregistrationv1.ValidatingWebhook{{Name: "validate-policy.crdguard.dev", Rules: policyRule}, {Name: ValidateWebhook}},
	}
	mutating := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "crdguard"},
		Webhooks:   []admissionregistrationv1.MutatingWebhook{{Name: MutateWebhook}},
	}
	scheme := runtime.NewScheme()
	if err := admissionregistrationv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	f := &managedFixture{reg: prometheus.NewPedanticRegistry()}
	f.client = fake.NewClientBuilder().WithScheme(scheme).WithObjects(validating, mutating).
		WithInterceptorFuncs(interceptor.Funcs{Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			f.patches++
			return c.Patch(ctx, obj, patch, opts...)
		}}).Build()
	metrics := NewMetrics()
	if err := metrics.Register(f.reg); err != nil {
		t.Fatal(err)
	}
	holder := engines(t)
	f.rules = &ManagedRules{
		Engines: holder, Mapper: webhookrules.OfflineMapper(holder.Load().Schemas()), Reader: f.client, Writer: f.client,
		Validating: "crdguard", Mutating: "crdguard", Metrics: metrics, Log: logr.Discard(),
	}
	return f
}

// written reads both configurations back.
func (f *managedFixture) written(t *testing.T) (*admissionregistrationv1.ValidatingWebhookConfiguration, *admissionregistrationv1.MutatingWebhookConfiguration) {
	t.Helper()
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	m := &admissionregistrationv1.MutatingWebhookConfiguration{}
	if err := f.client.Get(t.Context(), client.ObjectKey{Name: "crdguard"}, v); err != nil {
		t.Fatal(err)
	}
	if err := f.client.Get(t.Context(), client.ObjectKey{Name: "crdguard"}, m); err != nil {
		t.Fatal(err)
	}
	return v, m
}

// mysqlRules are the rules of examples/mysql's policy: every operation
// for /validate, CREATE and UPDATE for /mutate (defaults, approvers).
func mysqlRules(ops ...admissionregistrationv1.OperationType) []admissionregistrationv1.RuleWithOperations {
	all := admissionregistrationv1.AllScopes
	return []admissionregistrationv1.RuleWithOperations{{
		Operations: ops,
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{"db.example.io"}, APIVersions: []string{"*"}, Resources: []string{"mysqlclusters"}, Scope: &all},
	}}
}

func TestManagedRulesWritesOnlyTheRules(t *testing.T) {
	f := newManagedFixture(t)
	ctx := t.Context()
	if err := f.rules.Ready(ctx); err == nil || err.Error() != "the rules of webhook validate.crdguard.dev of ValidatingWebhookConfiguration crdguard are not written yet" {
		t.Errorf("Ready before the first write = %v, want the rules not written yet", err)
	}
	before, _ := f.written(t)

	start := time.Now().Unix()
	if err := f.rules.update(ctx); err != nil {
		t.Fatal(err)
	}
	v, m := f.written(t)
	if diff := cmp.Diff(mysqlRules(admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete), v.Webhooks[1].Rules); diff != "" {
		t.Errorf("validate.crdguard.dev rules (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(mysqlRules(admissionregistrationv1.Create, admissionregistrationv1.Update), m.Webhooks[0].Rules); diff != "" {
		t.Errorf("mutate.crdguard.dev rules (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before.Webhooks[0], v.Webhooks[0]); diff != "" {
		t.Errorf("validate-policy.crdguard.dev changed (-before +after):\n%s", diff)
	}
	if f.patches != 2 {
		t.Errorf("%d patches, want 2: one per configuration", f.patches)
	}
	if err := f.rules.Ready(ctx); err != nil {
		t.Errorf("Ready after the write: %v", err)
	}
	if got := testutil.ToFloat64(f.rules.Metrics.rulesSynced); got < float64(start) {
		t.Errorf("crdguard_webhook_rules_last_sync_timestamp_seconds = %v, want at least %d", got, start)
	}

	// Current rules are not written again.
	if err := f.rules.update(ctx); err != nil {
		t.Fatal(err)
	}
	if f.patches != 2 {
		t.Errorf("%d patches after a sync with nothing to change, want still 2", f.patches)
	}
}

// TestManagedRulesKeepsLastGoodRules: rules that cannot be computed are
// never written; the last written ones stay and the failure is counted.
func TestManagedRulesKeepsLastGoodRules(t *testing.T) {
	f := newManagedFixture(t)
	ctx := t.Context()
	if err := f.rules.update(ctx); err != nil {
		t.Fatal(err)
	}
	good, _ := f.written(t)

	// A cluster that serves no MySQLClusters (their CRD gone, say).
	f.rules.Mapper = meta.NewDefaultRESTMapper(nil)
	err := f.rules.update(ctx)
	if err == nil || !strings.Contains(err.Error(), "GuardPolicy mysql-safety: kind MySQLCluster.db.example.io has no resource") {
		t.Fatalf("update with an unmapped kind = %v, want the policy and kind named", err)
	}
	v, m := f.written(t)
	if diff := cmp.Diff(good.Webhooks, v.Webhooks); diff != "" {
		t.Errorf("the validating rules changed on an error (-good +now):\n%s", diff)
	}
	if len(m.Webhooks[0].Rules) != 1 || f.patches != 2 {
		t.Errorf("mutate.crdguard.dev rules %+v after %d patches; want the last good rules, nothing written since", m.Webhooks[0].Rules, f.patches)
	}
	want := `
# HELP crdguard_webhook_rules_sync_errors_total Failed attempts of the elected replica to compute or write the rules of its webhooks (--manage-webhook-rules); the last written rules stay. The logs say why.
# TYPE crdguard_webhook_rules_sync_errors_total counter
crdguard_webhook_rules_sync_errors_total 1
`
	if err := testutil.GatherAndCompare(f.reg, strings.NewReader(want), "crdguard_webhook_rules_sync_errors_total"); err != nil {
		t.Error(err)
	}
}

// TestManagedRulesMissingWebhook: a configuration without its webhook is
// an error naming both, and nothing is written.
func TestManagedRulesMissingWebhook(t *testing.T) {
	f := newManagedFixture(t)
	ctx := t.Context()
	m := &admissionregistrationv1.MutatingWebhookConfiguration{}
	if err := f.client.Get(ctx, client.ObjectKey{Name: "crdguard"}, m); err != nil {
		t.Fatal(err)
	}
	m.Webhooks[0].Name = "other.example.io"
	if err := f.client.Update(ctx, m); err != nil {
		t.Fatal(err)
	}
	err := f.rules.update(ctx)
	if err == nil || err.Error() != "MutatingWebhookConfiguration crdguard has no webhook mutate.crdguard.dev" {
		t.Errorf("update = %v, want the missing webhook named", err)
	}
	// The validating configuration, first, is written; the mutating one
	// is not touched.
	if f.patches != 1 {
		t.Errorf("%d patches, want 1", f.patches)
	}
	if err := f.rules.Ready(ctx); err == nil {
		t.Error("Ready with a configuration that lacks its webhook")
	}
}

// The patch sets the rules of one webhook only if the configuration is
// still the version read and the webhook still at its index.
func TestRulesPatch(t *testing.T) {
	obj := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "crdguard", ResourceVersion: "42"}}
	got, err := rulesPatch(obj, 1, ValidateWebhook, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"op":"test","path":"/metadata/resourceVersion","value":"42"},{"op":"test","path":"/webhooks/1/name","value":"validate.crdguard.dev"},{"op":"add","path":"/webhooks/1/rules","value":[]}]`
	if string(got) != want {
		t.Errorf("rulesPatch =\n%s\nwant\n%s", got, want)
	}
	obj.ResourceVersion = ""
	if _, err := rulesPatch(obj, 1, ValidateWebhook, nil); err == nil || err.Error() != "the configuration has no resourceVersion" {
		t.Errorf("rulesPatch without a resourceVersion = %v", err)
	}
}
