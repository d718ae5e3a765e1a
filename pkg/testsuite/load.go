package testsuite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/manifest"
	"github.com/crdguard/crdguard/pkg/policies"
)

// Suite is a suite file ready to run: its engine, built from its CRDs and
// policies as `crdguard validate` builds one, and its cases' objects.
type Suite struct {
	// Path is the suite file's path, as given to Load.
	Path string
	TestSuite
	engine *policies.Engine
	// rules are the rule names of each loaded GuardPolicy, so that an
	// expectation about a rule that is not there fails rather than passes.
	rules   map[string]map[string]bool
	objects []caseObjects
}

// caseObjects are the objects of one case, read from its files.
type caseObjects struct {
	object, oldObject *unstructured.Unstructured
}

// Options are what a run gives every suite it loads, beside the files the
// suite names itself.
type Options struct {
	// CRDs are CRD files or directories loaded into each suite with its own
	// crds, as `crdguard test --crds` gives them: for a suite of policies
	// whose CRDs ship elsewhere, such as an operator's release. A suite's
	// crds and these may not define the same kind. Paths are used as
	// given, not relative to the suite. Default: none.
	CRDs []string
}

// Load decodes the suite file at path and reads what it names: a file that
// is missing or unreadable, a CRD or policy that does not load, or an
// object reference that does not pick exactly one object is an
// *InvalidSuiteError naming the field.
func Load(ctx context.Context, path string) (*Suite, error) {
	return Options{}.Load(ctx, path)
}

// Load is the package's Load, with the CRDs of o added to the suite's.
func (o Options) Load(ctx context.Context, path string) (*Suite, error) {
	ts, err := Decode(path)
	if err != nil {
		return nil, err
	}
	s := &Suite{Path: path, TestSuite: *ts}
	dir := filepath.Dir(path)
	var errs field.ErrorList
	crds := resolvePaths(dir, field.NewPath("crds"), ts.CRDs, &errs)
	guardPolicies := resolvePaths(dir, field.NewPath("policies"), ts.Policies, &errs)
	if len(errs) > 0 {
		return nil, invalid(path, errs)
	}
	engine, loaded, err := policies.Files{CRDs: append(crds, o.CRDs...), Policies: guardPolicies}.Engine(ctx)
	if err != nil {
		return nil, &InvalidSuiteError{Path: path, Errs: []error{fmt.Errorf("crds and policies: %w", err)}}
	}
	s.engine = engine
	s.rules = map[string]map[string]bool{}
	for _, gp := range loaded {
		s.rules[gp.Name] = map[string]bool{}
		for _, r := range gp.Spec.Rules {
			s.rules[gp.Name][r.Name] = true
		}
	}
	files := objectFiles{dir: dir, docs: map[string][]manifest.Document{}}
	s.objects = make([]caseObjects, len(ts.Cases))
	for i, c := range ts.Cases {
		p := field.NewPath("cases").Index(i)
		s.objects[i].object = files.pick(p.Child("object"), c.Object, &errs)
		s.objects[i].oldObject = files.pick(p.Child("oldObject"), c.OldObject, &errs)
	}
	if len(errs) > 0 {
		return nil, invalid(path, errs)
	}
	return s, nil
}

// resolvePaths makes the suite's paths relative to its directory, and
// fails those that are not there.
func resolvePaths(dir string, p *field.Path, paths []string, errs *field.ErrorList) []string {
	out := make([]string, len(paths))
	for i, path := range paths {
		out[i] = resolve(dir, path)
		if _, err := os.Stat(out[i]); err != nil {
			*errs = append(*errs, field.Invalid(p.Index(i), path, err.Error()))
		}
	}
	return out
}

func resolve(dir, path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(dir, path)
}

// objectFiles reads each manifest file of a suite once.
type objectFiles struct {
	dir  string
	docs map[string][]manifest.Document
}

// pick is the object ref names; nil for no ref, or when an error was
// recorded.
func (f *objectFiles) pick(p *field.Path, ref *ObjectRef, errs *field.ErrorList) *unstructured.Unstructured {
	if ref == nil {
		return nil
	}
	docs, ok := f.docs[ref.File]
	if !ok {
		var err error
		if docs, err = manifest.ReadFile(resolve(f.dir, ref.File)); err != nil {
			*errs = append(*errs, field.Invalid(p.Child("file"), ref.File, err.Error()))
			return nil
		}
		f.docs[ref.File] = docs
	}
	var names []string
	var picked []*unstructured.Unstructured
	for _, d := range docs {
		if d.Err != nil {
			*errs = append(*errs, field.Invalid(p.Child("file"), ref.File, fmt.Sprintf("%s: %v", d.Position(), d.Err)))
			return nil
		}
		names = append(names, d.Object.GetName())
		if ref.Name == "" || d.Object.GetName() == ref.Name {
			picked = append(picked, d.Object)
		}
	}
	switch {
	case len(docs) == 0:
		*errs = append(*errs, field.Invalid(p.Child("file"), ref.File, "holds no object"))
	case ref.Name == "" && len(picked) > 1:
		*errs = append(*errs, field.Required(p.Child("name"), fmt.Sprintf("%s holds %d objects: %s", ref.File, len(picked), strings.Join(names, ", "))))
	case len(picked) == 0:
		*errs = append(*errs, field.Invalid(p.Child("name"), ref.Name, fmt.Sprintf("no object of that name in %s (%s)", ref.File, strings.Join(names, ", "))))
	case len(picked) > 1:
		*errs = append(*errs, field.Invalid(p.Child("name"), ref.Name, fmt.Sprintf("%d objects of that name in %s", len(picked), ref.File)))
	default:
		return picked[0]
	}
	return nil
}
