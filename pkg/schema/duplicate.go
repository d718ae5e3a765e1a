package schema

import (
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/manifest"
)

// LocatedCRD is a CRD with the document it was read from, so that a
// message about it can name its file and line.
type LocatedCRD struct {
	CRD *apiextensionsv1.CustomResourceDefinition
	Doc manifest.Document
}

// DuplicateCRDError is a CRD name that two documents define. Both copies are
// refused even when identical: which file was meant is the user's choice,
// and a directory that holds a CRD twice (a chart beside its sources,
// gateway-api's standard and experimental channels) usually means the
// wrong directory was given.
type DuplicateCRDError struct {
	Name          string
	First, Second manifest.Document
	// Differences are the first paths at which the two copies differ; none
	// when they are identical.
	Differences []string
	// More counts the differences past those listed.
	More int
}

// maxDifferences bounds the differences a DuplicateCRDError lists: they
// say which copy is which, not everything that differs.
const maxDifferences = 3

func (e *DuplicateCRDError) Error() string {
	first, second := location(e.First), location(e.Second)
	var hint string
	firstDir, secondDir := filepath.Dir(e.First.Source), filepath.Dir(e.Second.Source)
	switch {
	case e.First.Source == e.Second.Source && e.First.Index == e.Second.Index:
		hint = "the same document is read twice: pass its path once"
	case e.First.Source == e.Second.Source:
		hint = "remove one of them"
	case firstDir != secondDir:
		hint = fmt.Sprintf("pass one of the directories %s and %s", firstDir, secondDir)
	default:
		hint = "pass one of the files"
	}
	how := "they are identical"
	if len(e.Differences) > 0 {
		how = "they differ at " + strings.Join(e.Differences, ", ")
		if e.More > 0 {
			how += fmt.Sprintf(" and %d more", e.More)
		}
	}
	return fmt.Sprintf("CustomResourceDefinition %q is given twice: %s and %s; %s (%s)", e.Name, first, second, hint, how)
}

// location is a document's file and line: editors jump to it.
func location(d manifest.Document) string {
	return fmt.Sprintf("%s:%d", d.Source, d.Line)
}

// RefuseDuplicateCRDs returns a *DuplicateCRDError for the first CRD name
// that two of crds share, in the order given.
func RefuseDuplicateCRDs(crds []LocatedCRD) error {
	seen := map[string]LocatedCRD{}
	for _, c := range crds {
		prev, dup := seen[c.CRD.Name]
		if !dup {
			seen[c.CRD.Name] = c
			continue
		}
		var diffs []string
		differences(nil, prev.Doc.Object.Object, c.Doc.Object.Object, &diffs)
		err := &DuplicateCRDError{Name: c.CRD.Name, First: prev.Doc, Second: c.Doc, Differences: diffs}
		if len(diffs) > maxDifferences {
			err.Differences, err.More = diffs[:maxDifferences], len(diffs)-maxDifferences
		}
		return err
	}
	return nil
}

// differences collects the paths at which a and b, two decoded documents,
// differ: maps key by key in sorted order, lists item by item, anything
// else as a whole.
func differences(path *field.Path, a, b any, out *[]string) {
	switch a := a.(type) {
	case map[string]any:
		if b, ok := b.(map[string]any); ok {
			keys := make([]string, 0, len(a)+len(b))
			for k := range a {
				keys = append(keys, k)
			}
			for k := range b {
				if _, ok := a[k]; !ok {
					keys = append(keys, k)
				}
			}
			sort.Strings(keys)
			for _, k := range keys {
				differences(KeyPath(path, k), a[k], b[k], out)
			}
			return
		}
	case []any:
		if b, ok := b.([]any); ok && len(a) == len(b) {
			for i := range a {
				differences(path.Index(i), a[i], b[i], out)
			}
			return
		}
	}
	if !reflect.DeepEqual(a, b) {
		*out = append(*out, path.String())
	}
}
