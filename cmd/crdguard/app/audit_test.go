package app

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The audit against a live cluster is tested in test/e2e (TestAudit); here
// only what fails before a cluster is reached.
func TestAuditUsageErrors(t *testing.T) {
	r := crdguard(t, "", "audit", "--kubeconfig", "testdata/no-such-kubeconfig")
	if r.code != ExitUsage || !strings.HasPrefix(r.stder, "crdguard: kubeconfig: ") || !strings.Contains(r.stder, "no-such-kubeconfig") {
		t.Errorf("missing kubeconfig: exit %d, stderr %q", r.code, r.stder)
	}
	if r := crdguard(t, "", "audit", "extra-arg"); r.code != ExitUsage || !strings.Contains(r.stder, `unknown command "extra-arg" for "crdguard audit"`) {
		t.Errorf("positional argument: exit %d, stderr %q", r.code, r.stder)
	}
}

// refusedKubeconfig writes a kubeconfig whose server is a local port
// nothing listens on, and returns its path and the server's address.
func refusedKubeconfig(t *testing.T) (path, server string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	server = l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(t.TempDir(), "kubeconfig")
	config := `apiVersion: v1
kind: Config
clusters: [{name: closed, cluster: {server: "https://` + server + `"}}]
users: [{name: someone, user: {token: unused}}]
contexts: [{name: closed, context: {cluster: closed, user: someone, namespace: shop}}]
current-context: closed
`
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, server
}

// An audit that could not list anything has checked nothing: a refused
// connection is exit 2, as an unreadable input, with one line that says
// why, and no raw klog line from client-go. It runs the binary, whose
// stderr is where klog writes.
func TestAuditUnreachableCluster(t *testing.T) {
	bin := crdguardBinary(t)
	kubeconfig, server := refusedKubeconfig(t)
	refused := `dial tcp ` + server + `: connect: connection refused`
	for _, tc := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{
			name:   "policies and CRDs from files",
			args:   []string{"--policies", examplePolicy, "--crds", exampleCRD},
			stderr: `crdguard: cannot read the cluster: policy mysql-safety: looking up MySQLCluster.db.example.io: Get "https://` + server + `/api?timeout=32s": ` + refused + "\n",
		},
		{
			name:   "CRDs from the cluster",
			args:   []string{"--policies", examplePolicy},
			stderr: `crdguard: cannot read the cluster: listing CRDs (--crds reads files instead): Get "https://` + server + `/apis/apiextensions.k8s.io/v1/customresourcedefinitions": ` + refused + "\n",
		},
		{
			name:   "policies from the cluster",
			args:   []string{"--crds", exampleCRD},
			stderr: `crdguard: cannot read the cluster: listing GuardPolicies (is the GuardPolicy CRD installed? --policies reads files instead): Get "https://` + server + `/apis/crdguard.dev/v1alpha1/guardpolicies": ` + refused + "\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.CommandContext(t.Context(), bin, append([]string{"audit", "--kubeconfig", kubeconfig, "-o", "json"}, tc.args...)...)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != ExitUsage {
				t.Errorf("exit: %v; want code %d", err, ExitUsage)
			}
			if stdout.String() != "" || stderr.String() != tc.stderr {
				t.Errorf("stdout %q\nstderr %q\n  want %q", stdout.String(), stderr.String(), tc.stderr)
			}
		})
	}
}
