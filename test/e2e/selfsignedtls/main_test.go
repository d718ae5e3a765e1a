package selfsignedtls

import (
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdguard/crdguard/internal/localcluster"
	"github.com/crdguard/crdguard/internal/localsuite"
)

// cluster is the environment every test shares.
var cluster struct {
	examples   string // examples/mysql
	kube       kubernetes.Interface
	client     client.Client // for unstructured MySQLClusters
	kubeconfig string        // the admin's, for the webhook
}

var suite = localsuite.Suite{
	Name:    "self-signed TLS e2e",
	Package: "./test/e2e/selfsignedtls/",
	Purpose: "run the self-signed TLS mode against a real kube-apiserver",
}

func TestMain(m *testing.M) { suite.Main(m, setup) }

// setup starts the control plane with the example's CRD; the first test
// that needs the webhook starts it (runningWebhook).
func setup(s *localsuite.Setup) error {
	cluster.examples = filepath.Join(s.Root, "examples", "mysql")

	env := localcluster.NewEnvironment(s.Assets, filepath.Join(cluster.examples, "crd.yaml"))
	cfg, err := s.StartControlPlane(env)
	if err != nil {
		return fmt.Errorf("starting kube-apiserver and etcd: %w", err)
	}
	if cluster.kube, err = kubernetes.NewForConfig(cfg); err != nil {
		return err
	}
	if cluster.client, err = client.New(cfg, client.Options{Scheme: env.Scheme}); err != nil {
		return err
	}
	cluster.kubeconfig = filepath.Join(s.Tmp, "admin.kubeconfig")
	if err := localcluster.WriteKubeconfig(env, cluster.kubeconfig, "admin", "system:masters"); err != nil {
		return fmt.Errorf("adding the admin user: %w", err)
	}
	s.Defer(func() error {
		if theWebhook.stop == nil {
			return nil
		}
		if err := theWebhook.stop(); err != nil {
			return fmt.Errorf("crdguard-webhook stopped with an error: %w", err)
		}
		return nil
	})
	return nil
}

// namespaces counts the namespaces the tests created.
var namespaces atomic.Int32

// namespace creates a namespace named after the test.
func namespace(t *testing.T) string {
	t.Helper()
	name := localcluster.NamespaceName(t.Name(), 55)
	// A repeated test (-count) gets a namespace of its own.
	name = fmt.Sprintf("%s-%d", name, namespaces.Add(1))
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := cluster.kube.CoreV1().Namespaces().Create(t.Context(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating namespace %s: %v", name, err)
	}
	return name
}
