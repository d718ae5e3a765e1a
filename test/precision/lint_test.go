package precision

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/crdguard/crdguard/internal/golden"
	"github.com/crdguard/crdguard/internal/hacktools"
	"github.com/crdguard/crdguard/pkg/manifest"
	"github.com/crdguard/crdguard/pkg/schema"
	"github.com/crdguard/crdguard/pkg/schema/gotypes"
)

// lintRelease is an operator's released API types and the CRDs they
// generate, as a user would point crdguard lint at them.
type lintRelease struct {
	name string
	// module and version hold the API types; patterns are go list patterns
	// in that module.
	module, version string
	patterns        []string
	// crdModule is the module holding the CRDs when it is another one
	// (prometheus-operator's types are a nested module); crds is their
	// file or directory in it.
	crdModule string
	crds      string
}

// lintReleases are the releases whose error-level findings are labelled in
// testdata/lint/<name>.yaml.
var lintReleases = []lintRelease{
	{name: "cloudnative-pg", module: "github.com/cloudnative-pg/cloudnative-pg", version: "v1.25.0", patterns: []string{"./api/v1"}, crds: "config/crd/bases"},
	{name: "prometheus-operator", module: "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring", version: "v0.85.0", patterns: []string{"./..."},
		crdModule: "github.com/prometheus-operator/prometheus-operator", crds: "example/prometheus-operator-crd-full"},
	{name: "gateway-api", module: "sigs.k8s.io/gateway-api", version: "v1.3.0", patterns: []string{"./apis/...", "./apisx/..."}, crds: "config/crd/experimental"},
	{name: "cloud-on-k8s", module: "github.com/elastic/cloud-on-k8s/v3", version: "v3.5.0", patterns: []string{"./pkg/apis/..."}, crds: "config/crds/v1/all-crds.yaml"},
	// Beyond the development set: operators the fixes were not made on.
	{name: "external-secrets", module: "github.com/external-secrets/external-secrets", version: "v0.16.2", patterns: []string{"./apis/..."}, crds: "config/crds/bases"},
	{name: "grafana-operator", module: "github.com/grafana/grafana-operator/v5", version: "v5.18.0", patterns: []string{"./api/..."}, crds: "config/crd/bases"},
	{name: "percona-server-mongodb-operator", module: "github.com/percona/percona-server-mongodb-operator", version: "v1.20.1", patterns: []string{"./pkg/apis/..."}, crds: "deploy/crd.yaml"},
}

// minLintPrecision is the share of error-level lint findings over all
// releases that must be real defects.
const minLintPrecision = 0.90

// TestLintPrecision lints each release and compares its findings with the
// labels: every error must be labelled, and every finding labelled true
// must still be reported, at error or warning. Precision counts errors
// only, which are what fail a CI run.
func TestLintPrecision(t *testing.T) {
	var trueErrors, errors int
	for _, rel := range lintReleases {
		t.Run(rel.name, func(t *testing.T) {
			path := filepath.Join("testdata", "lint", rel.name+".yaml")
			g, err := ReadGolden(path)
			if err != nil {
				t.Fatal(err)
			}
			reported := lintFindings(t, rel, g)
			if golden.Updating() {
				g = g.Merge(reported)
				g.Header = []string{fmt.Sprintf("%s %s: crdguard lint --crds %s %s; every error, and every true warning, labelled",
					rel.module, rel.version, rel.crds, strings.Join(rel.patterns, " "))}
				if err := g.Write(path); err != nil {
					t.Fatal(err)
				}
			}
			c := g.Compare(reported)
			for _, f := range c.Unlabelled {
				t.Errorf("%s, not labelled in %s: %s", f.Severity, path, f.Key())
			}
			for _, f := range c.Gone {
				t.Errorf("labelled %s in %s, no longer an error or a true warning: %s (%s)", f.Verdict, path, f.Key(), f.Reason)
			}
			labels := map[string]Verdict{}
			for _, f := range g.Findings {
				labels[f.Key()] = f.Verdict
			}
			relTrue, relErrors := 0, 0
			for _, f := range reported {
				if f.Severity == string(gotypes.Error) {
					relErrors++
					if labels[f.Key()] == True {
						relTrue++
					}
				}
			}
			t.Logf("%s %s: %d errors, %d true: precision %.1f%%", rel.module, rel.version, relErrors, relTrue, 100*Precision(relTrue, relErrors))
			trueErrors += relTrue
			errors += relErrors
		})
	}
	p := Precision(trueErrors, errors)
	t.Logf("all releases: %d errors, %d true: precision %.1f%%", errors, trueErrors, 100*p)
	if p < minLintPrecision {
		t.Errorf("lint precision %.1f%% (%d of %d errors are real), want at least %.0f%%", 100*p, trueErrors, errors, 100*minLintPrecision)
	}
}

// lintFindings lints a release as crdguard lint does and returns its
// errors, and the warnings g labels true.
func lintFindings(t *testing.T, rel lintRelease, g *Golden) []Finding {
	t.Helper()
	dir, err := hacktools.Operator(t.Context(), rel.module, rel.version)
	if err != nil {
		t.Fatal(err)
	}
	crdDir := dir
	if rel.crdModule != "" {
		if crdDir, err = hacktools.Operator(t.Context(), rel.crdModule, rel.version); err != nil {
			t.Fatal(err)
		}
	}
	crds := readCRDs(t, filepath.Join(crdDir, rel.crds))
	kinds, err := gotypes.Load(t.Context(), dir, rel.patterns...)
	if err != nil {
		t.Fatal(err)
	}
	findings, err := gotypes.Lint(kinds, gotypes.Options{CRDs: crds})
	if err != nil {
		t.Fatal(err)
	}
	trueLabels := map[string]bool{}
	for _, f := range g.Findings {
		trueLabels[f.Key()] = f.Verdict == True
	}
	var out []Finding
	for _, f := range findings {
		r := Finding{Check: f.Check, CRD: crdName(crds, f.Kind), Version: f.Kind.Version, Path: f.Path, Severity: string(f.Severity)}
		if f.Severity == gotypes.Error || (f.Severity == gotypes.Warning && trueLabels[r.Key()]) {
			out = append(out, r)
		}
	}
	return out
}

func readCRDs(t *testing.T, path string) []*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	docs, err := manifest.ReadPaths(strings.NewReader(""), path)
	if err != nil {
		t.Fatal(err)
	}
	crds, err := schema.CRDsFromDocuments(t.Context(), docs)
	if err != nil {
		t.Fatal(err)
	}
	return crds
}

// crdName names the CRD of a kind, or its group and kind when no CRD
// defines it (a missing-crd finding).
func crdName(crds []*apiextensionsv1.CustomResourceDefinition, gvk k8sschema.GroupVersionKind) string {
	for _, c := range crds {
		if c.Spec.Group == gvk.Group && c.Spec.Names.Kind == gvk.Kind {
			return c.Name
		}
	}
	return gvk.GroupKind().String()
}
