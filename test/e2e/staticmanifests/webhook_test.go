package staticmanifests

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdguard/crdguard/cmd/crdguard-webhook/app"
	"github.com/crdguard/crdguard/internal/localca"
	"github.com/crdguard/crdguard/internal/localcluster"
	"github.com/crdguard/crdguard/test/localwebhook"
)

// TestStaticManifestsWithWebhook writes the whole example policy's
// static manifests: its compiled policies, its MutatingAdmissionPolicy,
// and webhook configurations that send the rules that stay with the
// webhook to a crdguard-webhook (--enforcement=vap) by URL. kube-apiserver
// loads them all at start; the default limit is set, the unsafe object is
// denied by the static policy, and deleting a cluster whose volumes go
// with it is denied by the webhook the static configuration calls, also
// after an attempt to delete that configuration through the API.
func TestStaticManifestsWithWebhook(t *testing.T) {
	dir := t.TempDir()
	certDir := filepath.Join(dir, "certs")
	ca, err := localca.NewServing("crdguard-static-e2e", certDir)
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(caFile, ca.PEM, 0o600); err != nil {
		t.Fatal(err)
	}
	ports, err := localcluster.FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	examples := filepath.Join(cluster.root, "examples", "mysql")
	manifests := filepath.Join(dir, "static")
	cmd := exec.CommandContext(t.Context(), cluster.crdguard, "vap", "--policies", filepath.Join(examples, "policy.yaml"), "--crds", cluster.mysqlCRD,
		"--static-manifests", manifests, "--webhook-url", "https://127.0.0.1:"+strconv.Itoa(ports[0]), "--webhook-ca-bundle", caFile)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("crdguard vap --static-manifests: %v\n%s", err, out)
	}

	// The GuardPolicy CRD as well: the webhook reads the policy from the
	// cluster, as deployed.
	env := localcluster.NewEnvironment(cluster.assets, cluster.mysqlCRD, filepath.Join(cluster.root, "config", "crd", "bases"))
	env.ControlPlane.GetAPIServer().Configure().Set("admission-control-config-file", filepath.Join(manifests, "admission-configuration.yaml"))
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
	names := make([]string, len(env.CRDs))
	for i, crd := range env.CRDs {
		names[i] = crd.Name
	}
	if err := localcluster.WaitEstablished(ctx, c, names...); err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(dir, "admin.kubeconfig")
	if err := localcluster.WriteKubeconfig(env, kubeconfig, "admin", "system:masters"); err != nil {
		t.Fatal(err)
	}
	if err := localcluster.CreateObjects(ctx, c, filepath.Join(examples, "policy.yaml")); err != nil {
		t.Fatal(err)
	}
	hook, err := localwebhook.Start(ctx, func(o *app.Options) error {
		o.Port = ports[0]
		o.Mode = "vap"
		o.CertDir = certDir
		o.Kubeconfig = kubeconfig
		o.SourceDebounce = 200 * time.Millisecond
		return nil
	})
	if err != nil {
		t.Fatalf("starting crdguard-webhook: %v", err)
	}
	t.Cleanup(func() {
		if err := hook.Stop(); err != nil {
			t.Errorf("the webhook stopped with an error: %v", err)
		}
	})

	ephemeral, err := localcluster.ReadObject(filepath.Join(examples, "delete", "ephemeral.yaml"), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := localcluster.EnsureNamespace(ctx, c, ephemeral.GetNamespace(), nil); err != nil {
		t.Fatal(err)
	}
	// The MutatingAdmissionPolicy answers 503 until kube-apiserver has
	// the new CRD's schema to patch with: dry runs until it does.
	localcluster.WaitFor(t, 2*time.Minute, "the static MutatingAdmissionPolicy knows MySQLClusters", func(ctx context.Context) (bool, error) {
		err := c.Create(ctx, ephemeral.DeepCopy(), client.DryRunAll)
		return !apierrors.IsServiceUnavailable(err), err
	})
	if err := c.Create(ctx, ephemeral.DeepCopy()); err != nil {
		t.Fatalf("creating %s: %v", ephemeral.GetName(), err)
	}
	stored := &unstructured.Unstructured{}
	stored.SetGroupVersionKind(ephemeral.GroupVersionKind())
	if err := c.Get(ctx, client.ObjectKeyFromObject(ephemeral), stored); err != nil {
		t.Fatal(err)
	}
	if cpu, _, _ := unstructured.NestedString(stored.Object, "spec", "resources", "limits", "cpu"); cpu != "2" {
		t.Errorf("stored limits.cpu = %q, want 2 (the default at twice the request)", cpu)
	}

	unsafe, err := localcluster.ReadObject(filepath.Join(examples, "unsafe.yaml"), "")
	if err != nil {
		t.Fatal(err)
	}
	wantDenied := `mysqlclusters.db.example.io "analytics" is forbidden: ValidatingAdmissionPolicy 'crdguard-mysql-safety-deny.static.k8s.io' with binding 'crdguard-mysql-safety-deny.static.k8s.io' denied request: ` +
		"[mysql-safety/resources] spec.resources: Invalid value: requests required for cpu, memory; limits required for memory; " +
		"limits.cpu over requests.cpu allowed more than 1.5× and less than 4×; limits.memory over requests.memory allowed more than 1.5× and less than 4×"
	createDenied(ctx, t, c, unsafe, wantDenied)

	wantDeleteDenied := `admission webhook "validate.crdguard.dev" denied the request: MySQLCluster.db.example.io "scratch" is invalid: <nil>: ` +
		"[mysql-safety/protect-data] Forbidden: deleting this cluster deletes its volumes (reclaimPolicy Delete); a dba approves it"
	deleteDenied := func() {
		t.Helper()
		err := c.Delete(ctx, ephemeral.DeepCopy())
		if !apierrors.IsInvalid(err) || err.Error() != wantDeleteDenied {
			t.Errorf("deleting %s: %v\nwant: %s", ephemeral.GetName(), err, wantDeleteDenied)
		}
	}
	deleteDenied()
	for _, obj := range []client.Object{
		&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "crdguard.static.k8s.io"}},
		&admissionregistrationv1.MutatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "crdguard-mysql-safety-defaults.static.k8s.io"}},
	} {
		if err := c.Delete(ctx, obj); !apierrors.IsNotFound(err) {
			t.Errorf("deleting %T %s through the API: %v, want NotFound", obj, obj.GetName(), err)
		}
	}
	deleteDenied()
}
