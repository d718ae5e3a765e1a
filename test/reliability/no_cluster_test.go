package reliability

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
)

// noKubeconfig is an environment without any way to find a cluster: no
// KUBECONFIG, a HOME without ~/.kube, not in a pod.
func noKubeconfig(t *testing.T) []string {
	env := []string{"HOME=" + t.TempDir()}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k == "PATH" || k == "TMPDIR" {
			env = append(env, kv)
		}
	}
	return env
}

// TestFilesWithoutCluster: with --crds and --policies the webhook needs no
// cluster, and without one it serves; an option that needs the cluster
// stops it at start, naming the option.
func TestFilesWithoutCluster(t *testing.T) {
	p := startWebhookWithEnv(t, noKubeconfig(t), "--kubeconfig", "")
	unsafe := example(t, "unsafe.yaml")
	c, transport := webhookClient(1)
	defer transport.CloseIdleConnections()
	a, err := post(t.Context(), c, p.addr, "/validate", "application/json", strings.NewReader(string(review("no-cluster", admissionv1.Create, unsafe, nil))))
	if err != nil || a.code() != http.StatusUnprocessableEntity {
		t.Errorf("unsafe.yaml without a cluster: %v %s, want the policy's denial", err, a)
	}

	cmd := exec.CommandContext(t.Context(), cluster.binary,
		"--policies", filepath.Join(cluster.examples, "policy.yaml"), "--crds", filepath.Join(cluster.examples, "crd.yaml"),
		"--cert-dir", cluster.certDir, "--guard-crds", "--guard-crd-names", "mysqlclusters.db.example.io", "--health-probe-bind-address", "0", "--metrics-bind-address", "0")
	cmd.Env = noKubeconfig(t)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "the cluster is needed for --guard-crds") {
		t.Errorf("--guard-crds without a cluster: %v\n%s", err, out)
	}
}
