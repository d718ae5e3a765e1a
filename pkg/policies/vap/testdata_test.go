package vap

import (
	"encoding/json"

	"os"
	"testing"

	jsonpatchapply "github.com/evanphx/json-patch/v5"
	"gomodules.xyz/jsonpatch/v2"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdguard/crdguard/pkg/manifest"
)

// The golden cases and the example are the engine's: ../testdata and
// examples/mysql.
const (
	goldenCases = "../testdata"
	example     = "../../../examples/mysql"
)

func readDocs(t testing.TB, path string) []manifest.Document {
	t.Helper()
	docs, err := manifest.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

func readOptionalObject(t testing.TB, path string) *unstructured.Unstructured {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	docs := readDocs(t, path)
	if len(docs) != 1 || docs[0].Err != nil {
		t.Fatalf("%s: want one valid document", path)
	}
	return docs[0].Object
}

// requestSubject is the object req is about: the new object, or the
// stored one on DELETE.
func requestSubject(req *policies.Request) *unstructured.Unstructured {
	if req.Object != nil {
		return req.Object
	}
	return req.OldObject
}

// requestFile is a golden case's request.yaml.
type requestFile struct {
	Operation       v1alpha1.Operation `json:"operation"`
	User            string             `json:"user"`
	Groups          []string           `json:"groups"`
	Namespace       string             `json:"namespace"`
	NamespaceLabels map[string]string  `json:"namespaceLabels"`
}

// applyPatches is obj with the JSON patches applied, as the API server
// applies a mutating webhook's.
func applyPatches(obj *unstructured.Unstructured, patches []jsonpatch.Operation) (*unstructured.Unstructured, error) {
	doc, err := obj.MarshalJSON()
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(patches)
	if err != nil {
		return nil, err
	}
	patch, err := jsonpatchapply.DecodePatch(raw)
	if err != nil {
		return nil, err
	}
	patched, err := patch.Apply(doc)
	if err != nil {
		return nil, err
	}
	out := &unstructured.Unstructured{}
	return out, out.UnmarshalJSON(patched)
}
