package diff_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"

	"github.com/crdguard/crdguard/internal/corpus"
	"github.com/crdguard/crdguard/pkg/schema"
	"github.com/crdguard/crdguard/pkg/schema/diff"
)

// FuzzCompare compares two arbitrary CRDs that pass the API server's CRD
// validation, as `crdguard diff` and /validate-crd receive them: Compare
// never fails or panics on them, never modifies them, and finds no change
// between a CRD and itself.
func FuzzCompare(f *testing.F) {
	read := func(path ...string) []byte {
		data, err := os.ReadFile(filepath.Join(append([]string{corpus.RepositoryRoot()}, path...)...))
		if err != nil {
			f.Fatal(err)
		}
		return data
	}
	testdata := []string{"cmd", "crdguard", "app", "testdata", "diff"}
	old := read(append(testdata, "old.yaml")...)
	f.Add(old, read(append(testdata, "new-breaking.yaml")...))
	f.Add(old, read(append(testdata, "new-safe.yaml")...))
	mysql := read("examples", "mysql", "crd.yaml")
	f.Add(mysql, mysql)
	f.Add(mysql, bytes.Replace(mysql, []byte("maximum: 9"), []byte("maximum: 5"), 1))
	f.Fuzz(func(t *testing.T, oldData, newData []byte) {
		oldCRD, newCRD := validCRD(t, oldData), validCRD(t, newData)
		if oldCRD == nil {
			return
		}
		oldCopy := oldCRD.DeepCopy()
		if changes, err := diff.Compare(oldCRD, oldCRD.DeepCopy()); err != nil || len(changes) > 0 {
			t.Fatalf("a CRD compared with itself: %v, %v", changes, err)
		}
		if newCRD == nil || newCRD.Name != oldCRD.Name {
			return
		}
		newCopy := newCRD.DeepCopy()
		if _, err := diff.Compare(oldCRD, newCRD); err != nil {
			t.Fatalf("Compare: %v", err)
		}
		if !apiequality.Semantic.DeepEqual(oldCRD, oldCopy) || !apiequality.Semantic.DeepEqual(newCRD, newCopy) {
			t.Fatal("Compare modified its arguments")
		}
	})
}

// validCRD is the first CRD in data if it is a valid one, else nil.
func validCRD(t *testing.T, data []byte) *apiextensionsv1.CustomResourceDefinition {
	crds, err := schema.CRDsFromYAML(t.Context(), data, "crd.yaml")
	if err != nil || len(crds) == 0 {
		return nil
	}
	return crds[0]
}
