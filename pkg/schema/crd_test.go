package schema_test

import (
	"strings"
	"testing"

	crdschema "github.com/crdguard/crdguard/pkg/schema"
)

// TestCRDsFromYAML: the CRDs of a stream are picked out of its other
// objects, and errors name the stream by the source given.
func TestCRDsFromYAML(t *testing.T) {
	thing := crdYAML("example.io", "Thing", "properties:\n  a: {type: integer}\n")
	configMap := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
	crds, err := crdschema.CRDsFromYAML(t.Context(), []byte(configMap+"---\n"+thing), "things.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(crds) != 1 || crds[0].Name != "things.example.io" {
		t.Errorf("got %d CRDs, want things.example.io alone", len(crds))
	}

	invalid := strings.Replace(thing, "type: integer", "type: integr", 1)
	_, err = crdschema.CRDsFromYAML(t.Context(), []byte(invalid), "things.yaml")
	if want := `things.yaml:1 (document 1): CustomResourceDefinition "things.example.io" is invalid:` + "\n  " + `things.yaml:19: `; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %v, want one starting %s", err, want)
	}
	_, err = crdschema.CRDsFromYAML(t.Context(), []byte("\x00"), "things.yaml")
	if want := "things.yaml: binary data, not a YAML or JSON manifest"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}
