package rules

import (
	"encoding/json"

	jsonpatchapply "github.com/evanphx/json-patch/v5"
	"gomodules.xyz/jsonpatch/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ApplyPatches returns a copy of obj with patches applied.
func ApplyPatches(obj *unstructured.Unstructured, patches []jsonpatch.Operation) (*unstructured.Unstructured, error) {
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
	if err := out.UnmarshalJSON(patched); err != nil {
		return nil, err
	}
	return out, nil
}
