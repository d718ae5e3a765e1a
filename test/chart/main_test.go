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
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdguard/crdguard/internal/corpus"
	"github.com/crdguard/crdguard/internal/localcluster"
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

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) (code int) {
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		fmt.Fprintln(os.Stderr, "FAIL: KUBEBUILDER_ASSETS is not set. These tests create the chart's objects on a real kube-apiserver;\n"+
			"run `make test`, or: KUBEBUILDER_ASSETS=$(sh hack/tools/install.sh envtest) go test ./test/chart/")
		return 1
	}
	fail := func(format string, args ...any) int {
		fmt.Fprintf(os.Stderr, "FAIL: chart test setup: "+format+"\n", args...)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	tmp, err := os.MkdirTemp("", "crdguard-chart-")
	if err != nil {
		return fail("%v", err)
	}
	defer os.RemoveAll(tmp)
	env.tmp = tmp
	env.root = corpus.Root()
	env.chart = filepath.Join(env.root, "charts", "crdguard")
	env.kubectl = filepath.Join(assets, "kubectl")
	env.kubeconfig = filepath.Join(tmp, "kubeconfig")
	env.cacheDir = filepath.Join(tmp, "kube-cache")
	env.crdguard = filepath.Join(tmp, "crdguard")

	// helm is cached in bin/ by `make tools`; install.sh only prints its path then.
	out, err := exec.CommandContext(ctx, "sh", filepath.Join(env.root, "hack", "tools", "install.sh"), "helm").Output()
	if err != nil {
		return fail("hack/tools/install.sh helm: %v", err)
	}
	env.helm = strings.TrimSpace(string(out))

	built := make(chan error, 1)
	go func() {
		cmd := exec.CommandContext(ctx, "go", "build", "-o", env.crdguard, "./cmd/crdguard")
		cmd.Dir = env.root
		if out, err := cmd.CombinedOutput(); err != nil {
			built <- fmt.Errorf("go build ./cmd/crdguard: %v\n%s", err, out)
			return
		}
		built <- nil
	}()

	if env.certManagerCRD, err = corpus.CertManager.Path(); err != nil {
		return fail("%v", err)
	}
	prom, err := corpus.PrometheusOperator.Path()
	if err != nil {
		return fail("%v", err)
	}

	te := localcluster.NewEnvironment(assets, filepath.Join(env.chart, "crds"), env.certManagerCRD, filepath.Join(prom, "monitoring.coreos.com_servicemonitors.yaml"))
	scheme := te.Scheme
	cfg, err := te.Start()
	defer func() {
		if err := te.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "FAIL: stopping the control plane: %v\n", err)
			code = 1
		}
	}()
	if err != nil {
		return fail("starting kube-apiserver and etcd, installing CRDs: %v", err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return fail("%v", err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: releaseNamespace}}
	if err := c.Create(ctx, ns); err != nil {
		return fail("creating namespace %s: %v", releaseNamespace, err)
	}
	if err := localcluster.WriteKubeconfig(te, env.kubeconfig, "crdguard-chart", "system:masters"); err != nil {
		return fail("adding the kubectl user: %v", err)
	}
	if out, err := kubectl(ctx, "api-resources", "-o", "name").CombinedOutput(); err != nil {
		return fail("kubectl api-resources: %v\n%s", err, out)
	}
	if err := <-built; err != nil {
		return fail("%v", err)
	}
	return m.Run()
}

// kubectl returns a kubectl command against the test cluster.
func kubectl(ctx context.Context, args ...string) *exec.Cmd {
	args = append([]string{"--kubeconfig=" + env.kubeconfig, "--cache-dir=" + env.cacheDir}, args...)
	cmd := exec.CommandContext(ctx, env.kubectl, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+env.kubeconfig, "HOME="+env.tmp, "KUBECTL_COMMAND_HEADERS=false")
	return cmd
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
