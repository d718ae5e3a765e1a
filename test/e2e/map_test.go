package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// The MutatingAdmissionPolicy parity test installs the mutating policies
// `crdguard vap` compiles from defaults rules on kube-apiserver, alone,
// and sends each case's object unpatched: the object the server would
// store must equal the object with the patches `crdguard validate
// --show-patches` reports, which are the mutating webhook's.

const mapSentinelLabel = "crdguard.dev/parity-sentinel"

func TestMAPParity(t *testing.T) {
	var cases []vapParityCase
	for _, c := range vapParityCases(t) {
		if c.operation != v1alpha1.Delete && len(c.mutatingPolicies(t)) > 0 {
			cases = append(cases, c)
		}
	}
	crdFile := installParityCRDs(t, cases)
	patched := 0
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			engine := c.crdguardSide(t, crdFile)
			got, err := c.mutatedByServer(t, i)
			if engine.schemaDenied {
				// The schema's errors, compared by the VAP parity test.
				if !apierrors.IsInvalid(err) {
					t.Errorf("crdguard found schema errors, the server answered %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", c.operation, err)
			}
			// What the request sent and the server keeps, numbers decoded
			// alike; metadata is the server's to fill.
			want := jsonRoundTrip(t, applyParityPatches(t, c.object, engine.patches))
			got = jsonRoundTrip(t, got)
			for _, o := range []*unstructured.Unstructured{want, got} {
				delete(o.Object, "metadata")
			}
			if diff := cmp.Diff(want.Object, got.Object); diff != "" {
				t.Errorf("stored object differs from crdguard's patches %v (-crdguard +server):\n%s", engine.patches, diff)
			}
			if len(engine.patches) > 0 {
				patched++
			}
		})
	}
	t.Logf("%d requests compared, %d patched", len(cases), patched)
	if len(cases) < 10 || patched < 6 {
		t.Errorf("only %d requests, %d patched: the cases test too little", len(cases), patched)
	}
}

// jsonRoundTrip is o decoded from its JSON, numbers as float64.
func jsonRoundTrip(t *testing.T, o *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	data, err := json.Marshal(o.Object)
	if err != nil {
		t.Fatal(err)
	}
	out := &unstructured.Unstructured{}
	if err := json.Unmarshal(data, &out.Object); err != nil {
		t.Fatal(err)
	}
	return out
}

// mutatingPolicies are the case's compiled MutatingAdmissionPolicies and
// their bindings.
func (c *vapParityCase) mutatingPolicies(t *testing.T) []client.Object {
	t.Helper()
	var objs []client.Object
	_, compiled := c.compiledRules(t)
	for _, comp := range compiled {
		if comp.Mutating != nil {
			objs = append(objs, comp.Mutating.DeepCopy(), comp.MutatingBinding.DeepCopy())
		}
	}
	return objs
}

// mutatedByServer installs the case's mutating policies and returns the
// object as the server would store it (a dry run).
func (c *vapParityCase) mutatedByServer(t *testing.T, index int) (*unstructured.Unstructured, error) {
	t.Helper()
	stored := c.storeOld(t)
	installMutating(t, index, c.mutatingPolicies(t))
	client := parityClient(dynamicClient(t, nil), c.object)
	obj := c.object.DeepCopy()
	var out *unstructured.Unstructured
	// A mutating policy reads a new CRD's schema, which the server may
	// not have yet: it says so, and a retry succeeds.
	err := wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
		switch c.operation {
		case v1alpha1.Create:
			out, err = client.Create(ctx, obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		case v1alpha1.Update:
			obj.SetResourceVersion(stored.GetResourceVersion())
			out, err = client.Update(ctx, obj, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
		}
		if err != nil && strings.Contains(err.Error(), "There can be a delay between when CustomResourceDefinitions are created and when they are available") {
			return false, nil
		}
		return true, err
	})
	return out, err
}

// installMutating creates the policies and bindings, and a sentinel policy
// after them that labels a ConfigMap, and waits until the server applies
// them.
func installMutating(t *testing.T, index int, objs []client.Object) {
	t.Helper()
	sentinel := fmt.Sprintf("crdguard-map-sentinel-%d", index)
	objs = append(objs,
		&admissionregistrationv1.MutatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: sentinel},
			Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
				FailurePolicy:    ptrTo(admissionregistrationv1.Fail),
				MatchConstraints: sentinelMatch(sentinel),
				Mutations: []admissionregistrationv1.Mutation{{
					PatchType: admissionregistrationv1.PatchTypeApplyConfiguration,
					ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{
						Expression: fmt.Sprintf(`Object{metadata: Object.metadata{labels: {%q: "applied"}}}`, mapSentinelLabel),
					},
				}},
				ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
			},
		},
		&admissionregistrationv1.MutatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: sentinel},
			Spec:       admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: sentinel},
		})
	installUntil(t, objs, func(ctx context.Context) bool {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: sentinel, Namespace: "default"}}
		return cluster.client.Create(ctx, cm, client.DryRunAll) == nil && cm.Labels[mapSentinelLabel] == "applied"
	})
}
