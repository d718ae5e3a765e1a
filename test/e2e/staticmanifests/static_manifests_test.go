package staticmanifests

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/crdguard/crdguard/internal/localcluster"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// staticPolicy is the compiled policy the test expects kube-apiserver to
// load from the static manifests directory.
const staticPolicy = "crdguard-mysql-safety-deny.static.k8s.io"

// TestStaticManifests starts a kube-apiserver of its own whose
// --admission-control-config-file is the AdmissionConfiguration `crdguard
// vap --static-manifests` wrote, and shows the compiled policy enforced on
// the first request for the kind, with no object created through the API,
// and still enforced after attempts to delete it through the API.
//
// The policy is the example's without its approvers and its defaults
// rule: every other rule compiles, so nothing stays with the webhook and
// no webhook needs to run (the webhook configurations are loaded by
// kube-apiserver's own loaders in cmd/crdguard/app's
// TestVAPStaticManifests).
func TestStaticManifests(t *testing.T) {
	dir := t.TempDir()
	policyFile := filepath.Join(dir, "policy.yaml")
	writeStaticExamplePolicy(t, policyFile)
	manifests := filepath.Join(dir, "static")
	cmd := exec.CommandContext(t.Context(), cluster.crdguard, "vap", "--policies", policyFile, "--crds", cluster.mysqlCRD, "--static-manifests", manifests)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("crdguard vap --static-manifests: %v\n%s", err, out)
	}
	configFile := filepath.Join(manifests, "admission-configuration.yaml")
	if !strings.Contains(string(out), "--admission-control-config-file="+configFile) {
		t.Fatalf("crdguard vap --static-manifests does not name %s:\n%s", configFile, out)
	}

	env := localcluster.NewEnvironment(cluster.assets, cluster.mysqlCRD)
	env.ControlPlane.GetAPIServer().Configure().Set("admission-control-config-file", configFile)
	cfg, err := env.Start()
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("stopping the control plane: %v", err)
		}
	})
	if err != nil {
		t.Fatalf("starting kube-apiserver with the static manifests: %v", err)
	}
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := localcluster.WaitEstablished(ctx, c, env.CRDs[0].Name); err != nil {
		t.Fatal(err)
	}
	unsafe, err := localcluster.ReadObject(filepath.Join(cluster.root, "examples", "mysql", "unsafe.yaml"), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := localcluster.EnsureNamespace(ctx, c, unsafe.GetNamespace(), nil); err != nil {
		t.Fatal(err)
	}

	// Nothing was created through the API: the policy is not an API object.
	var vaps admissionregistrationv1.ValidatingAdmissionPolicyList
	if err := c.List(ctx, &vaps); err != nil {
		t.Fatal(err)
	}
	if len(vaps.Items) != 0 {
		t.Fatalf("the API lists %d ValidatingAdmissionPolicies, want none", len(vaps.Items))
	}
	wantDenied := `mysqlclusters.db.example.io "analytics" is forbidden: ValidatingAdmissionPolicy '` + staticPolicy + `' with binding '` + staticPolicy + `' denied request: ` +
		"[mysql-safety/resources] spec.resources: Invalid value: requests required for cpu, memory; limits required for memory; " +
		"limits.cpu over requests.cpu allowed more than 1.5× and less than 4×; limits.memory over requests.memory allowed more than 1.5× and less than 4×"
	createDenied(ctx, t, c, unsafe, wantDenied)

	// Deleting the policy and its binding through the API finds nothing
	// to delete, and a policy of the same name cannot be created there.
	for _, obj := range []client.Object{
		&admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: staticPolicy}},
		&admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: staticPolicy}},
	} {
		if err := c.Delete(ctx, obj); !apierrors.IsNotFound(err) {
			t.Errorf("deleting %T %s through the API: %v, want NotFound", obj, staticPolicy, err)
		}
	}
	for _, list := range []client.Object{&admissionregistrationv1.ValidatingAdmissionPolicy{}, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}} {
		if err := c.DeleteAllOf(ctx, list); err != nil {
			t.Errorf("deleting every %T: %v", list, err)
		}
	}
	empty := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: staticPolicy},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: localcluster.MySQLClusters(admissionregistrationv1.Create)[0],
			}}},
			Validations: []admissionregistrationv1.Validation{{Expression: "true"}},
		},
	}
	wantReserved := `names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API`
	if err := c.Create(ctx, empty); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), wantReserved) {
		t.Errorf("creating a policy named %s through the API: %v, want Invalid: %s", staticPolicy, err, wantReserved)
	}

	createDenied(ctx, t, c, unsafe, wantDenied)
	good, err := localcluster.ReadObject(filepath.Join(cluster.root, "examples", "mysql", "good.yaml"), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := localcluster.EnsureNamespace(ctx, c, good.GetNamespace(), nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, good); err != nil {
		t.Errorf("creating the example's good object: %v", err)
	}
}

// createDenied creates obj and wants it denied with the message want, as
// Invalid: the compiled validations give that reason, whatever the
// message says.
func createDenied(ctx context.Context, t *testing.T, c client.Client, obj *unstructured.Unstructured, want string) {
	t.Helper()
	err := c.Create(ctx, obj.DeepCopy())
	if !apierrors.IsInvalid(err) || err.Error() != want {
		t.Errorf("creating %s/%s: %v\nwant Invalid (the policy's reason): %s", obj.GetNamespace(), obj.GetName(), err, want)
	}
}

// writeStaticExamplePolicy writes the example GuardPolicy without its
// approvers and its defaults rule to path.
func writeStaticExamplePolicy(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(cluster.root, "examples", "mysql", "policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var gp v1alpha1.GuardPolicy
	if err := yaml.UnmarshalStrict(data, &gp); err != nil {
		t.Fatal(err)
	}
	gp.Spec.Approvers = nil
	gp.Spec.Rules = slices.DeleteFunc(gp.Spec.Rules, func(r v1alpha1.Rule) bool { return r.Defaults != nil })
	if len(gp.Spec.Rules) != 5 {
		t.Fatalf("the example policy without defaults has %d rules, want 5", len(gp.Spec.Rules))
	}
	if data, err = yaml.Marshal(&gp); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
