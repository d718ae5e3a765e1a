package webhook

import (
	"testing"

	jsonpatchapply "github.com/evanphx/json-patch/v5"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// applyJSONPatch applies a JSON patch as the API server applies a mutating
// webhook's response.
func applyJSONPatch(t *testing.T, doc, patch []byte) *unstructured.Unstructured {
	t.Helper()
	p, err := jsonpatchapply.DecodePatch(patch)
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Apply(doc)
	if err != nil {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(out); err != nil {
		t.Fatal(err)
	}
	return obj
}
