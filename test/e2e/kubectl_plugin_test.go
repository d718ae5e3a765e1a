package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	crdreport "github.com/crdguard/crdguard/pkg/report"
)

// pluginRun is what one kubectl call that runs the plugin did.
type pluginRun struct {
	code           int
	stdout, stderr string
}

// kubectlPlugin runs the real kubectl with args as a user does: no flags
// of kubectl's own, kubectl-crdguard found on PATH, KUBECONFIG set.
func kubectlPlugin(t *testing.T, kubeconfig string, args ...string) pluginRun {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), cluster.kubectl, args...)
	cmd.Dir = cluster.root
	cmd.Env = append(os.Environ(), "PATH="+cluster.pluginDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"KUBECONFIG="+kubeconfig, "HOME="+cluster.tmp)
	code, stdout, stderr, err := runCommand(cmd)
	if err != nil {
		t.Fatalf("kubectl %s: %v", strings.Join(args, " "), err)
	}
	return pluginRun{code, stdout, stderr}
}

// kubectl finds the plugin, runs it with its arguments and passes its exit
// code on; its help and usage name `kubectl crdguard`.
func TestKubectlPlugin(t *testing.T) {
	plugin := filepath.Join(cluster.pluginDir, "kubectl-crdguard")
	if r := kubectlPlugin(t, cluster.kubeconfig, "plugin", "list"); r.code != 0 || !strings.Contains(r.stdout, plugin+"\n") {
		t.Errorf("kubectl plugin list: exit %d, stdout %q, stderr %q; want 0 and %s listed", r.code, r.stdout, r.stderr, plugin)
	}
	if r := kubectlPlugin(t, cluster.kubeconfig, "crdguard", "version"); r.code != 0 || !strings.HasPrefix(r.stdout, "crdguard ") {
		t.Errorf("kubectl crdguard version: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := kubectlPlugin(t, cluster.kubeconfig, "crdguard", "--help"); r.code != 0 || !strings.Contains(r.stdout, "\n  kubectl crdguard [command]\n") {
		t.Errorf("kubectl crdguard --help: exit %d, stdout %q; want the usage of kubectl crdguard", r.code, r.stdout)
	}
	if r := kubectlPlugin(t, cluster.kubeconfig, "crdguard", "validate", "--no-such-flag"); r.code != 2 || !strings.Contains(r.stderr, "Run 'kubectl crdguard validate --help' for usage.") {
		t.Errorf("kubectl crdguard validate --no-such-flag: exit %d, stderr %q; want 2 and the usage hint of kubectl crdguard validate", r.code, r.stderr)
	}
	for file, want := range map[string]int{"good.yaml": 0, "unsafe.yaml": 1} {
		args := []string{"crdguard", "validate", "--crds", "examples/mysql/crd.yaml", "--policies", "examples/mysql/policy.yaml", filepath.Join("examples", "mysql", file)}
		if r := kubectlPlugin(t, cluster.kubeconfig, args...); r.code != want {
			t.Errorf("kubectl %s: exit %d, want %d\n%s%s", strings.Join(args, " "), r.code, want, r.stdout, r.stderr)
		}
	}
}

// `kubectl crdguard audit` with no flags audits the namespace of
// KUBECONFIG's current context, in the cluster that context names.
func TestKubectlPluginAudit(t *testing.T) {
	const namespace = "plugin-audit"
	ensureNamespaces(t, namespace)
	obj := readDocuments(t, filepath.Join(cluster.root, "examples", "mysql", "unsafe.yaml"))[0].obj
	obj.SetNamespace(namespace)
	if err := cluster.client.Create(t.Context(), obj); err != nil {
		t.Fatalf("storing unsafe.yaml: %v", err)
	}

	// The test cluster's context, with the namespace set, is current; a
	// context on a server that does not exist comes first and is not.
	config, err := clientcmd.LoadFromFile(cluster.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	config.Contexts[config.CurrentContext].Namespace = namespace
	config.Clusters["nowhere"] = &clientcmdapi.Cluster{Server: "https://127.0.0.1:1"}
	config.Contexts["a-nowhere"] = &clientcmdapi.Context{Cluster: "nowhere", AuthInfo: config.Contexts[config.CurrentContext].AuthInfo}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*config, kubeconfig); err != nil {
		t.Fatal(err)
	}

	r := kubectlPlugin(t, kubeconfig, "crdguard", "audit", "--policies", "examples/mysql/policy.yaml", "-o", "json")
	if r.code != 1 {
		t.Fatalf("kubectl crdguard audit: exit %d, want 1 (violations)\n%s%s", r.code, r.stdout, r.stderr)
	}
	var rep crdreport.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("kubectl crdguard audit -o json: %v\n%s", err, r.stdout)
	}
	if len(rep.Results) != 1 || rep.Results[0].Namespace != namespace || rep.Results[0].Name != obj.GetName() || rep.Summary.Denied != 1 {
		t.Errorf("kubectl crdguard audit: results %+v, summary %+v; want %s/%s denied, nothing else", rep.Results, rep.Summary, namespace, obj.GetName())
	}
}
