package policies

import (
	"context"
	"fmt"
	"io"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/manifest"
	"github.com/crdguard/crdguard/pkg/schema"
)

// Files are the CRDs and GuardPolicies an engine is built from: files and
// directories, as `crdguard validate` and `crdguard-webhook` take them with
// --crds and --policies.
type Files struct {
	CRDs, Policies []string
	// Stdin is what a path "-" reads. Default: nothing.
	Stdin io.Reader
	// AllowEmpty accepts a path that holds no CRD (in CRDs) or no
	// GuardPolicy (in Policies). Default: such a path is an
	// *EmptyPathError, because a wrong file or an empty directory would
	// otherwise check nothing and pass.
	AllowEmpty bool
}

// EmptyPathError is a path that holds none of what it was given for.
type EmptyPathError struct {
	Path string
	// Kind is what it should hold: CustomResourceDefinition or GuardPolicy.
	Kind string
}

func (e *EmptyPathError) Error() string {
	return fmt.Sprintf("%s holds no %s", e.Path, e.Kind)
}

// Load reads the CRDs into a registry, and then the GuardPolicies,
// validated against it. No CRDs make an empty registry: objects are then
// checked against policies only.
func (f Files) Load(ctx context.Context) (*schema.Registry, []*v1alpha1.GuardPolicy, error) {
	crds, err := f.LoadCRDs(ctx)
	if err != nil {
		return nil, nil, err
	}
	registry, err := schema.NewRegistry(crds...)
	if err != nil {
		return nil, nil, err
	}
	guardPolicies, err := f.LoadPolicies(ctx, registry)
	if err != nil {
		return nil, nil, err
	}
	return registry, guardPolicies, nil
}

// LoadCRDs reads the CRDs alone, for a caller that needs them rather than
// a registry (crdguard lint and audit, the webhook's background audit), by
// Load's rules: a path that holds no CRD is an *EmptyPathError unless
// AllowEmpty, and a CRD given twice is refused, naming both its files.
func (f Files) LoadCRDs(ctx context.Context) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	var located []schema.LocatedCRD
	for _, path := range f.CRDs {
		docs, err := f.read(path)
		if err != nil {
			return nil, fmt.Errorf("reading CRDs: %w", err)
		}
		found, err := schema.LocateCRDs(ctx, docs)
		if err != nil {
			return nil, err
		}
		if len(found) == 0 && !f.AllowEmpty {
			return nil, &EmptyPathError{Path: path, Kind: "CustomResourceDefinition"}
		}
		located = append(located, found...)
	}
	if err := schema.RefuseDuplicateCRDs(located); err != nil {
		return nil, err
	}
	crds := make([]*apiextensionsv1.CustomResourceDefinition, len(located))
	for i, c := range located {
		crds[i] = c.CRD
	}
	return crds, nil
}

// LoadPolicies reads the GuardPolicies alone, validated against registry,
// by Load's rules: a path that holds no GuardPolicy is an *EmptyPathError
// unless AllowEmpty.
func (f Files) LoadPolicies(ctx context.Context, registry *schema.Registry) ([]*v1alpha1.GuardPolicy, error) {
	var guardPolicies []*v1alpha1.GuardPolicy
	for _, path := range f.Policies {
		docs, err := f.read(path)
		if err != nil {
			return nil, fmt.Errorf("reading GuardPolicies: %w", err)
		}
		found, err := PoliciesFromDocuments(ctx, docs, registry)
		if err != nil {
			return nil, err
		}
		if len(found) == 0 && !f.AllowEmpty {
			return nil, &EmptyPathError{Path: path, Kind: "GuardPolicy"}
		}
		guardPolicies = append(guardPolicies, found...)
	}
	return guardPolicies, nil
}

// Engine builds the engine of the files: the one way `crdguard validate`
// and `crdguard-webhook --policies` turn files into an engine. It returns
// the GuardPolicies too, for callers that compile them further (the
// webhook's --enforcement=vap); the schemas are the engine's Schemas().
func (f Files) Engine(ctx context.Context) (*Engine, []*v1alpha1.GuardPolicy, error) {
	registry, guardPolicies, err := f.Load(ctx)
	if err != nil {
		return nil, nil, err
	}
	engine, err := NewEngine(registry, guardPolicies...)
	if err != nil {
		return nil, nil, err
	}
	return engine, guardPolicies, nil
}

func (f Files) read(path string) ([]manifest.Document, error) {
	stdin := f.Stdin
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	return manifest.ReadPaths(stdin, path)
}
