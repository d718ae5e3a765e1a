package selfsignedtls

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdguard/crdguard/internal/corpus"
	"github.com/crdguard/crdguard/internal/localcluster"
)

// cluster is the environment every test shares.
var cluster struct {
	examples   string // examples/mysql
	kube       kubernetes.Interface
	client     client.Client // for unstructured MySQLClusters
	kubeconfig string        // the admin's, for the webhook
}

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) (code int) {
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		fmt.Fprintln(os.Stderr, "FAIL: KUBEBUILDER_ASSETS is not set. These tests run the self-signed TLS mode against a real kube-apiserver;\n"+
			"run `make test`, or: KUBEBUILDER_ASSETS=$(sh hack/tools/install.sh envtest) go test ./test/e2e/selfsignedtls/")
		return 1
	}
	fail := func(format string, args ...any) int {
		fmt.Fprintf(os.Stderr, "FAIL: self-signed TLS e2e setup: "+format+"\n", args...)
		return 1
	}
	tmp, err := os.MkdirTemp("", "crdguard-selfsigned-e2e-")
	if err != nil {
		return fail("%v", err)
	}
	defer os.RemoveAll(tmp)
	cluster.examples = filepath.Join(corpus.Root(), "examples", "mysql")

	env := localcluster.NewEnvironment(assets, filepath.Join(cluster.examples, "crd.yaml"))
	scheme := env.Scheme
	cfg, err := env.Start()
	defer func() {
		if err := env.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "FAIL: stopping the control plane: %v\n", err)
			code = 1
		}
	}()
	if err != nil {
		return fail("starting kube-apiserver and etcd: %v", err)
	}
	if cluster.kube, err = kubernetes.NewForConfig(cfg); err != nil {
		return fail("%v", err)
	}
	if cluster.client, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		return fail("%v", err)
	}
	cluster.kubeconfig = filepath.Join(tmp, "admin.kubeconfig")
	if err := localcluster.WriteKubeconfig(env, cluster.kubeconfig, "admin", "system:masters"); err != nil {
		return fail("adding the admin user: %v", err)
	}
	code = m.Run()
	if theWebhook.stop != nil {
		if err := theWebhook.stop(); err != nil {
			fmt.Fprintf(os.Stderr, "FAIL: crdguard-webhook stopped with an error: %v\n", err)
			code = 1
		}
	}
	return code
}

// namespaces counts the namespaces the tests created.
var namespaces atomic.Int32

// namespace creates a namespace named after the test.
func namespace(t *testing.T) string {
	t.Helper()
	name := strings.Trim(strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			return r
		case r >= 'A' && r <= 'Z':
			return r - 'A' + 'a'
		}
		return '-'
	}, t.Name()), "-")
	if len(name) > 55 {
		name = strings.TrimRight(name[:55], "-")
	}
	// A repeated test (-count) gets a namespace of its own.
	name = fmt.Sprintf("%s-%d", name, namespaces.Add(1))
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := cluster.kube.CoreV1().Namespaces().Create(t.Context(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating namespace %s: %v", name, err)
	}
	return name
}

// eventually polls cond until it holds, for at most a minute.
func eventually(t *testing.T, what string, cond wait.ConditionWithContextFunc) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, time.Minute, true, cond); err != nil {
		t.Fatalf("waiting until %s: %v", what, err)
	}
}
