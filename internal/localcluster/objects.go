package localcluster

import (
	"context"
	"fmt"

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
