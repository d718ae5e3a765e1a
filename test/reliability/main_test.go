package reliability

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/crdguard/crdguard/cmd/webhook/app"
	"github.com/crdguard/crdguard/internal/corpus"
	"github.com/crdguard/crdguard/internal/localca"
	"github.com/crdguard/crdguard/internal/localcluster"
	"github.com/crdguard/crdguard/internal/localwebhook"
)

// cluster is the environment every test shares.
var cluster struct {
	env        *envtest.Environment
	client     client.Client // admin client
	kubeconfig string        // the admin's kubeconfig, for the webhook
	examples   string        // examples/mysql
	ca         *localca.CA
	// clientCA signed the client certificate the API server presents to
	// webhooks.
	clientCA *localca.CA
	certDir  string // the serving certificate every webhook uses
	// webhookAddr is the in-process webhook's host:port; metrics its
	// /metrics URL.
	webhookAddr string
	metrics     string
	// binary is crdguard-webhook built for the tests that signal it or
	// read its logs.
	binary string
	tmp    string
}

// localhost is where every webhook serves and what its certificate names.
var localhost = net.IPv4(127, 0, 0, 1)

// setupTimeout bounds starting the control plane and the webhook.
const setupTimeout = 3 * time.Minute

// The names the tests register and create.
const (
	validatingName = "validate.crdguard.dev"
	shopNamespace  = "shop"
	// clientAuthNamespace is TestClientCertificates' own: the shared
	// webhook is not called for it.
	clientAuthNamespace = "client-auth"
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) (code int) {
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		fmt.Fprintln(os.Stderr, "FAIL: KUBEBUILDER_ASSETS is not set. These tests run the webhook behind a real kube-apiserver;\n"+
			"run `make test`, or: KUBEBUILDER_ASSETS=$(sh hack/tools/install.sh envtest) go test ./test/reliability/")
		return 1
	}
	fail := func(format string, args ...any) int {
		fmt.Fprintf(os.Stderr, "FAIL: reliability setup: "+format+"\n", args...)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	start := time.Now()

	tmp, err := os.MkdirTemp("", "crdguard-reliability-")
	if err != nil {
		return fail("%v", err)
	}
	defer os.RemoveAll(tmp)
	cluster.tmp = tmp
	root := corpus.Root()
	cluster.examples = filepath.Join(root, "examples", "mysql")
	cluster.binary = filepath.Join(tmp, "crdguard-webhook")

	built := make(chan error, 1)
	go func() {
		cmd := exec.CommandContext(ctx, "go", "build", "-o", cluster.binary, "./cmd/webhook")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			built <- fmt.Errorf("go build ./cmd/webhook: %v\n%s", err, out)
			return
		}
		built <- nil
	}()

	cluster.env = localcluster.NewEnvironment(assets, filepath.Join(cluster.examples, "crd.yaml"), filepath.Join(root, "config", "crd", "bases"))
	scheme := cluster.env.Scheme
	// A directory of our own for the API server's serving certificate:
	// envtest generates a new one in a new directory on every start unless
	// given one, and TestAPIServerRestart's webhook must keep trusting the
	// server it already knows, as it would a real restarted API server.
	apiServer := cluster.env.ControlPlane.GetAPIServer()
	apiServer.CertDir = filepath.Join(tmp, "apiserver")
	if err := os.Mkdir(apiServer.CertDir, 0o700); err != nil {
		return fail("%v", err)
	}
	// Without a watch grace period, kube-apiserver holds the webhook's
	// open watches through its whole 60s shutdown timeout; with one it
	// ends them, as a real API server's rollout does.
	apiServer.Configure().Set("shutdown-watch-termination-grace-period", "2s")
	// The API server presents a client certificate to every webhook, as
	// a cluster whose webhooks require one is configured.
	if cluster.clientCA, err = localca.New("crdguard-reliability-client-ca"); err != nil {
		return fail("generating the client CA: %v", err)
	}
	admissionConfig, err := writeAdmissionConfiguration(filepath.Join(tmp, "admission"), cluster.clientCA)
	if err != nil {
		return fail("writing the AdmissionConfiguration: %v", err)
	}
	apiServer.Configure().Set("admission-control-config-file", admissionConfig)
	cfg, err := cluster.env.Start()
	defer func() {
		if err := cluster.env.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "FAIL: stopping the control plane: %v\n", err)
			code = 1
		}
	}()
	if err != nil {
		return fail("starting kube-apiserver and etcd: %v", err)
	}
	if cluster.client, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		return fail("%v", err)
	}
	cluster.kubeconfig = filepath.Join(tmp, "admin.kubeconfig")
	if err := localcluster.WriteKubeconfig(cluster.env, cluster.kubeconfig, "admin", "system:masters"); err != nil {
		return fail("adding the admin: %v", err)
	}
	if err := cluster.client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: shopNamespace}}); err != nil {
		return fail("%v", err)
	}

	cluster.ca, err = localca.New("crdguard-reliability-ca")
	if err != nil {
		return fail("generating the CA: %v", err)
	}
	cluster.certDir = filepath.Join(tmp, "certs")
	if err := os.Mkdir(cluster.certDir, 0o700); err != nil {
		return fail("%v", err)
	}
	if err := cluster.ca.WriteServing(cluster.certDir, localhost, 24*time.Hour); err != nil {
		return fail("generating the serving certificate: %v", err)
	}

	// The example policy exists before the webhook starts; the webhook
	// watches it and the CRDs from the cluster, as deployed.
	if err := localcluster.CreateObjects(ctx, cluster.client, filepath.Join(cluster.examples, "policy.yaml")); err != nil {
		return fail("creating the GuardPolicy: %v", err)
	}
	hook, err := localwebhook.Start(ctx, func(o *app.Options) error {
		o.SourceDebounce = 100 * time.Millisecond
		o.CertDir = cluster.certDir
		o.Kubeconfig = cluster.kubeconfig
		return nil
	})
	if err != nil {
		return fail("the webhook: %v", err)
	}
	defer func() {
		if err := hook.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "FAIL: the webhook stopped with an error: %v\n", err)
			code = 1
		}
	}()
	cluster.webhookAddr, cluster.metrics = hook.Addr, hook.Metrics
	if err := register(ctx, "https://"+cluster.webhookAddr); err != nil {
		return fail("registering the webhook: %v", err)
	}
	if err := <-built; err != nil {
		return fail("%v", err)
	}
	fmt.Fprintf(os.Stderr, "reliability: ready in %s\n", time.Since(start).Round(time.Millisecond))
	return m.Run()
}

// register installs a ValidatingWebhookConfiguration that sends
// MySQLClusters to /validate and waits until the API server calls it.
// /validate-policy is deliberately not registered: TestPolicyChurn stores
// a GuardPolicy crdguard cannot compile, as one created before that
// webhook was registered is stored.
func register(ctx context.Context, url string) error {
	none := admissionregistrationv1.SideEffectClassNone
	fail := admissionregistrationv1.Fail
	validating := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "crdguard"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:         validatingName,
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: ptr.To(url + "/validate"), CABundle: cluster.ca.PEM},
			NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
				Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpNotIn, Values: []string{clientAuthNamespace},
			}}},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete},
				Rule: admissionregistrationv1.Rule{
					APIGroups: []string{"db.example.io"}, APIVersions: []string{"*"}, Resources: []string{"mysqlclusters"},
					Scope: ptr.To(admissionregistrationv1.NamespacedScope),
				},
			}},
			SideEffects:             &none,
			FailurePolicy:           &fail,
			AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds:          ptr.To[int32](10),
		}},
	}
	if err := cluster.client.Create(ctx, validating); err != nil {
		return err
	}
	// The API server picks configurations up from an informer: probe until
	// the denial of the schema-valid unsafe.yaml comes from the webhook.
	return wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		return isWebhookDenial(dryRunCreate(ctx, "unsafe.yaml")), nil
	})
}

// dryRunCreate asks the API server whether examples/mysql/name would be
// created in the shop namespace.
func dryRunCreate(ctx context.Context, name string) error {
	return dryRunCreateIn(ctx, shopNamespace, name)
}

// dryRunCreateIn asks the API server whether examples/mysql/name would be
// created in namespace.
func dryRunCreateIn(ctx context.Context, namespace, name string) error {
	obj, err := readExample(name)
	if err != nil {
		return err
	}
	obj.SetNamespace(namespace)
	return cluster.client.Create(ctx, obj, client.DryRunAll)
}

// isWebhookDenial tells whether err is the webhook's denial of an object.
func isWebhookDenial(err error) bool {
	return apierrors.IsInvalid(err) && strings.Contains(err.Error(), `admission webhook "`+validatingName+`" denied the request`)
}

// trustingClientTLS is a client TLS configuration that trusts the test CA
// only, as the API server does with the caBundle.
func trustingClientTLS() *tls.Config {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(cluster.ca.PEM)
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
}
