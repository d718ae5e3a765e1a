package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crdguard/crdguard/internal/filetree"
)

// TestDiffSkipsWhatIsNotACRD: pointed at an operator's config/crd (bases
// and kustomize patches), at a folder that mixes in other objects, or at a
// deploy/ folder of Helm templates, diff says what it skipped and why, and
// still fails on a CRD that is broken.
func TestDiffSkipsWhatIsNotACRD(t *testing.T) {
	crd, err := os.ReadFile(diffFile("old.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const patch = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  conversion:\n    strategy: Webhook\n"
	dir := filetree.Write(t, map[string]string{
		"crd/kustomization.yaml":              "resources:\n- bases/widgets.yaml\npatches:\n- path: patches/webhook_in_widgets.yaml\n",
		"crd/bases/widgets.yaml":              string(crd),
		"crd/patches/webhook_in_widgets.yaml": patch,
		"mixed/all.yaml":                      string(crd) + "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: operator}\n",
		"deploy/crds.yaml":                    "{{- if .Values.crds.install }}\n" + string(crd) + "{{- end }}\n",
		"unlisted/patch.yaml":                 patch,
	})
	t.Chdir(dir)
	tests := []struct {
		name, old, new string
		code           int
		stderr         string
	}{
		{"kustomize patch", "crd", "crd", ExitOK,
			"crdguard: note: OLD: skipped " + filepath.Join("crd", "patches", "webhook_in_widgets.yaml") + ": a kustomize patch (" + filepath.Join("crd", "kustomization.yaml") + "), not a whole CRD: diff the output of kustomize build to include it\n" +
				"crdguard: note: NEW: skipped " + filepath.Join("crd", "patches", "webhook_in_widgets.yaml") + ": a kustomize patch (" + filepath.Join("crd", "kustomization.yaml") + "), not a whole CRD: diff the output of kustomize build to include it\n"},
		{"other objects", "crd/bases", "mixed", ExitOK,
			"crdguard: note: NEW: skipped " + filepath.Join("mixed", "all.yaml") + ":25 (document 2): apps/v1 Deployment, not a CustomResourceDefinition\n"},
		{"Helm template", "crd/bases", "deploy", ExitUsage,
			"crdguard: NEW: " + filepath.Join("deploy", "crds.yaml") + ":1 (document 1): yaml: did not find expected node content (the document holds Helm template actions: render it with helm template first)\n"},
		// A CRD fragment no kustomization lists as a patch is a broken CRD
		// (the API server's own list of what is wrong follows).
		{"fragment not listed as a patch", "crd/bases", "unlisted", ExitUsage,
			"crdguard: NEW: " + filepath.Join("unlisted", "patch.yaml") + ":1 (document 1): CustomResourceDefinition \"widgets.example.com\" is invalid:\n  "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := crdguard(t, "", "diff", "-q", tc.old, tc.new)
			if r.code != tc.code || !strings.HasPrefix(r.stder, tc.stderr) || (tc.code == ExitOK && r.stder != tc.stderr) {
				t.Errorf("exit %d, stderr\n%s\nwant exit %d, stderr\n%s", r.code, r.stder, tc.code, tc.stderr)
			}
		})
	}
}
