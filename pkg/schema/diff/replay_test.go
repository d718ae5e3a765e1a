package diff

import (
	"errors"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/crdguard/crdguard/pkg/schema"
)

// replayCRD is the new CRD of the replay tests: baseCRD with spec.size at
// most 5 in v1, and a root rule, re-evaluated on every update, against
// spec.mode legacy.
func replayCRD(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
	crd := withSpec(t, `{type: object, properties: {size: {type: integer, maximum: 5}, mode: {type: string}}}`)
	crd.Spec.Versions[1].Schema.OpenAPIV3Schema.XValidations = apiextensionsv1.ValidationRules{{
		Rule: "self.spec.mode != 'legacy'", FieldPath: ".spec.mode", Message: "legacy mode is gone",
	}}
	return crd
}

func TestReplay(t *testing.T) {
	registry, err := schema.NewRegistry(replayCRD(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		object string
		want   []string // class, path, message
	}{
		{name: "valid", object: `{apiVersion: example.com/v1, kind: Widget, metadata: {name: w, namespace: ns}, spec: {size: 3, mode: fast}}`},
		{name: "rejected on update", object: `{apiVersion: example.com/v1, kind: Widget, metadata: {name: w, namespace: ns}, spec: {size: 3, mode: legacy}}`,
			want: []string{`rejected-on-update spec.mode: rejected on update: the object's next write fails: Invalid value: legacy mode is gone`}},
		{name: "ratchet-tolerated", object: `{apiVersion: example.com/v1, kind: Widget, metadata: {name: w, namespace: ns}, spec: {size: 8, mode: fast}}`,
			want: []string{`ratchet-tolerated spec.size: ratchet-tolerated: the object's next write passes only while this value is unchanged; changing it or re-creating the object fails: Invalid value: 8: spec.size in body should be less than or equal to 5`}},
		{name: "pruned", object: `{apiVersion: example.com/v1, kind: Widget, metadata: {name: w, namespace: ns}, spec: {size: 3, mode: fast, note: hi}}`,
			want: []string{`pruned spec.note: pruned: the new schema does not declare this field, so the object's next write drops it`}},
		{name: "all three, update findings first", object: `{apiVersion: example.com/v1, kind: Widget, metadata: {name: w, namespace: ns}, spec: {size: 8, mode: legacy, note: hi}}`,
			want: []string{
				`rejected-on-update spec.mode: rejected on update: the object's next write fails: Invalid value: legacy mode is gone`,
				`pruned spec.note: pruned: the new schema does not declare this field, so the object's next write drops it`,
				`ratchet-tolerated spec.size: ratchet-tolerated: the object's next write passes only while this value is unchanged; changing it or re-creating the object fails: Invalid value: 8: spec.size in body should be less than or equal to 5`,
			}},
		{name: "version no longer served", object: `{apiVersion: example.com/v2, kind: Widget, metadata: {name: w, namespace: ns}}`,
			want: []string{`rejected-on-update apiVersion: rejected on update: the object's next write fails: Unsupported value: "example.com/v2": supported values: "example.com/v1", "example.com/v1beta1"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := &unstructured.Unstructured{}
			if err := yaml.Unmarshal([]byte(tc.object), &obj.Object); err != nil {
				t.Fatal(err)
			}
			findings, err := Replay(t.Context(), registry, obj)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range findings {
				got = append(got, string(f.Class)+" "+f.String())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("findings\n got: %q\nwant: %q", got, tc.want)
			}
		})
	}

	t.Run("no CRD defines the kind", func(t *testing.T) {
		obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": map[string]any{"name": "g"}}}
		_, err := Replay(t.Context(), registry, obj)
		if noSchema := (*schema.NoSchemaError)(nil); !errors.As(err, &noSchema) {
			t.Errorf("err = %v, want a *schema.NoSchemaError", err)
		}
	})
}
