package localcluster

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdguard/crdguard/pkg/manifest"
)

// CreateObjects creates every object of the YAML files, in order, naming
// the file and document of the first that cannot be read or created.
func CreateObjects(ctx context.Context, c client.Client, files ...string) error {
	docs, err := manifest.ReadPaths(nil, files...)
	if err != nil {
		return err
	}
	for _, d := range docs {
		if d.Err != nil {
			return fmt.Errorf("%s: %w", d.Position(), d.Err)
		}
		if err := c.Create(ctx, d.Object); err != nil {
			return fmt.Errorf("%s: %w", d.Position(), err)
		}
	}
	return nil
}

// ReadObject reads the object named name from the YAML or JSON file path,
// or, with name "", the file's only object. A document that cannot be
// decoded, or a file holding another number of such objects, is an error
// naming the file.
func ReadObject(path, name string) (*unstructured.Unstructured, error) {
	docs, err := manifest.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var found []*unstructured.Unstructured
	for _, d := range docs {
		if d.Err != nil {
			return nil, fmt.Errorf("%s: %w", d.Position(), d.Err)
		}
		if name == "" || d.Object.GetName() == name {
			found = append(found, d.Object)
		}
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case name != "":
		return nil, fmt.Errorf("%s holds %d objects named %q, want 1", path, len(found), name)
	}
	return nil, fmt.Errorf("%s holds %d objects, want 1", path, len(found))
}
