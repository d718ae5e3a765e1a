package schema_test

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdguard/crdguard/pkg/schema"
)

// An operator's own test checks a sample object against the CRD it ships,
// getting the API server's verdict without a cluster.
func Example() {
	ctx := context.Background()
	registry, err := schema.RegistryFromFiles(ctx, "../../examples/mysql/crd.yaml")
	if err != nil {
		panic(err)
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "db.example.io/v1",
		"kind":       "MySQLCluster",
		"metadata":   map[string]any{"name": "prod"},
		"spec": map[string]any{
			"version":  "8.0.36",
			"image":    "mysql:8.0.36",
			"replicas": int64(2),
			"storage":  map[string]any{"size": "10Gi", "sizeGB": int64(10)},
		},
	}}
	errs, err := registry.Validate(ctx, obj, nil)
	if err != nil {
		panic(err)
	}
	for _, e := range errs {
		fmt.Println(e.Field, "|", e.ErrorBody())
	}
	// Output:
	// spec.replicas | Invalid value: replicas must be odd so the group keeps a quorum
	// spec.storage.sizeGB | Forbidden: unknown field "spec.storage.sizeGB"
}
