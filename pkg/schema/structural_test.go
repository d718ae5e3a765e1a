package schema_test

import (
	"testing"

	crdschema "github.com/crdguard/crdguard/pkg/schema"
)

// TestStructuralSchema checks that a version's structural schema keeps what
// its CRD declares, defaults included, and that a version without a schema
// is an error naming the CRD and version.
func TestStructuralSchema(t *testing.T) {
	thing := crdYAML("example.io", "Thing", "properties:\n  size: {type: integer, default: 3}\n")
	crds, err := crdschema.CRDsFromYAML(t.Context(), []byte(thing), "thing.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := crdschema.StructuralSchema(crds[0], "v1")
	if err != nil {
		t.Fatal(err)
	}
	if size := s.Properties["spec"].Properties["size"]; size.Type != "integer" || size.Default.Object != int64(3) {
		t.Errorf("spec.size = %s with default %#v, want integer with default 3", size.Type, size.Default.Object)
	}

	if _, err := crdschema.StructuralSchema(crds[0], "v2"); err == nil {
		t.Error("version v2, which the CRD lacks: no error")
	}
	noSchema := crds[0].DeepCopy()
	noSchema.Spec.Versions[0].Schema = nil
	_, err = crdschema.StructuralSchema(noSchema, "v1")
	if want := `CustomResourceDefinition "things.example.io" version v1 has no schema`; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}
