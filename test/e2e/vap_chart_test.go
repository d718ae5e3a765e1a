package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crdguard/crdguard/internal/hacktools"
)

// TestVAPChart renders the chart's enforcement modes with what crdguard
// vap prints and applies the rendered policies to kube-apiserver
// (--dry-run=server); manifests the chart must not install are refused.
func TestVAPChart(t *testing.T) {
	ctx := t.Context()
	helmBin, err := hacktools.Path(ctx, "helm", nil)
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	helm := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, helmBin, args...)
		cmd.Env = append(os.Environ(), "HOME="+home, "HELM_CACHE_HOME="+filepath.Join(home, "cache"),
			"HELM_CONFIG_HOME="+filepath.Join(home, "config"), "HELM_DATA_HOME="+filepath.Join(home, "data"))
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	chart := filepath.Join(cluster.root, "charts", "crdguard")
	vapFile := filepath.Join(t.TempDir(), "vap.yaml")
	testdata := filepath.Join(cluster.root, "pkg", "policies", "testdata")
	vap, err := exec.CommandContext(ctx, cluster.crdguard, "vap",
		"--policies", filepath.Join(testdata, "resources", "ratio-boundaries", "policy.yaml"),
		"--policies", filepath.Join(testdata, "defaults", "escaping-and-rounding", "policy.yaml")).Output()
	if err != nil {
		t.Fatalf("crdguard vap: %v", err)
	}
	if err := os.WriteFile(vapFile, vap, 0o644); err != nil {
		t.Fatal(err)
	}

	for _, mode := range []string{"vap", "both"} {
		t.Run(mode, func(t *testing.T) {
			rendered, err := helm("template", "crdguard", chart, "--set", "enforcement.mode="+mode, "--set-file", "enforcement.vapManifests="+vapFile, "--show-only", "templates/vap.yaml")
			if err != nil {
				t.Fatalf("helm template: %v\n%s", err, rendered)
			}
			if !strings.Contains(rendered, "app.kubernetes.io/instance: crdguard") || !strings.Contains(rendered, "crdguard.dev/policy: pod-resources") {
				t.Errorf("rendered policies lack the release labels or the GuardPolicy annotation:\n%s", rendered)
			}
			file := filepath.Join(t.TempDir(), "rendered.yaml")
			if err := os.WriteFile(file, []byte(rendered), 0o644); err != nil {
				t.Fatal(err)
			}
			applied, err := kubectl(ctx, "apply", "--dry-run=server", "-f", file).CombinedOutput()
			if err != nil {
				t.Fatalf("kubectl apply: %v\n%s", err, applied)
			}
			want := "mutatingadmissionpolicy.admissionregistration.k8s.io/crdguard-gpu-limits-defaults created (server dry run)\n" +
				"mutatingadmissionpolicybinding.admissionregistration.k8s.io/crdguard-gpu-limits-defaults created (server dry run)\n" +
				"validatingadmissionpolicy.admissionregistration.k8s.io/crdguard-pod-resources-deny created (server dry run)\n" +
				"validatingadmissionpolicybinding.admissionregistration.k8s.io/crdguard-pod-resources-deny created (server dry run)\n"
			if string(applied) != want {
				t.Errorf("kubectl apply:\n got: %s\nwant: %s", applied, want)
			}
			// The webhook is told, so in vap mode it leaves the compiled
			// rules to the installed policies.
			deployment, err := helm("template", "crdguard", chart, "--set", "enforcement.mode="+mode, "--set-file", "enforcement.vapManifests="+vapFile, "--show-only", "templates/deployment.yaml")
			if err != nil {
				t.Fatalf("helm template: %v\n%s", err, deployment)
			}
			if !strings.Contains(deployment, "- --enforcement="+mode+"\n") {
				t.Errorf("the Deployment does not pass --enforcement=%s:\n%s", mode, deployment)
			}
		})
	}

	t.Run("webhook mode installs none", func(t *testing.T) {
		rendered, err := helm("template", "crdguard", chart, "--set-file", "enforcement.vapManifests="+vapFile)
		if err != nil {
			t.Fatalf("helm template: %v\n%s", err, rendered)
		}
		if strings.Contains(rendered, "AdmissionPolicy") {
			t.Errorf("mode webhook rendered admission policies")
		}
		if strings.Contains(rendered, "--enforcement") {
			t.Errorf("mode webhook passes --enforcement, the default")
		}
	})

	configMap := filepath.Join(t.TempDir(), "cm.yaml")
	if err := os.WriteFile(configMap, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no manifests", []string{"--set", "enforcement.mode=vap"}, "at '/enforcement/vapManifests': minLength: got 0, want 1"},
		{"other kinds", []string{"--set", "enforcement.mode=both", "--set-file", "enforcement.vapManifests=" + configMap},
			"enforcement.vapManifests document 0 is a v1 ConfigMap; only admissionregistration.k8s.io/v1 Validating- and MutatingAdmissionPolicies and their bindings are installed"},
		{"bad mode", []string{"--set", "enforcement.mode=vaps"}, "at '/enforcement/mode': value must be one of 'webhook', 'vap', 'both'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := helm(append([]string{"template", "crdguard", chart}, tc.args...)...)
			if err == nil {
				t.Fatalf("helm template succeeded:\n%s", out)
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("helm's error lacks %q:\n%s", tc.want, out)
			}
		})
	}
}
