package app

import (
	"os"
	"path/filepath"
	"testing"
)

// A run that checks nothing is a usage error naming the path, never a
// pass; --allow-empty is the explicit way to accept it.
func TestValidateRefusesToCheckNothing(t *testing.T) {
	empty := t.TempDir()
	cm := filepath.Join(t.TempDir(), "configmap.yaml")
	writeFile(t, cm, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
	for _, tc := range []struct {
		name, stdin string
		args        []string
		stderr      string
		allowed     int // exit code with --allow-empty
	}{{
		name:    "a --policies file without GuardPolicies",
		args:    []string{"--crds", exampleCRD, "--policies", goodYAML, goodYAML},
		stderr:  "crdguard: " + goodYAML + " holds no GuardPolicy: nothing there to check with (--allow-empty accepts it)\n",
		allowed: ExitOK,
	}, {
		name:    "an empty --policies directory",
		args:    []string{"--crds", exampleCRD, "--policies", empty, goodYAML},
		stderr:  "crdguard: " + empty + " holds no GuardPolicy: nothing there to check with (--allow-empty accepts it)\n",
		allowed: ExitOK,
	}, {
		name:    "a --crds file without CRDs",
		args:    []string{"--crds", goodYAML, goodYAML},
		stderr:  "crdguard: " + goodYAML + " holds no CustomResourceDefinition: nothing there to check with (--allow-empty accepts it)\n",
		allowed: ExitOK,
	}, {
		name:    "no objects",
		args:    []string{"--crds", exampleCRD, empty},
		stderr:  "crdguard: " + empty + ": no objects to validate (--allow-empty accepts it)\n",
		allowed: ExitOK,
	}, {
		name:    "every object skipped",
		args:    []string{cm},
		stderr:  "crdguard: warning: skipped 1 object whose kind no CRD defines: v1 ConfigMap (1)\ncrdguard: " + cm + ": no object was checked: no CRD defines their kinds and no policy matches them; pass their CRDs with --crds (--allow-empty accepts it)\n",
		allowed: ExitOK,
	}, {
		name:    "standard input for --crds and the inputs",
		args:    []string{"--crds", "-", "-"},
		stderr:  "crdguard: standard input (-) can be read once, and it is given to --crds and the inputs\n",
		allowed: ExitUsage,
	}, {
		name:    "standard input for --old and the inputs",
		args:    []string{"--crds", exampleCRD, "--old", "-", "-"},
		stderr:  "crdguard: standard input (-) can be read once, and it is given to --old and the inputs\n",
		allowed: ExitUsage,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			r := crdguard(t, tc.stdin, append([]string{"validate"}, tc.args...)...)
			if r.code != ExitUsage || r.stder != tc.stderr {
				t.Errorf("exit %d, stderr\n got: %q\nwant: %q", r.code, r.stder, tc.stderr)
			}
			if r := crdguard(t, tc.stdin, append([]string{"validate", "--allow-empty"}, tc.args...)...); r.code != tc.allowed {
				t.Errorf("with --allow-empty: exit %d, want %d; stderr %q", r.code, tc.allowed, r.stder)
			}
		})
	}
}

// --crds given a symlink to a directory reads the CRDs in it.
func TestValidateFollowsSymlinkedCRDDirectory(t *testing.T) {
	dir := t.TempDir()
	crds := filepath.Join(dir, "crds")
	writeFile(t, filepath.Join(crds, "crd.yaml"), readFile(t, exampleCRD))
	link := filepath.Join(dir, "link")
	if err := os.Symlink(crds, link); err != nil {
		t.Fatal(err)
	}
	r := crdguard(t, "", "validate", "--crds", link, "-o", "json", badYAML)
	if r.code != ExitViolations {
		t.Fatalf("exit %d, want 1 (bad.yaml checked against the CRD); stderr %q", r.code, r.stder)
	}
	if res := decodeReport(t, r).Results[0]; res.Skipped {
		t.Errorf("bad.yaml was skipped: %+v", res)
	}
}

// --allow-no-custom-resources passes a run whose inputs hold no object a CRD
// or policy covers, as a pre-commit hook given only a commit's kustomization
// file or Deployment must, and says so; what it was given to check with
// must still be there, and whatever is checked keeps its verdict.
func TestValidateAllowNoCustomResources(t *testing.T) {
	dir := t.TempDir()
	kustomization := filepath.Join(dir, "kustomization.yaml")
	writeFile(t, kustomization, "resources:\n- db_v1_mysqlcluster.yaml\n")
	deployment := filepath.Join(dir, "deployment.yaml")
	writeFile(t, deployment, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n")
	kustomizationNote := "crdguard: note: skipped " + kustomization + ": kustomization file: render it with kustomize build and validate the output\n"
	deploymentWarning := "crdguard: warning: skipped 1 object whose kind no CRD defines: apps/v1 Deployment (1)\n"
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{{
		name:   "a kustomization file",
		args:   []string{"--crds", exampleCRD, kustomization},
		stderr: kustomizationNote + "crdguard: note: no custom resource to check in " + kustomization + ": passed (--allow-no-custom-resources)\n",
	}, {
		name:   "a Deployment",
		args:   []string{"--crds", exampleCRD, deployment},
		stderr: deploymentWarning + "crdguard: note: no custom resource to check in " + deployment + ": passed (--allow-no-custom-resources)\n",
	}, {
		name:   "both",
		args:   []string{"--crds", exampleCRD, kustomization, deployment},
		stderr: kustomizationNote + deploymentWarning + "crdguard: note: no custom resource to check in the 2 inputs: passed (--allow-no-custom-resources)\n",
	}, {
		name:   "a Deployment beside an invalid custom resource",
		args:   []string{"--crds", exampleCRD, deployment, badYAML},
		code:   ExitViolations,
		stderr: deploymentWarning,
	}, {
		name:   "a --crds path without CRDs",
		args:   []string{"--crds", dir, deployment},
		code:   ExitUsage,
		stderr: "crdguard: " + dir + " holds no CustomResourceDefinition: nothing there to check with (--allow-empty accepts it)\n",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			r := crdguard(t, "", append([]string{"validate", "--allow-no-custom-resources"}, tc.args...)...)
			if r.code != tc.code || r.stder != tc.stderr {
				t.Errorf("exit %d, stderr\n got: %q\nwant exit %d, stderr\n     %q", r.code, r.stder, tc.code, tc.stderr)
			}
		})
	}
}
