package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/zapr"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	"sigs.k8s.io/yaml"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// widgetCRD is the guarded CRD of these tests: widgets.test.example.io,
// labelled guard=yes, with spec.size (maximum 10), spec.mode (enum) and
// spec.note.
const widgetCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.test.example.io
  labels: {guard: "yes"}
spec:
  group: test.example.io
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, maximum: 10}
              mode: {type: string, enum: [fast, slow]}
              note: {type: string}
`

func widget(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict([]byte(widgetCRD), crd); err != nil {
		t.Fatal(err)
	}
	return crd
}

// specProp edits one property of spec in every version.
func specProp(crd *apiextensionsv1.CustomResourceDefinition, name string, fn func(p *apiextensionsv1.JSONSchemaProps, ok bool) *apiextensionsv1.JSONSchemaProps) *apiextensionsv1.CustomResourceDefinition {
	crd = crd.DeepCopy()
	for i := range crd.Spec.Versions {
		spec := crd.Spec.Versions[i].Schema.OpenAPIV3Schema.Properties["spec"]
		p, ok := spec.Properties[name]
		if np := fn(&p, ok); np == nil {
			delete(spec.Properties, name)
		} else {
			spec.Properties[name] = *np
		}
		crd.Spec.Versions[i].Schema.OpenAPIV3Schema.Properties["spec"] = spec
	}
	return crd
}

func removeNote(crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	return specProp(crd, "note", func(*apiextensionsv1.JSONSchemaProps, bool) *apiextensionsv1.JSONSchemaProps { return nil })
}

func addColor(crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	return specProp(crd, "color", func(*apiextensionsv1.JSONSchemaProps, bool) *apiextensionsv1.JSONSchemaProps {
		return &apiextensionsv1.JSONSchemaProps{Type: "string"}
	})
}

func setMaximum(crd *apiextensionsv1.CustomResourceDefinition, max float64) *apiextensionsv1.CustomResourceDefinition {
	return specProp(crd, "size", func(p *apiextensionsv1.JSONSchemaProps, _ bool) *apiextensionsv1.JSONSchemaProps {
		p.Maximum = &max
		return p
	})
}

func withApproval(crd *apiextensionsv1.CustomResourceDefinition, value string) *apiextensionsv1.CustomResourceDefinition {
	crd = crd.DeepCopy()
	if crd.Annotations == nil {
		crd.Annotations = map[string]string{}
	}
	crd.Annotations[v1alpha1.ApproveAnnotation] = value
	return crd
}

func crdRequest(t *testing.T, op admissionv1.Operation, user authenticationv1.UserInfo, obj, old *apiextensionsv1.CustomResourceDefinition) admission.Request {
	t.Helper()
	raw := func(crd *apiextensionsv1.CustomResourceDefinition) []byte {
		if crd == nil {
			return nil
		}
		out, err := json.Marshal(crd)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	gvk := metav1.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}
	name := ""
	if obj != nil {
		name = obj.Name
	} else if old != nil {
		name = old.Name
	}
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID: types.UID("uid-crd"), Kind: gvk, RequestKind: &gvk,
		Resource:  metav1.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"},
		Name:      name,
		Operation: op, UserInfo: user,
		Object: runtime.RawExtension{Raw: raw(obj)}, OldObject: runtime.RawExtension{Raw: raw(old)},
	}}
}

// widgetsResource is where the guard lists stored widgets.
var widgetsResource = k8sschema.GroupVersionResource{Group: "test.example.io", Version: "v1", Resource: "widgets"}

// storedWidgets is client-go's fake dynamic client holding objects as the
// stored widgets.
func storedWidgets(objects ...map[string]any) *dynamicfake.FakeDynamicClient {
	objs := make([]runtime.Object, len(objects))
	for i, o := range objects {
		objs[i] = &unstructured.Unstructured{Object: o}
	}
	return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[k8sschema.GroupVersionResource]string{widgetsResource: "WidgetList"}, objs...)
}

// lists are the list calls client received.
func lists(client *dynamicfake.FakeDynamicClient) []k8stesting.ListAction {
	var out []k8stesting.ListAction
	for _, a := range client.Actions() {
		if l, ok := a.(k8stesting.ListAction); ok {
			out = append(out, l)
		}
	}
	return out
}

func storedWidget(name string, size int64) map[string]any {
	return map[string]any{
		"apiVersion": "test.example.io/v1", "kind": "Widget",
		"metadata": map[string]any{"name": name, "namespace": "ns", "resourceVersion": "1", "uid": "u-" + name},
		"spec":     map[string]any{"size": size},
	}
}

func guard(client dynamic.Interface) *CRDGuard {
	return &CRDGuard{
		Selector:   labels.SelectorFromSet(labels.Set{"guard": "yes"}),
		Approvers:  v1alpha1.Approvers{Users: []string{"alice"}, Groups: []string{"platform"}, ServiceAccounts: []string{"ops/releaser"}},
		Client:     client,
		PageSize:   2,
		MaxObjects: 100,
		Timeout:    5 * time.Second,
	}
}

func causes(resp admission.Response) []metav1.StatusCause {
	if resp.Result == nil || resp.Result.Details == nil {
		return nil
	}
	return resp.Result.Details.Causes
}

func causeString(resp admission.Response) string {
	var b strings.Builder
	for _, c := range causes(resp) {
		fmt.Fprintf(&b, "%s: %s\n", c.Field, c.Message)
	}
	return b.String()
}

// wantDenied checks a 422 Invalid on the CRD with a cause at each path
// (prefix) whose message contains the text.
func wantDenied(t *testing.T, resp admission.Response, want map[string]string) {
	t.Helper()
	if resp.Allowed || resp.Result == nil || resp.Result.Code != http.StatusUnprocessableEntity || resp.Result.Reason != metav1.StatusReasonInvalid {
		t.Fatalf("response %+v, want 422 Invalid", resp.AdmissionResponse)
	}
	if d := resp.Result.Details; d == nil || d.Kind != "CustomResourceDefinition" || d.Group != "apiextensions.k8s.io" || d.Name != "widgets.test.example.io" {
		t.Errorf("details %+v, want CustomResourceDefinition widgets.test.example.io", resp.Result.Details)
	}
	for path, text := range want {
		found := false
		for _, c := range causes(resp) {
			if strings.HasPrefix(c.Field, path) && strings.Contains(c.Message, text) {
				found = true
			}
		}
		if !found {
			t.Errorf("no cause at %s containing %q in:\n%s", path, text, causeString(resp))
		}
	}
}

func wantAllowed(t *testing.T, resp admission.Response) {
	t.Helper()
	if !resp.Allowed {
		t.Fatalf("denied: %+v\n%s", resp.Result, causeString(resp))
	}
}

var (
	carol    = authenticationv1.UserInfo{Username: "carol", Groups: []string{"platform", "system:authenticated"}}
	releaser = authenticationv1.UserInfo{Username: "system:serviceaccount:ops:releaser", Groups: []string{"system:serviceaccounts", "system:serviceaccounts:ops", "system:authenticated"}}
	intruder = authenticationv1.UserInfo{Username: "system:serviceaccount:dev:releaser", Groups: []string{"system:serviceaccounts", "system:serviceaccounts:dev", "system:authenticated"}}
	noteGone = "spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.note"
)

func TestCRDGuardSelection(t *testing.T) {
	old := widget(t)
	unlabelled := old.DeepCopy()
	unlabelled.Labels = nil
	other := unlabelled.DeepCopy()
	other.Name = "gadgets.test.example.io"

	for _, tc := range []struct {
		name     string
		selector labels.Selector
		names    []string
		old      *apiextensionsv1.CustomResourceDefinition
		guarded  bool
	}{
		{"selector matches", labels.SelectorFromSet(labels.Set{"guard": "yes"}), nil, old, true},
		{"selector does not match", labels.SelectorFromSet(labels.Set{"guard": "yes"}), nil, unlabelled, false},
		{"name matches", nil, []string{"widgets.test.example.io"}, unlabelled, true},
		{"name does not match", nil, []string{"widgets.test.example.io"}, other, false},
		{"empty selector selects nothing", labels.Everything(), nil, old, false},
		{"neither", nil, nil, old, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := storedWidgets()
			g := guard(store)
			g.Selector, g.Names = tc.selector, tc.names
			v := &CRDValidator{Guard: g}
			resp := v.Handle(t.Context(), crdRequest(t, admissionv1.Update, bob, removeNote(tc.old), tc.old))
			if tc.guarded {
				wantDenied(t, resp, map[string]string{noteGone: "field-removed"})
			} else {
				wantAllowed(t, resp)
				if n := len(lists(store)); n != 0 {
					t.Errorf("listed %d times for an unguarded CRD", n)
				}
			}
		})
	}

	// Removing the label in the breaking update itself does not escape.
	t.Run("label removed by the update", func(t *testing.T) {
		v := &CRDValidator{Guard: guard(storedWidgets())}
		resp := v.Handle(t.Context(), crdRequest(t, admissionv1.Update, bob, removeNote(unlabelled), old))
		wantDenied(t, resp, map[string]string{noteGone: "field-removed"})
	})
}

func TestCRDGuardOtherOperations(t *testing.T) {
	store := storedWidgets()
	v := &CRDValidator{Guard: guard(store)}
	crd := widget(t)
	for _, req := range []admission.Request{
		crdRequest(t, admissionv1.Create, bob, crd, nil),
		crdRequest(t, admissionv1.Delete, bob, nil, crd),
	} {
		wantAllowed(t, v.Handle(t.Context(), req))
	}
	if n := len(lists(store)); n != 0 {
		t.Errorf("listed %d times for a create and a delete", n)
	}
}

func TestCRDGuardBreakingDenied(t *testing.T) {
	old := widget(t)
	narrowed := specProp(old, "mode", func(p *apiextensionsv1.JSONSchemaProps, _ bool) *apiextensionsv1.JSONSchemaProps {
		p.Enum = p.Enum[:1]
		return p
	})
	v := &CRDValidator{Guard: guard(storedWidgets())}
	resp := v.Handle(t.Context(), crdRequest(t, admissionv1.Update, bob, removeNote(narrowed), old))
	wantDenied(t, resp, map[string]string{
		noteGone: "v1: breaking change [field-removed]",
		"spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.mode": "enum-value-removed",
	})
	if !strings.Contains(resp.Result.Message, "slow") {
		t.Errorf("message %q does not show the removed enum value", resp.Result.Message)
	}
}

func TestCRDGuardSafeAllowed(t *testing.T) {
	store := storedWidgets(storedWidget("a", 3))
	v := &CRDValidator{Guard: guard(store)}
	old := widget(t)
	// A new optional field strands nothing: answered without listing.
	wantAllowed(t, v.Handle(t.Context(), crdRequest(t, admissionv1.Update, bob, addColor(old), old)))
	if n := len(lists(store)); n != 0 {
		t.Errorf("listed %d times for an update without a breaking change", n)
	}
	// Only a label: no schema changed, nothing to list.
	relabelled := old.DeepCopy()
	relabelled.Labels["team"] = "a"
	wantAllowed(t, v.Handle(t.Context(), crdRequest(t, admissionv1.Update, bob, relabelled, old)))
	if n := len(lists(store)); n != 0 {
		t.Errorf("listed %d times for an update that changes no schema", n)
	}
}

func TestCRDGuardDenialBounded(t *testing.T) {
	old := widget(t)
	for i := range 30 {
		old = specProp(old, fmt.Sprintf("f%02d", i), func(*apiextensionsv1.JSONSchemaProps, bool) *apiextensionsv1.JSONSchemaProps {
			return &apiextensionsv1.JSONSchemaProps{Type: "string", Description: strings.Repeat("long ", 200)}
		})
	}
	crd := old
	for i := range 30 {
		crd = specProp(crd, fmt.Sprintf("f%02d", i), func(*apiextensionsv1.JSONSchemaProps, bool) *apiextensionsv1.JSONSchemaProps { return nil })
	}
	v := &CRDValidator{Guard: guard(storedWidgets())}
	resp := v.Handle(t.Context(), crdRequest(t, admissionv1.Update, bob, crd, old))
	wantDenied(t, resp, nil)
	cs := causes(resp)
	if len(cs) != maxDenialCauses {
		t.Fatalf("%d causes, want %d:\n%s", len(cs), maxDenialCauses, causeString(resp))
	}
	last := cs[len(cs)-1]
	if last.Field != "spec" || !strings.Contains(last.Message, "21 more findings (in all: 30 breaking changes, 0 findings in 0 stored objects)") {
		t.Errorf("last cause %s: %s, want the count of the 21 others", last.Field, last.Message)
	}
	for _, c := range cs {
		if n := len([]rune(c.Message)); n > maxDetailRunes+len("Forbidden: ") {
			t.Errorf("cause of %d runes: %s", n, c.Message)
		}
	}
	if n := len(resp.Result.Message); n > 5000 {
		t.Errorf("message of %d bytes", n)
	}
}

// TestCRDGuardDenialLogBounded: the log line of a denial that strands many
// objects names a few and counts them all, as the denial does.
func TestCRDGuardDenialLogBounded(t *testing.T) {
	old := widget(t)
	var stored []map[string]any
	for i := range 50 {
		stored = append(stored, storedWidget(fmt.Sprintf("big-%02d", i), 8))
	}
	core, lines := observer.New(zapcore.InfoLevel)
	ctx := logf.IntoContext(t.Context(), zapr.NewLogger(zap.New(core)))
	v := &CRDValidator{Guard: guard(storedWidgets(stored...))}
	wantDenied(t, v.Handle(ctx, crdRequest(t, admissionv1.Update, alice, withApproval(setMaximum(old, 5), "maximum-changed: known"), old)), nil)

	denials := lines.FilterMessage("Denied a CRD update").All()
	if len(denials) != 1 {
		t.Fatalf("%d denial lines, want 1: %v", len(denials), lines.All())
	}
	fields := denials[0].ContextMap()
	if n := fields["invalidObjectCount"]; n != int64(50) {
		t.Errorf("invalidObjectCount = %#v, want 50", n)
	}
	objects, _ := fields["invalidObjects"].([]any)
	if len(objects) != maxDenialCauses || objects[len(objects)-1] != "41 more objects" {
		t.Errorf("invalidObjects has %d entries ending %#v, want %d ending \"41 more objects\"", len(objects), objects[len(objects)-1:], maxDenialCauses)
	}
}

func TestCRDGuardApproval(t *testing.T) {
	old := widget(t)
	const approve = "field-removed: the note field was never used"
	for _, tc := range []struct {
		name    string
		user    authenticationv1.UserInfo
		old     *apiextensionsv1.CustomResourceDefinition
		value   string
		allowed bool
		problem string
	}{
		{"approver user", alice, old, approve, true, ""},
		{"approver group", carol, old, approve, true, ""},
		{"approver service account", releaser, old, approve, true, ""},
		{"not an approver", bob, old, approve, false, "bob is not a CRD approver; only approvers may write crdguard.dev/approve"},
		{"service account of another namespace", intruder, old, approve, false, "system:serviceaccount:dev:releaser is not a CRD approver"},
		{"other check approved", alice, old, "enum-value-removed: wrong check", false, ""},
		{"malformed", alice, old, "field-removed", false, `crdguard.dev/approve must be "<check>[,<check>...]: <reason>", found "field-removed"`},
		{"stale approval", alice, withApproval(old, approve), approve, false, "unchanged"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := &CRDValidator{Guard: guard(storedWidgets())}
			resp := v.Handle(t.Context(), crdRequest(t, admissionv1.Update, tc.user, withApproval(removeNote(old), tc.value), tc.old))
			if tc.allowed {
				wantAllowed(t, resp)
				return
			}
			want := map[string]string{noteGone: "field-removed"}
			if tc.problem != "" {
				want["metadata.annotations[crdguard.dev/approve]"] = tc.problem
			}
			wantDenied(t, resp, want)
		})
	}

	// Writing an approval is approving: denied to a non-approver even on
	// an update it lifts nothing in. A malformed one is ignored, said so.
	safe := addColor(old)
	v := &CRDValidator{Guard: guard(storedWidgets())}
	resp := v.Handle(t.Context(), crdRequest(t, admissionv1.Update, bob, withApproval(safe, approve), old))
	wantDenied(t, resp, map[string]string{"metadata.annotations[crdguard.dev/approve]": "bob is not a CRD approver"})
	resp = v.Handle(t.Context(), crdRequest(t, admissionv1.Update, alice, withApproval(safe, "field-removed"), old))
	wantAllowed(t, resp)
	if want := []string{`ignored: crdguard.dev/approve must be "<check>[,<check>...]: <reason>", found "field-removed"`}; !slices.Equal(resp.Warnings, want) {
		t.Errorf("warnings %q, want %q", resp.Warnings, want)
	}
}

func TestCRDGuardStoredObjects(t *testing.T) {
	old := widget(t)
	store := storedWidgets(storedWidget("a", 3), storedWidget("b", 9), storedWidget("c", 1), storedWidget("d", 8), storedWidget("e", 2))
	v := &CRDValidator{Guard: guard(store)}
	lowered := setMaximum(old, 5)
	resp := v.Handle(t.Context(), crdRequest(t, admissionv1.Update, bob, lowered, old))
	schemaPath := "spec.versions[0].schema.openAPIV3Schema"
	wantDenied(t, resp, map[string]string{
		schemaPath + ".properties.spec.properties.size": "maximum-changed",
		schemaPath: "stored Widget ns/b: spec.size: ratchet-tolerated: ",
	})
	if msg := causeString(resp); !strings.Contains(msg, "Widget ns/d") || strings.Contains(msg, "Widget ns/a") {
		t.Errorf("want b and d named, not a:\n%s", msg)
	}
	// The changed version, in every namespace. The pages are audit.Lister's
	// (TestListerPages in test/e2e follows a real server's).
	if l := lists(store); len(l) != 1 || l[0].GetResource() != widgetsResource || l[0].GetNamespace() != "" {
		t.Errorf("list calls %+v, want one of %v in all namespaces", l, widgetsResource)
	}

	// Approving the diff check alone leaves the stored objects' denial.
	resp = v.Handle(t.Context(), crdRequest(t, admissionv1.Update, alice, withApproval(lowered, "maximum-changed: smaller widgets"), old))
	wantDenied(t, resp, map[string]string{schemaPath: "Widget ns/b"})
	for _, c := range causes(resp) {
		if strings.Contains(c.Message, "maximum-changed") {
			t.Errorf("approved change still denied: %s", c.Message)
		}
	}
	// Approving both lifts it, without listing.
	before := len(lists(store))
	wantAllowed(t, v.Handle(t.Context(), crdRequest(t, admissionv1.Update, alice, withApproval(lowered, "maximum-changed,stored-objects: smaller widgets"), old)))
	if n := len(lists(store)) - before; n != 0 {
		t.Errorf("listed %d times with stored-objects approved", n)
	}

	// Lowered to a value every object meets: only the diff's finding.
	resp = v.Handle(t.Context(), crdRequest(t, admissionv1.Update, bob, setMaximum(old, 9), old))
	wantDenied(t, resp, map[string]string{schemaPath + ".properties.spec.properties.size": "maximum-changed"})
	if msg := causeString(resp); strings.Contains(msg, "stored Widget") {
		t.Errorf("no object is invalid, yet:\n%s", msg)
	}
}

// TestCRDGuardStoredObjectsOnly: with the diff's finding approved, a stored
// object the new schema rejects still denies, on its own.
func TestCRDGuardStoredObjectsOnly(t *testing.T) {
	// The old CRD has no maximum on size; the new one adds one.
	old := specProp(widget(t), "size", func(p *apiextensionsv1.JSONSchemaProps, _ bool) *apiextensionsv1.JSONSchemaProps {
		p.Maximum = nil
		return p
	})
	store := storedWidgets(storedWidget("big", 50))
	v := &CRDValidator{Guard: guard(store)}
	resp := v.Handle(t.Context(), crdRequest(t, admissionv1.Update, alice, withApproval(setMaximum(old, 10), "maximum-changed: bounded"), old))
	wantDenied(t, resp, map[string]string{"spec.versions[0].schema.openAPIV3Schema": "stored Widget ns/big: spec.size: ratchet-tolerated"})
}

// TestCRDGuardStoredObjectFindings: each class of diff.Replay finding
// denies on its own, with the diff's findings approved, as one cause per
// finding at the version's schema naming the object, its field path and
// the class; approving stored-objects lifts it.
func TestCRDGuardStoredObjectFindings(t *testing.T) {
	old := widget(t)
	withNote := storedWidget("noted", 3)
	withNote["spec"].(map[string]any)["note"] = "keep me"
	legacy := storedWidget("legacy", 3)
	legacy["spec"].(map[string]any)["mode"] = "slow"
	// A root rule is re-evaluated on every update: ratcheting tolerates
	// nothing it rejects.
	rooted := old.DeepCopy()
	rooted.Spec.Versions[0].Schema.OpenAPIV3Schema.XValidations = apiextensionsv1.ValidationRules{{
		Rule: "!has(self.spec.mode) || self.spec.mode != 'slow'", FieldPath: ".spec.mode", Message: "slow mode is gone",
	}}
	const schemaPath = "spec.versions[0].schema.openAPIV3Schema"
	for _, tc := range []struct {
		name    string
		stored  map[string]any
		crd     *apiextensionsv1.CustomResourceDefinition
		approve string
		want    string
	}{{
		name: "rejected on update", stored: legacy, crd: rooted, approve: "validation-rules-changed",
		want: "Forbidden: stored Widget ns/legacy: spec.mode: rejected on update: the object's next write fails: Invalid value: slow mode is gone",
	}, {
		name: "ratchet-tolerated", stored: storedWidget("big", 8), crd: setMaximum(old, 5), approve: "maximum-changed",
		want: "Forbidden: stored Widget ns/big: spec.size: ratchet-tolerated: the object's next write passes only while this value is unchanged; changing it or re-creating the object fails: Invalid value: 8: spec.size in body should be less than or equal to 5",
	}, {
		name: "pruned", stored: withNote, crd: removeNote(old), approve: "field-removed",
		want: "Forbidden: stored Widget ns/noted: spec.note: pruned: the new schema does not declare this field, so the object's next write drops it",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			v := &CRDValidator{Guard: guard(storedWidgets(tc.stored, storedWidget("fine", 1)))}
			resp := v.Handle(t.Context(), crdRequest(t, admissionv1.Update, alice, withApproval(tc.crd, tc.approve+": known"), old))
			wantDenied(t, resp, nil)
			if cs := causes(resp); len(cs) != 1 || cs[0].Field != schemaPath || cs[0].Message != tc.want {
				t.Errorf("causes:\n%s\nwant one at %s: %s", causeString(resp), schemaPath, tc.want)
			}
			wantAllowed(t, v.Handle(t.Context(), crdRequest(t, admissionv1.Update, alice, withApproval(tc.crd, tc.approve+",stored-objects: known"), old)))
		})
	}
}

func TestCRDGuardListFailure(t *testing.T) {
	old := widget(t)
	store := storedWidgets()
	store.PrependReactor("list", "widgets", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("the server is on fire")
	})
	v := &CRDValidator{Guard: guard(store)}

	// The approved change's effect on the stored objects is unknown: a
	// denial that says why, whatever the failurePolicy, and names the
	// approval that skips the replay.
	req := crdRequest(t, admissionv1.Update, alice, withApproval(setMaximum(old, 5), "maximum-changed: smaller"), old)
	wantNotReplayed(t, v.Handle(t.Context(), req), "listing widgets.test.example.io: the server is on fire")

	// A known breaking change is denied for itself too.
	resp := v.Handle(t.Context(), crdRequest(t, admissionv1.Update, bob, setMaximum(old, 5), old))
	wantDenied(t, resp, map[string]string{
		"spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size": "maximum-changed",
		"spec.versions": "stored objects not replayed",
	})
}

// wantNotReplayed checks the denial of an approved update whose stored
// objects could not be replayed, for the reason why.
func wantNotReplayed(t *testing.T, resp admission.Response, why string) {
	t.Helper()
	wantDenied(t, resp, nil)
	want := metav1.StatusCause{
		Type: "FieldValueForbidden", Field: "spec.versions",
		Message: "Forbidden: " + oneLine("stored objects not replayed, so what the new schema does to them is unknown: "+why+"; approving stored-objects skips the replay"),
	}
	if cs := causes(resp); len(cs) != 1 || cs[0] != want {
		t.Errorf("causes:\n%s\nwant one: %s: %s", causeString(resp), want.Field, want.Message)
	}
}

func TestCRDGuardBounds(t *testing.T) {
	old := widget(t)
	approved := withApproval(setMaximum(old, 5), "maximum-changed: smaller")
	var objects []map[string]any
	for i := range 7 {
		objects = append(objects, storedWidget(fmt.Sprintf("w%d", i), 1))
	}

	t.Run("objects", func(t *testing.T) {
		g := guard(storedWidgets(objects...))
		g.MaxObjects = 6
		resp := (&CRDValidator{Guard: g}).Handle(t.Context(), crdRequest(t, admissionv1.Update, alice, approved, old))
		wantNotReplayed(t, resp, "widgets.test.example.io has more than 6 stored objects to replay; raise --crd-replay-max-objects, and --crd-replay-timeout with it")
		g.MaxObjects = 7
		wantAllowed(t, (&CRDValidator{Guard: g}).Handle(t.Context(), crdRequest(t, admissionv1.Update, alice, approved, old)))
	})

	t.Run("time", func(t *testing.T) {
		// The fake client cannot be interrupted: a list that takes longer
		// than the timeout, then the replay that must not start.
		store := storedWidgets(objects...)
		store.PrependReactor("list", "widgets", func(k8stesting.Action) (bool, runtime.Object, error) {
			time.Sleep(200 * time.Millisecond)
			return false, nil, nil
		})
		g := guard(store)
		g.Timeout = 50 * time.Millisecond
		start := time.Now()
		resp := (&CRDValidator{Guard: g}).Handle(t.Context(), crdRequest(t, admissionv1.Update, alice, approved, old))
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("took %s with a 50ms timeout", took)
		}
		wantNotReplayed(t, resp, "replaying widgets.test.example.io: context deadline exceeded (raise --crd-replay-timeout)")
	})
}

// TestCRDGuardReplaySlots: replays beyond --crd-replay-concurrency wait
// for a slot within the replay timeout, then deny; a slot freed lets the
// next one run.
func TestCRDGuardReplaySlots(t *testing.T) {
	old := widget(t)
	store := storedWidgets(storedWidget("a", 3))
	listing, unblock := make(chan struct{}), make(chan struct{})
	// The first list call holds its slot until unblocked. It waits to
	// be seen: the test may not be receiving yet when it starts.
	var lists atomic.Int32
	store.PrependReactor("list", "widgets", func(k8stesting.Action) (bool, runtime.Object, error) {
		if lists.Add(1) == 1 {
			listing <- struct{}{}
			<-unblock
		}
		return false, nil, nil
	})
	g := guard(store)
	g.Concurrency, g.Timeout = 1, 200*time.Millisecond
	v := &CRDValidator{Guard: g}
	req := crdRequest(t, admissionv1.Update, alice, withApproval(setMaximum(old, 5), "maximum-changed: smaller"), old)

	first := make(chan admission.Response)
	go func() { first <- v.Handle(context.Background(), req) }()
	<-listing
	wantNotReplayed(t, v.Handle(t.Context(), req), "waiting for a replay slot: context deadline exceeded (raise --crd-replay-concurrency)")
	close(unblock)
	<-first

	// The slot is free again.
	g.Timeout = 5 * time.Second
	wantAllowed(t, v.Handle(t.Context(), req))
}
