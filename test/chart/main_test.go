// Package chart tests the Helm chart in charts/crdguard: helm lint, helm
// template under several values sets, values.schema.json, and every rendered
// object created with --dry-run=server on a real kube-apiserver that has
// cert-manager's and prometheus-operator's CRDs installed.
package chart

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdguard/crdguard/internal/corpus"
	"github.com/crdguard/crdguard/internal/hacktools"
	"github.com/crdguard/crdguard/internal/localcluster"
	"github.com/crdguard/crdguard/internal/localsuite"
)

// releaseNamespace is the namespace every values set is rendered for.
const releaseNamespace = "crdguard-system"

var env struct {
	root           string // repository root
	chart          string // charts/crdguard
	helm           string // helm binary built by hack/tools/install.sh
	kubectl        string // the real kubectl from KUBEBUILDER_ASSETS
	kubeconfig     string
	cacheDir       string
	crdguard       string // the crdguard CLI, for strict cert-manager checks
	certManagerCRD string // cert-manager's deploy/crds
	tmp            string
}

var suite = localsuite.Suite{
	Name:    "chart test",
	Package: "./test/chart/",
	Purpose: "create the chart's objects on a real kube-apiserver",
}

func TestMain(m *testing.M) { suite.Main(m, setup) }

// setup starts the control plane with the chart's and the referenced
// projects' CRDs, finds helm and builds crdguard meanwhile.
func setup(s *localsuite.Setup) error {
	ctx := s.Ctx
	env.tmp = s.Tmp
	env.root = s.Root
	env.chart = filepath.Join(env.root, "charts", "crdguard")
	env.kubectl = filepath.Join(s.Assets, "kubectl")
	env.kubeconfig = filepath.Join(s.Tmp, "kubeconfig")
	env.cacheDir = filepath.Join(s.Tmp, "kube-cache")

	// helm is cached in bin/ by `make tools`; install.sh only prints its path then.
	helm, err := hacktools.Path(ctx, "helm", nil)
	if err != nil {
		return err
	}
	env.helm = helm

	env.crdguard = s.Build("crdguard", "./cmd/crdguard")

	if env.certManagerCRD, err = corpus.CertManager.Path(); err != nil {
		return err
	}
	prom, err := corpus.PrometheusOperator.Path()
	if err != nil {
		return err
	}

	te := localcluster.NewEnvironment(s.Assets, filepath.Join(env.chart, "crds"), env.certManagerCRD, filepath.Join(prom, "monitoring.coreos.com_servicemonitors.yaml"))
	cfg, err := s.StartControlPlane(te)
	if err != nil {
		return fmt.Errorf("starting kube-apiserver and etcd, installing CRDs: %w", err)
	}
	c, err := client.New(cfg, client.Options{Scheme: te.Scheme})
	if err != nil {
		return err
	}
	if err := localcluster.EnsureNamespace(ctx, c, releaseNamespace, nil); err != nil {
		return err
	}
	if err := localcluster.WriteKubeconfig(te, env.kubeconfig, "crdguard-chart", "system:masters"); err != nil {
		return fmt.Errorf("adding the kubectl user: %w", err)
	}
	if out, err := kubectl(ctx, "api-resources", "-o", "name").CombinedOutput(); err != nil {
		return fmt.Errorf("kubectl api-resources: %w\n%s", err, out)
	}
	return nil
}

// kubectl returns a kubectl command against the test cluster.
func kubectl(ctx context.Context, args ...string) *exec.Cmd {
	return localcluster.Kubectl{Path: env.kubectl, Kubeconfig: env.kubeconfig, CacheDir: env.cacheDir, Home: env.tmp}.Command(ctx, args...)
}

// helm runs helm with its caches and config in the temp dir.
func helm(ctx context.Context, args ...string) (stdout, stderr string, err error) {
	cmd := exec.CommandContext(ctx, env.helm, args...)
	cmd.Env = append(os.Environ(),
		"HELM_CACHE_HOME="+filepath.Join(env.tmp, "helm", "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(env.tmp, "helm", "config"),
		"HELM_DATA_HOME="+filepath.Join(env.tmp, "helm", "data"))
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}
