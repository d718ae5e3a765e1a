package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/crdguard/crdguard/internal/corpus"
)

// TestExamples compares the README's example objects.
func TestExamples(t *testing.T) {
	dir := filepath.Join(cluster.root, "examples", "mysql")
	files := []string{filepath.Join(dir, "good.yaml"), filepath.Join(dir, "bad.yaml")}
	targets, skipped := fileTargets(t, "mysql", setMySQL, dir, files, "e2e-examples")
	if len(skipped) > 0 {
		t.Fatalf("objects of kinds the cluster does not serve: %v", skipped)
	}
	if n := compareAll(t, targets); n != 3 {
		t.Errorf("compared %d objects, want 3", n)
	}
}

// Our own corpora: for each CRD set, one directory of objects, each file
// one object named <kind>-valid*.yaml or <kind>-invalid-<class>.yaml.
func TestWidgetsCorpus(t *testing.T)     { testOwnCorpus(t, setWidgets, 36) }
func TestCertManagerCorpus(t *testing.T) { testOwnCorpus(t, setCertManager, 31) }
func TestGatewayAPICorpus(t *testing.T)  { testOwnCorpus(t, setGatewayAPI, 41) }
func TestPrometheusCorpus(t *testing.T)  { testOwnCorpus(t, setPrometheus, 31) }

// TestDeprecatedVersionsCorpus compares the warnings of deprecated
// versions: the server's default wordings and a CRD's own, on accepted and
// denied objects.
func TestDeprecatedVersionsCorpus(t *testing.T) { testOwnCorpus(t, setGadgets, 8) }

func testOwnCorpus(t *testing.T, set string, minObjects int) {
	dir := filepath.Join("testdata", set)
	targets, skipped := fileTargets(t, set, set, dir, manifestFiles(t, dir), "e2e-"+set)
	if len(skipped) > 0 {
		t.Fatalf("objects of kinds the cluster does not serve: %v", skipped)
	}
	for _, tg := range targets {
		base := filepath.Base(tg.source)
		switch {
		case strings.Contains(base, "-invalid"):
			tg.want = new(false)
		case strings.Contains(base, "-valid"):
			tg.want = new(true)
		default:
			t.Fatalf("%s: name says neither -valid nor -invalid", tg.source)
		}
	}
	if n := compareAll(t, targets); n < minObjects {
		t.Errorf("compared %d objects, want at least %d", n, minObjects)
	}
}

// TestUpstreamRatchetingCorpus compares kube-apiserver's own ratcheting
// corpus (written for an older Gateway API) against the Gateway API CRDs
// installed here, for every object whose apiVersion and kind they serve.
func TestUpstreamRatchetingCorpus(t *testing.T) {
	module, err := corpus.Module("k8s.io/apiextensions-apiserver")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(module, "test", "integration", "ratcheting_test_cases")

	var files []string
	for _, sub := range []string{"valid", "invalid"} {
		files = append(files, manifestFiles(t, filepath.Join(dir, sub))...)
	}
	targets, skipped := fileTargets(t, "upstream", setGatewayAPI, dir, files, "e2e-upstream")
	for _, s := range skipped {
		if !strings.HasSuffix(s, "(/v1, Kind=Namespace)") {
			t.Errorf("not compared: %s", s)
		}
	}
	t.Logf("%d objects to compare; left out %d Namespaces", len(targets), len(skipped))
	// v0.37.2's corpus holds 86 objects with a Gateway API kind (57 valid,
	// 29 invalid), all of versions v1.6.3 still serves.
	if n := compareAll(t, targets); n < 86 {
		t.Errorf("compared %d objects, want at least 86", n)
	}
}
