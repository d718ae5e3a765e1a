package precision

import (
	"fmt"
	"path/filepath"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/crdguard/crdguard/internal/golden"
	"github.com/crdguard/crdguard/internal/hacktools"
	"github.com/crdguard/crdguard/pkg/schema/diff"
)

// diffPair is two consecutive releases of an operator and where their CRDs
// are, as a user would point crdguard diff at them.
type diffPair struct {
	name           string
	module         string
	oldVer, newVer string
	// crds is the CRD file or directory in both releases.
	crds string
}

// diffPairs are the operators' release pairs whose breaking changes are
// labelled in testdata/diff/<name>.yaml.
var diffPairs = []diffPair{
	{"gateway-api", "sigs.k8s.io/gateway-api", "v1.2.1", "v1.3.0", "config/crd/experimental"},
	{"prometheus-operator", "github.com/prometheus-operator/prometheus-operator", "v0.83.0", "v0.84.0", "example/prometheus-operator-crd-full"},
	{"cloudnative-pg", "github.com/cloudnative-pg/cloudnative-pg", "v1.24.2", "v1.25.0", "config/crd/bases"},
	{"cloud-on-k8s", "github.com/elastic/cloud-on-k8s/v3", "v3.4.0", "v3.5.0", "config/crds/v1/all-crds.yaml"},
	// Beyond the development set: operators the fixes were not made on.
	{"external-secrets-v0.17", "github.com/external-secrets/external-secrets", "v0.16.2", "v0.17.0", "config/crds/bases"},
	{"external-secrets-v0.18", "github.com/external-secrets/external-secrets", "v0.17.0", "v0.18.2", "config/crds/bases"},
	{"flux-source-controller", "github.com/fluxcd/source-controller", "v1.8.5", "v1.9.4", "config/crd/bases"},
	{"keda", "github.com/kedacore/keda/v2", "v2.20.2", "v2.21.0", "config/crd/bases"},
}

// minDiffPrecision is the share of breaking verdicts over all pairs that
// must be real defects (issue 38).
const minDiffPrecision = 0.95

func TestDiffPrecision(t *testing.T) {
	var trueCount, count int
	for _, pair := range diffPairs {
		t.Run(pair.name, func(t *testing.T) {
			reported := breakingFindings(t, pair)
			path := filepath.Join("testdata", "diff", pair.name+".yaml")
			g, err := ReadGolden(path)
			if err != nil {
				t.Fatal(err)
			}
			if golden.Updating() {
				g = g.Merge(reported)
				g.Header = []string{fmt.Sprintf("%s %s → %s: crdguard diff %s (both releases); every breaking change, labelled",
					pair.module, pair.oldVer, pair.newVer, pair.crds)}
				if err := g.Write(path); err != nil {
					t.Fatal(err)
				}
			}
			c := g.Compare(reported)
			for _, f := range c.Unlabelled {
				t.Errorf("breaking, not labelled in %s: %s", path, f.Key())
			}
			for _, f := range c.Gone {
				t.Errorf("labelled %s in %s, no longer breaking: %s (%s)", f.Verdict, path, f.Key(), f.Reason)
			}
			t.Logf("%s %s → %s: %d breaking, %d true, %d false: precision %.1f%%",
				pair.module, pair.oldVer, pair.newVer, c.Count, c.TrueCount, c.Count-c.TrueCount-len(c.Unlabelled), 100*Precision(c.TrueCount, c.Count))
			trueCount += c.TrueCount
			count += c.Count
		})
	}
	p := Precision(trueCount, count)
	t.Logf("all pairs: %d breaking, %d true: precision %.1f%%", count, trueCount, 100*p)
	if p < minDiffPrecision {
		t.Errorf("diff precision %.1f%% (%d of %d breaking are real), want at least %.0f%%", 100*p, trueCount, count, 100*minDiffPrecision)
	}
}

// breakingFindings diffs the pair's CRDs as crdguard diff does and returns
// its breaking changes.
func breakingFindings(t *testing.T, pair diffPair) []Finding {
	t.Helper()
	oldCRDs := releaseCRDs(t, pair, pair.oldVer)
	newCRDs := releaseCRDs(t, pair, pair.newVer)
	var out []Finding
	for _, p := range diff.MatchCRDs(oldCRDs, newCRDs) {
		changes, err := p.Compare()
		if err != nil {
			t.Fatal(err)
		}
		for _, ch := range changes {
			if ch.Impact != diff.Breaking {
				continue
			}
			out = append(out, Finding{Check: ch.Check, CRD: ch.CRD, Version: ch.Version, Path: diff.ShortPath(ch.Path)})
		}
	}
	return out
}

// releaseCRDs reads the CRDs of one release.
func releaseCRDs(t *testing.T, pair diffPair, version string) []*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	dir, err := hacktools.Operator(t.Context(), pair.module, version)
	if err != nil {
		t.Fatal(err)
	}
	return readCRDs(t, filepath.Join(dir, pair.crds))
}
