package schema_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	crdschema "github.com/crdguard/crdguard/pkg/schema"
)

func TestListMapKeys(t *testing.T) {
	crd := crdYAML("db.example.io", "Cluster", `
properties:
  users:
    type: array
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: [username, host]
    items:
      type: object
      required: [username, host]
      properties:
        username: {type: string}
        host: {type: string}
        grants:
          type: array
          x-kubernetes-list-type: map
          x-kubernetes-list-map-keys: [database]
          items:
            type: object
            required: [database]
            properties:
              database: {type: string}
  hosts:
    type: array
    x-kubernetes-list-type: set
    items: {type: string}
  shards:
    type: object
    additionalProperties:
      type: object
      properties:
        replicas:
          type: array
          x-kubernetes-list-type: map
          x-kubernetes-list-map-keys: [zone]
          items:
            type: object
            required: [zone]
            properties:
              zone: {type: string}
`)
	file := filepath.Join(t.TempDir(), "crd.yaml")
	if err := os.WriteFile(file, []byte(crd), 0o644); err != nil {
		t.Fatal(err)
	}
	registry, err := crdschema.RegistryFromFiles(t.Context(), file)
	if err != nil {
		t.Fatal(err)
	}
	gvk := schema.GroupVersionKind{Group: "db.example.io", Version: "v1", Kind: "Cluster"}
	tests := []struct {
		gvk  schema.GroupVersionKind
		path []string
		want []string
	}{
		{gvk, []string{"spec", "users"}, []string{"username", "host"}},
		{gvk, []string{"spec", "users", "grants"}, []string{"database"}},
		{gvk, []string{"spec", "shards", "eu", "replicas"}, []string{"zone"}},
		{gvk, []string{"spec", "hosts"}, nil},         // a set
		{gvk, []string{"spec"}, nil},                  // not a list
		{gvk, []string{"spec", "nothing"}, nil},       // not in the schema
		{gvk, []string{"spec", "users", "host"}, nil}, // a string
		{schema.GroupVersionKind{Group: "db.example.io", Version: "v2", Kind: "Cluster"}, []string{"spec", "users"}, nil},
	}
	for _, tt := range tests {
		if got := registry.ListMapKeys(tt.gvk, tt.path...); !slices.Equal(got, tt.want) {
			t.Errorf("ListMapKeys(%s, %q) = %q, want %q", tt.gvk.Version, tt.path, got, tt.want)
		}
	}
}
