package cluster

import (
	"context"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/crdguard/crdguard/internal/webhook"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies/vap"
)

func TestReadyCondition(t *testing.T) {
	gp := &v1alpha1.GuardPolicy{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
	errs := field.ErrorList{
		field.Invalid(field.NewPath("spec", "rules").Index(0).Child("cel", "expression"), "x >=", "compilation failed"),
		field.Required(field.NewPath("spec", "rules").Index(1).Child("name"), ""),
	}
	for _, tc := range []struct {
		name  string
		state LoadedPolicy
		want  metav1.Condition
	}{
		{"compiled", LoadedPolicy{Generation: 3, Policy: gp, PolicyGeneration: 3},
			metav1.Condition{Status: metav1.ConditionTrue, Reason: "Compiled", Message: "crdguard compiled generation 3 and enforces it"}},
		{"invalid, the last good generation kept", LoadedPolicy{Generation: 3, Errs: errs, Policy: gp, PolicyGeneration: 2},
			metav1.Condition{Status: metav1.ConditionFalse, Reason: "Invalid", Message: `generation 3 is invalid: spec.rules[0].cel.expression: Invalid value: "x >=": compilation failed; spec.rules[1].name: Required value; the last good generation, 2, is still enforced`}},
		{"never valid", LoadedPolicy{Generation: 3, Errs: errs[:1]},
			metav1.Condition{Status: metav1.ConditionFalse, Reason: "Invalid", Message: `generation 3 is invalid: spec.rules[0].cel.expression: Invalid value: "x >=": compilation failed; no generation of the policy was ever valid, so crdguard enforces none of it`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := readyCondition(tc.state)
			tc.want.Type, tc.want.ObservedGeneration = v1alpha1.ConditionReady, 3
			if got != tc.want {
				t.Errorf("readyCondition = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestLimitMessage(t *testing.T) {
	long := strings.Repeat("é", maxConditionMessage)
	got := limitMessage(long, "; tail")
	if len(got) > maxConditionMessage || !strings.HasSuffix(got, "é ...; tail") {
		t.Errorf("limitMessage: %d bytes ending %q, want at most %d ending in a whole rune, \" ...\" and the tail", len(got), got[len(got)-20:], maxConditionMessage)
	}
	if got := limitMessage("short", "; tail"); got != "short; tail" {
		t.Errorf("limitMessage = %q", got)
	}
}

// statusPolicy is a GuardPolicy of one cel rule, which compiles to one
// ValidatingAdmissionPolicy, for kinds of group.
func statusPolicy(group, kind string) *v1alpha1.GuardPolicy {
	return &v1alpha1.GuardPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "p", UID: "uid-p"},
		Spec: v1alpha1.GuardPolicySpec{
			Match:       v1alpha1.Match{Resources: []v1alpha1.ResourceMatch{{Group: group, Kinds: []string{kind}}}},
			Enforcement: v1alpha1.Deny,
			Rules:       []v1alpha1.Rule{{Name: "small", CEL: &v1alpha1.CELRule{Expression: "object.spec.size <= 3", Message: "at most 3"}}},
		},
	}
}

// routingConfiguration is the ValidatingWebhookConfiguration crdguard
// whose validate webhook routes every operation on resource of group.
func routingConfiguration(group, resource string) *admissionregistrationv1.ValidatingWebhookConfiguration {
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "crdguard"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:         ValidateWebhook,
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://crdguard.example/validate")},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{"*"}, Resources: []string{resource}},
			}},
		}},
	}
}

func TestEnforcedCondition(t *testing.T) {
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{{Group: "db.example.io", Version: "v1"}, {Version: "v1"}})
	mapper.Add(schema.GroupVersionKind{Group: "db.example.io", Version: "v1", Kind: "MySQLCluster"}, meta.RESTScopeNamespace)
	mapper.Add(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, meta.RESTScopeNamespace)
	configuration := routingConfiguration("db.example.io", "mysqlclusters")
	compiled, err := vap.Compile(statusPolicy("", "ConfigMap"), nil, vap.Findings)
	if err != nil {
		t.Fatal(err)
	}
	installedVAP, installedBinding := compiled.Policies[0], compiled.Bindings[0]
	otherBinding := installedBinding.DeepCopy()
	otherBinding.Spec.PolicyName = "something-else"

	const unroutedMsg = "ValidatingWebhookConfiguration crdguard sends crdguard no requests for v1/configmaps (CREATE, UPDATE, DELETE)"
	for _, tc := range []struct {
		name        string
		mode        Mode
		gp          *v1alpha1.GuardPolicy
		objects     []client.Object
		unreadable  bool
		wantStatus  metav1.ConditionStatus
		wantReason  string
		wantMessage string
	}{
		{"routed by the webhook", ModeWebhook, statusPolicy("db.example.io", "MySQLCluster"), nil, false,
			metav1.ConditionTrue, "Routed", "ValidatingWebhookConfiguration crdguard sends crdguard every kind and operation the policy matches"},
		{"not routed, nothing compiled installed", ModeWebhook, statusPolicy("", "ConfigMap"), nil, false,
			metav1.ConditionFalse, "NotRouted", unroutedMsg + "; no compiled ValidatingAdmissionPolicy stands in for rule small: ValidatingAdmissionPolicy crdguard-p-deny is not installed"},
		{"not routed, the compiled policy installed", ModeWebhook, statusPolicy("", "ConfigMap"), []client.Object{installedVAP, installedBinding}, false,
			metav1.ConditionTrue, "CompiledPolicies", "ValidatingAdmissionPolicies crdguard-p-deny and their bindings match them for rule small"},
		{"mode vap, installed", ModeVAP, statusPolicy("", "ConfigMap"), []client.Object{installedVAP, installedBinding}, false,
			metav1.ConditionTrue, "CompiledPolicies", "ValidatingAdmissionPolicies crdguard-p-deny and their bindings match them for rule small"},
		{"mode vap, routed but no binding", ModeVAP, statusPolicy("", "ConfigMap"), []client.Object{installedVAP}, false,
			metav1.ConditionFalse, "CompiledPoliciesMissing", "rule small is left to compiled ValidatingAdmissionPolicies (--enforcement=vap), and ValidatingAdmissionPolicyBinding crdguard-p-deny is not installed"},
		{"mode vap, a binding of another policy", ModeVAP, statusPolicy("", "ConfigMap"), []client.Object{installedVAP, otherBinding}, false,
			metav1.ConditionFalse, "CompiledPoliciesMissing", `rule small is left to compiled ValidatingAdmissionPolicies (--enforcement=vap), and ValidatingAdmissionPolicyBinding crdguard-p-deny binds "something-else", not crdguard-p-deny`},
		{"mode vap, a compiled policy for other kinds", ModeVAP, statusPolicy("db.example.io", "MySQLCluster"), []client.Object{installedVAP, installedBinding}, false,
			metav1.ConditionFalse, "CompiledPoliciesMissing", "rule small is left to compiled ValidatingAdmissionPolicies (--enforcement=vap), and ValidatingAdmissionPolicy crdguard-p-deny and its binding do not match db.example.io/v1/mysqlclusters (CREATE, UPDATE, DELETE)"},
		{"a kind no API serves", ModeWebhook, statusPolicy("db.example.io", "MySQLBackup"), []client.Object{installedVAP, installedBinding}, false,
			metav1.ConditionFalse, "NotRouted", "ValidatingWebhookConfiguration crdguard sends crdguard no requests for MySQLBackup.db.example.io (no API serves it); no compiled ValidatingAdmissionPolicy stands in for rule small: ValidatingAdmissionPolicy crdguard-p-deny and its binding do not match MySQLBackup.db.example.io (no API serves it)"},
		{"the configuration unreadable", ModeWebhook, statusPolicy("", "ConfigMap"), nil, true,
			metav1.ConditionUnknown, "CannotTell", "reading ValidatingWebhookConfiguration crdguard: boom; no compiled ValidatingAdmissionPolicy stands in for rule small: ValidatingAdmissionPolicy crdguard-p-deny is not installed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			builder := fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).WithObjects(append([]client.Object{configuration}, tc.objects...)...)
			if tc.unreadable {
				builder = builder.WithInterceptorFuncs(interceptor.Funcs{Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
					if _, ok := obj.(*admissionregistrationv1.ValidatingWebhookConfiguration); ok {
						return errBoom
					}
					return c.Get(ctx, key, obj, opts...)
				}})
			}
			reader := builder.Build()
			s := &PolicyStatus{Mode: tc.mode, Live: reader, Routing: &webhook.Routing{Reader: reader, Mapper: mapper, Configurations: []string{"crdguard"}}}
			checker := &enforcementChecker{status: s, loaded: &LoadedPolicies{}}
			checker.rules, checker.rulesErr = s.Routing.ValidateRules(t.Context())
			got := checker.condition(t.Context(), LoadedPolicy{UID: "uid-p", Generation: 4, Policy: tc.gp, PolicyGeneration: 4})
			want := metav1.Condition{Type: v1alpha1.ConditionEnforced, Status: tc.wantStatus, Reason: tc.wantReason, Message: tc.wantMessage, ObservedGeneration: 4}
			if got != want {
				t.Errorf("Enforced =\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

var errBoom = &boomError{}

type boomError struct{}

func (*boomError) Error() string { return "boom" }

// TestPolicyStatusWritesOnChange: a sync patches only the policies whose
// conditions change, only their conditions, and keeps a condition's
// lastTransitionTime while its status stays.
func TestPolicyStatusWritesOnChange(t *testing.T) {
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{{Version: "v1"}})
	mapper.Add(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, meta.RESTScopeNamespace)
	configuration := routingConfiguration("", "configmaps")
	stored := guardPolicyObject()
	stored.SetName("p")
	stored.SetUID("uid-p")
	stored.SetGeneration(1)
	if err := unstructured.SetNestedField(stored.Object, map[string]any{"violations": int64(3), "lastRunTime": "2026-01-02T03:04:05Z"}, "status", "audit"); err != nil {
		t.Fatal(err)
	}
	var patches []string
	c := fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).WithObjects(configuration, stored).WithStatusSubresource(stored).
		WithInterceptorFuncs(interceptor.Funcs{SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			data, _ := patch.Data(obj)
			patches = append(patches, string(data))
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		}}).Build()
	source := &Source{}
	source.book.loaded = &LoadedPolicies{Policies: map[string]LoadedPolicy{
		"p": {UID: "uid-p", Generation: 1, Policy: statusPolicy("", "ConfigMap"), PolicyGeneration: 1},
	}}
	s := &PolicyStatus{
		Source: source, Routing: &webhook.Routing{Reader: c, Mapper: mapper, Configurations: []string{"crdguard"}},
		Policies: c, Live: c, Writer: c, Limiter: flowcontrol.NewFakeAlwaysRateLimiter(),
	}
	if err := s.sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if len(patches) != 1 || strings.Contains(patches[0], "audit") || !strings.Contains(patches[0], `"resourceVersion"`) {
		t.Fatalf("first sync patched %q, want one patch of the conditions at the version read", patches)
	}
	first := readConditions(t, c)
	if audit, _, _ := unstructured.NestedInt64(readPolicy(t, c).Object, "status", "audit", "violations"); audit != 3 {
		t.Errorf("status.audit.violations = %d, want 3 kept", audit)
	}
	if err := s.sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if len(patches) != 1 {
		t.Errorf("a sync with nothing changed patched: %q", patches[1:])
	}

	// A new generation: observedGeneration moves, the status and so the
	// transition time stay.
	source.book.loaded.Policies["p"] = LoadedPolicy{UID: "uid-p", Generation: 2, Policy: statusPolicy("", "ConfigMap"), PolicyGeneration: 2}
	if err := s.sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if len(patches) != 2 {
		t.Fatalf("after a new generation %d patches, want 2", len(patches))
	}
	for _, c := range readConditions(t, c) {
		was := meta.FindStatusCondition(first, c.Type)
		if c.ObservedGeneration != 2 || was == nil || !c.LastTransitionTime.Equal(&was.LastTransitionTime) {
			t.Errorf("condition %+v after a new generation, was %+v: want observedGeneration 2 and the same lastTransitionTime", c, was)
		}
	}
}

func readPolicy(t *testing.T, c client.Reader) *unstructured.Unstructured {
	t.Helper()
	obj := guardPolicyObject()
	if err := c.Get(t.Context(), client.ObjectKey{Name: "p"}, obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

func readConditions(t *testing.T, c client.Reader) []metav1.Condition {
	t.Helper()
	conds, err := conditionsOf(readPolicy(t, c))
	if err != nil {
		t.Fatal(err)
	}
	if len(conds) != 2 {
		t.Fatalf("conditions %+v, want Ready and Enforced", conds)
	}
	return conds
}
