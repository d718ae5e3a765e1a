package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdguard/crdguard/internal/corpus"
	"github.com/crdguard/crdguard/internal/localcluster"
	"github.com/crdguard/crdguard/internal/localsuite"
)

// The CRD sets installed in the cluster and given to crdguard with --crds.
// Each test passes crdguard only the set its objects belong to.
const (
	setWidgets     = "widgets"
	setMySQL       = "mysql"
	setCertManager = "certmanager"
	setGatewayAPI  = "gatewayapi"
	setPrometheus  = "prometheus"
	setGadgets     = "gadgets"
)

// unprivilegedUser has no roles but those a test grants it.
const unprivilegedUser = "unprivileged"

// cluster is the one environment every test in the package shares.
var cluster struct {
	root         string                           // repository root
	crds         map[string]string                // CRD set -> file or directory
	served       map[schema.GroupVersionKind]bool // served kinds -> namespaced
	client       client.Client                    // admin client for setup (namespaces, CRD updates, stored objects)
	config       *rest.Config                     // admin config, for clients that impersonate or collect warnings
	kubectl      string                           // the real kubectl from KUBEBUILDER_ASSETS
	kubeconfig   string                           // kubeconfig for kubectl
	unprivileged string                           // kubeconfig of unprivilegedUser
	cacheDir     string                           // kubectl's discovery cache, shared by all calls
	crdguard     string                           // the crdguard binary under test
	webhook      string                           // crdguard-webhook, for the background audit
	pluginDir    string                           // holds only kubectl-crdguard, for kubectl's PATH
	tmp          string                           // scratch files

	// kube-controller-manager from KUBEBUILDER_ASSETS, checked only by
	// TestStorageVersionMigration, the one test that runs it
	controllerManager string
}

var suite = localsuite.Suite{
	Name:    "e2e",
	Package: "./test/e2e/",
	Purpose: "compare crdguard with a real kube-apiserver, etcd and kubectl",
}

func TestMain(m *testing.M) { suite.Main(m, setup) }

// setup starts the control plane with every CRD set installed and builds
// crdguard, crdguard-webhook and the kubectl plugin meanwhile.
func setup(s *localsuite.Setup) error {
	cluster.tmp = s.Tmp
	cluster.root = s.Root
	cluster.kubectl = filepath.Join(s.Assets, "kubectl")
	cluster.controllerManager = filepath.Join(s.Assets, "kube-controller-manager")
	cluster.kubeconfig = filepath.Join(s.Tmp, "kubeconfig")
	cluster.cacheDir = filepath.Join(s.Tmp, "kube-cache")
	if _, err := os.Stat(cluster.kubectl); err != nil {
		return fmt.Errorf("KUBEBUILDER_ASSETS=%s has no kubectl (run `make test`): %w", s.Assets, err)
	}
	cluster.crdguard = s.Build("crdguard", "./cmd/crdguard")
	cluster.webhook = s.Build("crdguard-webhook", "./cmd/crdguard-webhook")
	cluster.pluginDir = filepath.Join(s.Tmp, "plugins")
	if err := os.Mkdir(cluster.pluginDir, 0o755); err != nil {
		return err
	}
	s.Build(filepath.Join("plugins", "kubectl-crdguard"), "./cmd/kubectl-crdguard")

	cluster.crds = map[string]string{
		setWidgets: filepath.Join(cluster.root, "pkg", "schema", "testdata", "widgets-crd.yaml"),
		setMySQL:   filepath.Join(cluster.root, "examples", "mysql", "crd.yaml"),
		setGadgets: filepath.Join(cluster.root, "pkg", "schema", "testdata", "gadgets-crd.yaml"),
	}
	for name, set := range map[string]corpus.Set{
		setCertManager: corpus.CertManager,
		setGatewayAPI:  corpus.GatewayAPI,
		setPrometheus:  corpus.PrometheusOperator,
	} {
		dir, err := set.Path()
		if err != nil {
			return err
		}
		cluster.crds[name] = dir
	}

	env := localcluster.NewEnvironment(s.Assets, cluster.crds[setWidgets], cluster.crds[setMySQL], cluster.crds[setCertManager], cluster.crds[setGatewayAPI], cluster.crds[setPrometheus], cluster.crds[setGadgets])
	start := time.Now()
	cfg, err := s.StartControlPlane(env)
	if err != nil {
		return fmt.Errorf("starting kube-apiserver and etcd, installing CRDs: %w", err)
	}
	fmt.Fprintf(os.Stderr, "e2e: control plane up, %d CRDs installed in %s\n", len(env.CRDs), time.Since(start).Round(time.Millisecond))

	cluster.config = cfg
	cluster.client, err = client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		return err
	}
	names := make([]string, len(env.CRDs))
	for i, crd := range env.CRDs {
		names[i] = crd.Name
	}
	if err := localcluster.WaitEstablished(s.Ctx, cluster.client, names...); err != nil {
		return err
	}
	cluster.served = map[schema.GroupVersionKind]bool{}
	for _, crd := range env.CRDs {
		for _, v := range crd.Spec.Versions {
			if v.Served {
				gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
				cluster.served[gvk] = crd.Spec.Scope == apiextensionsv1.NamespaceScoped
			}
		}
	}

	if err := localcluster.WriteKubeconfig(env, cluster.kubeconfig, "crdguard-e2e", "system:masters"); err != nil {
		return fmt.Errorf("adding the kubectl user: %w", err)
	}
	cluster.unprivileged = filepath.Join(s.Tmp, "unprivileged.kubeconfig")
	if err := localcluster.WriteKubeconfig(env, cluster.unprivileged, unprivilegedUser); err != nil {
		return fmt.Errorf("adding the unprivileged user: %w", err)
	}
	// Fill kubectl's discovery cache once, so the many kubectl calls that
	// follow do not each fetch discovery.
	if out, err := kubectl(s.Ctx, "api-resources", "-o", "name").CombinedOutput(); err != nil {
		return fmt.Errorf("kubectl api-resources: %w\n%s", err, out)
	}
	return nil
}

// kubectl returns a kubectl command against the test cluster.
func kubectl(ctx context.Context, args ...string) *exec.Cmd {
	return localcluster.Kubectl{Path: cluster.kubectl, Kubeconfig: cluster.kubeconfig, CacheDir: cluster.cacheDir, Home: cluster.tmp}.Command(ctx, args...)
}

// runCommand runs cmd with its output in memory. Its exit code is a
// result for the caller to judge; only a command that could not run at
// all is an error.
func runCommand(cmd *exec.Cmd) (code int, stdout, stderr string, err error) {
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return 0, out.String(), errOut.String(), err
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String(), nil
}

// ensureNamespaces creates the namespaces that do not exist yet.
func ensureNamespaces(t *testing.T, names ...string) {
	t.Helper()
	for _, name := range names {
		if err := localcluster.EnsureNamespace(t.Context(), cluster.client, name, nil); err != nil {
			t.Fatal(err)
		}
	}
}
