package webhook

import (
	"context"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdguard/crdguard/internal/localcluster"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// guardedCRDLabel selects the CRDs /validate-crd guards in this
// environment: only the test-only CRD below carries it, so the other
// tests' CRD updates are not guarded.
const guardedCRDLabel = "crdguard.dev/e2e-guarded"

const gizmoCRD = "gizmos.guard-e2e.example.io"

// gizmos is the test-only CRD of TestCRDGuard.
func gizmos() *apiextensionsv1.CustomResourceDefinition { return guardedCRD("gizmo", "Gizmo") }

// guardedCRD is a test-only CRD of group guard-e2e.example.io, labelled
// for /validate-crd: spec.size (maximum 10), spec.mode (enum fast, slow)
// and spec.note.
func guardedCRD(singular, kind string) *apiextensionsv1.CustomResourceDefinition {
	maximum := 10.0
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: singular + "s.guard-e2e.example.io", Labels: map[string]string{guardedCRDLabel: "true"}},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "guard-e2e.example.io",
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: singular + "s", Singular: singular, Kind: kind, ListKind: kind + "List"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"size": {Type: "integer", Maximum: &maximum},
							"mode": {Type: "string", Enum: []apiextensionsv1.JSON{{Raw: []byte(`"fast"`)}, {Raw: []byte(`"slow"`)}}},
							"note": {Type: "string"},
						}},
					},
				}},
			}},
		},
	}
}

// editSpec applies fn to the spec properties of the CRD's only version.
func editSpec(crd *apiextensionsv1.CustomResourceDefinition, fn func(props map[string]apiextensionsv1.JSONSchemaProps)) {
	spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	fn(spec.Properties)
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
}

// updateGizmos gets the stored gizmos CRD, applies fn and updates it as c.
func updateGizmos(ctx context.Context, c client.Client, fn func(*apiextensionsv1.CustomResourceDefinition), opts ...client.UpdateOption) error {
	return updateCRD(ctx, c, gizmoCRD, fn, opts...)
}

// updateCRD gets the stored CRD name, applies fn and updates it as c.
func updateCRD(ctx context.Context, c client.Client, name string, fn func(*apiextensionsv1.CustomResourceDefinition), opts ...client.UpdateOption) error {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := cluster.client.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
		return err
	}
	fn(crd)
	return c.Update(ctx, crd, opts...)
}

// installCRD creates crd, waits until it is established and deletes it
// when the test ends.
func installCRD(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition) {
	t.Helper()
	ctx := t.Context()
	if err := cluster.client.Create(ctx, crd.DeepCopy()); err != nil {
		t.Fatalf("creating the test CRD %s: %v", crd.Name, err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		if err := cluster.client.Delete(ctx, crd.DeepCopy()); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting the test CRD %s: %v", crd.Name, err)
			return
		}
		// Gone before the next test (or -count run) creates it again.
		if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			err := cluster.client.Get(ctx, client.ObjectKey{Name: crd.Name}, &apiextensionsv1.CustomResourceDefinition{})
			return apierrors.IsNotFound(err), nil
		}); err != nil {
			t.Errorf("the test CRD %s is still there: %v", crd.Name, err)
		}
	})
	if err := localcluster.WaitEstablished(ctx, cluster.client, crd.Name); err != nil {
		t.Fatal(err)
	}
}

// registerCRDGuard sends the UPDATEs of CRDs labelled guardedCRDLabel to
// /validate-crd until the test ends. The API server picks it up from an
// informer: callers poll until a denial shows it in force.
func registerCRDGuard(t *testing.T) {
	t.Helper()
	config := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "crdguard-e2e-crd-guard"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{localcluster.Webhook{
			Name: "validate-crd.crdguard.dev", URL: "https://" + cluster.webhookAddr + "/validate-crd", CABundle: cluster.ca.PEM,
			Rules:          []admissionregistrationv1.RuleWithOperations{localcluster.Rule("apiextensions.k8s.io", "customresourcedefinitions", admissionregistrationv1.ClusterScope, admissionregistrationv1.Update)},
			ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{guardedCRDLabel: "true"}},
		}.Validating()},
	}
	if err := cluster.client.Create(t.Context(), config); err != nil {
		t.Fatalf("registering /validate-crd: %v", err)
	}
	t.Cleanup(func() {
		if err := cluster.client.Delete(context.Background(), config); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting the /validate-crd configuration: %v", err)
		}
	})
}

// The service account the webhook takes as a CRD approver, as a release
// pipeline's.
const (
	releaserNamespace = "guard-e2e-releases"
	releaserName      = "releaser"
)

// serviceAccountClient is a client authenticated as namespace/name with a
// token the API server issued, bound to cluster-admin so that RBAC never
// decides, only the webhook.
func serviceAccountClient(t *testing.T, namespace, name string) client.Client {
	t.Helper()
	ctx := t.Context()
	cfg, err := clientcmd.BuildConfigFromFlags("", cluster.configs["admin"])
	if err != nil {
		t.Fatal(err)
	}
	for _, obj := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}},
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "crdguard-e2e-" + namespace + "-" + name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: name}},
		},
	} {
		if err := cluster.client.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("creating %T %s: %v", obj, obj.GetName(), err)
		}
	}
	clientset, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	token, err := clientset.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](600)},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("requesting a token for %s/%s: %v", namespace, name, err)
	}
	saConfig := rest.AnonymousClientConfig(cfg)
	saConfig.BearerToken = token.Status.Token
	c, err := client.New(saConfig, client.Options{Scheme: cluster.client.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func userClient(t *testing.T, user string) client.Client {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", cluster.configs[user])
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: cluster.client.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCRDGuard: /validate-crd behind the real API server denies a breaking
// CRD update at its path, accepts a safe one, denies one that only a stored
// object breaks naming that object, and accepts it approved by an approver.
func TestCRDGuard(t *testing.T) {
	ctx := t.Context()
	installCRD(t, gizmos())

	// A stored object within today's maximum of 10, above tomorrow's 5.
	ns := namespace(t)
	big := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "guard-e2e.example.io/v1", "kind": "Gizmo",
		"metadata": map[string]any{"name": "big", "namespace": ns},
		"spec":     map[string]any{"size": int64(8)},
	}}
	// The API server's discovery of the new kind can lag its establishment.
	eventually(t, "creating the stored Gizmo", func(ctx context.Context) (bool, string) {
		err := cluster.client.Create(ctx, big.DeepCopy())
		return err == nil || apierrors.IsAlreadyExists(err), errString(err)
	})

	registerCRDGuard(t)

	// (1) Removing a field: denied at its path. Dry runs leave the CRD as
	// it is, so the poll also waits for the API server to pick the
	// configuration up.
	notePath := "spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.note"
	eventually(t, "removing spec.note denied", func(ctx context.Context) (bool, string) {
		err := updateGizmos(ctx, cluster.client, func(crd *apiextensionsv1.CustomResourceDefinition) {
			editSpec(crd, func(p map[string]apiextensionsv1.JSONSchemaProps) { delete(p, "note") })
		}, client.DryRunAll)
		return apierrors.IsInvalid(err) && strings.Contains(err.Error(), notePath) && strings.Contains(err.Error(), "field-removed"), errString(err)
	})
	// Narrowing an enum too.
	if err := updateGizmos(ctx, cluster.client, func(crd *apiextensionsv1.CustomResourceDefinition) {
		editSpec(crd, func(p map[string]apiextensionsv1.JSONSchemaProps) {
			mode := p["mode"]
			mode.Enum = mode.Enum[:1]
			p["mode"] = mode
		})
	}, client.DryRunAll); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.properties.mode") || !strings.Contains(err.Error(), "enum-value-removed") {
		t.Errorf("narrowing spec.mode's enum: %v, want denied at spec.properties.mode", err)
	}

	// (2) Adding an optional field: accepted.
	if err := updateGizmos(ctx, cluster.client, func(crd *apiextensionsv1.CustomResourceDefinition) {
		editSpec(crd, func(p map[string]apiextensionsv1.JSONSchemaProps) {
			p["color"] = apiextensionsv1.JSONSchemaProps{Type: "string"}
		})
	}); err != nil {
		t.Fatalf("adding optional spec.color: %v, want accepted", err)
	}

	// (3) Lowering the maximum below the stored object's size: denied
	// naming the object, also for a non-approver's approval.
	lower := func(crd *apiextensionsv1.CustomResourceDefinition) {
		editSpec(crd, func(p map[string]apiextensionsv1.JSONSchemaProps) {
			size := p["size"]
			size.Maximum = ptr.To(5.0)
			p["size"] = size
		})
	}
	approve := func(crd *apiextensionsv1.CustomResourceDefinition) {
		lower(crd)
		if crd.Annotations == nil {
			crd.Annotations = map[string]string{}
		}
		crd.Annotations[v1alpha1.ApproveAnnotation] = "maximum-changed,stored-objects: gizmos are smaller now"
	}
	wantObject := "stored Gizmo " + ns + "/big: spec.size: ratchet-tolerated: "
	err := updateGizmos(ctx, cluster.client, lower, client.DryRunAll)
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), wantObject) {
		t.Errorf("lowering spec.size's maximum below a stored object's: %v, want denied naming %s/big", err, ns)
	}
	err = updateGizmos(ctx, userClient(t, "bob"), approve)
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), wantObject) || !strings.Contains(err.Error(), "bob is not a CRD approver") {
		t.Errorf("bob approving: %v, want denied, bob not an approver", err)
	}

	// (4) The same update approved by an approver: accepted.
	if err := updateGizmos(ctx, userClient(t, "alice"), approve); err != nil {
		t.Fatalf("alice approving the lower maximum: %v, want accepted", err)
	}
	got := &apiextensionsv1.CustomResourceDefinition{}
	if err := cluster.client.Get(ctx, client.ObjectKey{Name: gizmoCRD}, got); err != nil {
		t.Fatal(err)
	}
	if m := got.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["size"].Maximum; m == nil || *m != 5 {
		t.Errorf("stored maximum %v, want 5", m)
	}

	// (5) A service account approver: the release pipeline removes
	// spec.note, which no stored object sets. big is still above the
	// maximum alice accepted, so every breaking change names it again:
	// stored-objects too.
	releaser := serviceAccountClient(t, releaserNamespace, releaserName)
	if err := updateGizmos(ctx, releaser, func(crd *apiextensionsv1.CustomResourceDefinition) {
		editSpec(crd, func(p map[string]apiextensionsv1.JSONSchemaProps) { delete(p, "note") })
		crd.Annotations[v1alpha1.ApproveAnnotation] = "field-removed,stored-objects: spec.note was never read, big is known"
	}); err != nil {
		t.Fatalf("the releaser service account approving the removal of spec.note: %v, want accepted", err)
	}
	// Another namespace's service account of the same name is no approver.
	intruder := serviceAccountClient(t, ns, releaserName)
	err = updateGizmos(ctx, intruder, func(crd *apiextensionsv1.CustomResourceDefinition) {
		editSpec(crd, func(p map[string]apiextensionsv1.JSONSchemaProps) { delete(p, "mode") })
		crd.Annotations[v1alpha1.ApproveAnnotation] = "field-removed: spec.mode is unused"
	}, client.DryRunAll)
	if want := "system:serviceaccount:" + ns + ":" + releaserName + " is not a CRD approver"; !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), want) {
		t.Errorf("%s/%s approving: %v, want denied: %s", ns, releaserName, err, want)
	}
}
