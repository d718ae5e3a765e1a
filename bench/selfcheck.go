package main

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/crdguard/crdguard/pkg/manifest"
	"github.com/crdguard/crdguard/pkg/schema"
)

// checkTemplates validates every template and every mutation of it
// in-process before the tools run, so a template that drifted from its CRD
// fails here with the API server's message rather than as a count mismatch.
func checkTemplates(ctx context.Context, crdDirs []string) error {
	docs, err := manifest.ReadPaths(nil, crdDirs...)
	if err != nil {
		return err
	}
	crds, err := schema.CRDsFromDocuments(ctx, docs)
	if err != nil {
		return err
	}
	registry, err := schema.NewRegistry(crds...)
	if err != nil {
		return err
	}
	for _, t := range templates {
		errs, err := registry.Validate(ctx, &unstructured.Unstructured{Object: t.obj}, nil)
		if err != nil {
			return fmt.Errorf("template %s: %w", t.file, err)
		}
		if len(errs) > 0 {
			return fmt.Errorf("template %s must be valid: %v", t.file, errs)
		}
		for _, m := range t.mutations {
			obj := runtime.DeepCopyJSON(t.obj)
			m.apply(obj)
			errs, err := registry.Validate(ctx, &unstructured.Unstructured{Object: obj}, nil)
			if err != nil {
				return fmt.Errorf("template %s with %s: %w", t.file, m.desc, err)
			}
			if len(errs) == 0 {
				return fmt.Errorf("template %s with %s must be invalid", t.file, m.desc)
			}
		}
	}
	return nil
}
