package schema

import (
	"encoding/json"
	"testing"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
)

// TestTrimSchemaKeepsPropertiesBesideAdditionalProperties checks the one
// case structural CRDs never reach (they may not have properties and
// additionalProperties together), which trimSchema keeps exact anyway: a
// property without defaults must stay, or defaulting would take its value
// for an additional one.
func TestTrimSchemaKeepsPropertiesBesideAdditionalProperties(t *testing.T) {
	object := func(properties map[string]structuralschema.Structural) structuralschema.Structural {
		return structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"}, Properties: properties}
	}
	pool := object(map[string]structuralschema.Structural{
		"size": {Generic: structuralschema.Generic{Type: "integer", Default: structuralschema.JSON{Object: int64(3)}}},
	})
	s := object(map[string]structuralschema.Structural{"fixed": object(map[string]structuralschema.Structural{"note": {Generic: structuralschema.Generic{Type: "string"}}})})
	s.AdditionalProperties = &structuralschema.StructuralOrBool{Structural: &pool}
	trimmed := trimSchema(&s, func(s *structuralschema.Structural) bool { return s.Default.Object != nil })

	decode := func(s *structuralschema.Structural) string {
		obj := map[string]any{"fixed": map[string]any{"note": "n"}, "extra": map[string]any{}}
		structuraldefaulting.Default(obj, s)
		data, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	want := `{"extra":{"size":3},"fixed":{"note":"n"}}`
	if got := decode(&s); got != want {
		t.Fatalf("upstream on the whole schema: %s, want %s", got, want)
	}
	if got := decode(trimmed); got != want {
		t.Errorf("upstream on the trimmed schema: %s, want %s", got, want)
	}
	if _, kept := trimmed.Properties["fixed"]; !kept {
		t.Errorf("trimmed schema lost property fixed: %+v", trimmed.Properties)
	}
}
