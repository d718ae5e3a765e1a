package reliability

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/crdguard/crdguard/cmd/crdguard-webhook/app"
	"github.com/crdguard/crdguard/internal/localca"
	"github.com/crdguard/crdguard/internal/localcluster"
	"github.com/crdguard/crdguard/internal/localsuite"
	"github.com/crdguard/crdguard/test/localwebhook"
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

// The names the tests register and create.
const (
	validatingName = "validate.crdguard.dev"
	shopNamespace  = "shop"
	// clientAuthNamespace is TestClientCertificates' own: the shared
	// webhook is not called for it.
	clientAuthNamespace = "client-auth"
)

var suite = localsuite.Suite{
	Name:    "reliability",
	Package: "./test/reliability/",
	Purpose: "run the webhook behind a real kube-apiserver",
}

func TestMain(m *testing.M) { suite.Main(m, setup) }

// setup starts the control plane, configured as a real cluster's, and the
// shared webhook, registered, and builds crdguard-webhook meanwhile.
func setup(s *localsuite.Setup) error {
	ctx := s.Ctx
	cluster.tmp = s.Tmp
	cluster.examples = filepath.Join(s.Root, "examples", "mysql")
	cluster.binary = s.Build("crdguard-webhook", "./cmd/crdguard-webhook")

	cluster.env = localcluster.NewEnvironment(s.Assets, filepath.Join(cluster.examples, "crd.yaml"), filepath.Join(s.Root, "config", "crd", "bases"))
	// A directory of our own for the API server's serving certificate:
	// envtest generates a new one in a new directory on every start unless
	// given one, and TestAPIServerRestart's webhook must keep trusting the
	// server it already knows, as it would a real restarted API server.
	apiServer := cluster.env.ControlPlane.GetAPIServer()
	apiServer.CertDir = filepath.Join(s.Tmp, "apiserver")
	if err := os.Mkdir(apiServer.CertDir, 0o700); err != nil {
		return err
	}
	// Without a watch grace period, kube-apiserver holds the webhook's
	// open watches through its whole 60s shutdown timeout; with one it
	// ends them, as a real API server's rollout does.
	apiServer.Configure().Set("shutdown-watch-termination-grace-period", "2s")
	// The API server presents a client certificate to every webhook, as
	// a cluster whose webhooks require one is configured.
	var err error
	if cluster.clientCA, err = localca.New("crdguard-reliability-client-ca"); err != nil {
		return fmt.Errorf("generating the client CA: %w", err)
	}
	admissionConfig, err := writeAdmissionConfiguration(filepath.Join(s.Tmp, "admission"), cluster.clientCA)
	if err != nil {
		return fmt.Errorf("writing the AdmissionConfiguration: %w", err)
	}
	apiServer.Configure().Set("admission-control-config-file", admissionConfig)
	cfg, err := s.StartControlPlane(cluster.env)
	if err != nil {
		return fmt.Errorf("starting kube-apiserver and etcd: %w", err)
	}
	if cluster.client, err = client.New(cfg, client.Options{Scheme: cluster.env.Scheme}); err != nil {
		return err
	}
	cluster.kubeconfig = filepath.Join(s.Tmp, "admin.kubeconfig")
	if err := localcluster.WriteKubeconfig(cluster.env, cluster.kubeconfig, "admin", "system:masters"); err != nil {
		return fmt.Errorf("adding the admin: %w", err)
	}
	if err := localcluster.EnsureNamespace(ctx, cluster.client, shopNamespace, nil); err != nil {
		return err
	}

	cluster.certDir = filepath.Join(s.Tmp, "certs")
	if cluster.ca, err = localca.NewServing("crdguard-reliability-ca", cluster.certDir); err != nil {
		return fmt.Errorf("generating the CA and serving certificate: %w", err)
	}

	// The example policy exists before the webhook starts; the webhook
	// watches it and the CRDs from the cluster, as deployed.
	if err := localcluster.CreateObjects(ctx, cluster.client, filepath.Join(cluster.examples, "policy.yaml")); err != nil {
		return fmt.Errorf("creating the GuardPolicy: %w", err)
	}
	hook, err := localwebhook.StartSuite(s, func(o *app.Options) error {
		o.SourceDebounce = 100 * time.Millisecond
		o.CertDir = cluster.certDir
		o.Kubeconfig = cluster.kubeconfig
		return nil
	})
	if err != nil {
		return fmt.Errorf("the webhook: %w", err)
	}
	cluster.webhookAddr, cluster.metrics = hook.Addr, hook.Metrics
	if err := register(ctx, "https://"+cluster.webhookAddr); err != nil {
		return fmt.Errorf("registering the webhook: %w", err)
	}
	return nil
}

// register installs a ValidatingWebhookConfiguration that sends
// MySQLClusters to /validate and waits until the API server calls it.
// /validate-policy is deliberately not registered: TestPolicyChurn stores
// a GuardPolicy crdguard cannot compile, as one created before that
// webhook was registered is stored.
func register(ctx context.Context, url string) error {
	validating := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "crdguard"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{localcluster.Webhook{
			Name: validatingName, URL: url + "/validate", CABundle: cluster.ca.PEM,
			Rules: localcluster.MySQLClusters(admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete),
			NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
				Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpNotIn, Values: []string{clientAuthNamespace},
			}}},
		}.Validating()},
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
