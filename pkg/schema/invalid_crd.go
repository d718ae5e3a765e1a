package schema

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/manifest"
)

// InvalidCRDError is a CRD that kube-apiserver would refuse to create.
type InvalidCRDError struct {
	Position string
	Name     string
	Errs     field.ErrorList
	// causes are Errs as people read them, one a line, each led by the
	// file and line of its field; empty when the error was built without
	// its document.
	causes []string
}

// Error puts every cause on a line of its own after the CRD's position.
// The server's own messages quote a whole spec.versions list as a Go
// struct for a cause about one version, kilobytes on one line with the
// cause at its end: here the cause comes first and names the version.
func (e *InvalidCRDError) Error() string {
	causes := e.causes
	if len(causes) == 0 {
		for _, err := range e.Errs {
			causes = append(causes, causeText(err))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: CustomResourceDefinition %q is invalid:", e.Position, e.Name)
	for _, c := range causes {
		b.WriteString("\n  ")
		b.WriteString(strings.ReplaceAll(c, "\n", "\n    "))
	}
	return b.String()
}

// newInvalidCRDError words errs, the server's validation errors of crd,
// read from doc.
func newInvalidCRDError(doc manifest.Document, crd *apiextensionsv1.CustomResourceDefinition, errs field.ErrorList) *InvalidCRDError {
	e := &InvalidCRDError{Position: doc.Position(), Name: crd.Name, Errs: errs}
	positions := doc.FieldPositions()
	storageCountWrong := slices.ContainsFunc(errs, func(err *field.Error) bool {
		return err.Field == "spec.versions" && err.Detail == storageCountDetail
	})
	for _, err := range errs {
		// The server fills status.storedVersions from the first storage
		// version before it validates, so with two or more storage
		// versions it reports each other one as missing there: one line
		// per version for what the spec.versions cause already says.
		if storageCountWrong && strings.HasPrefix(err.Field, "status.storedVersions") {
			continue
		}
		cause := versionsCause(err, crd, positions)
		if cause == nil {
			cause = err
		}
		text := causeText(cause)
		if line := positions.Of(sourceFieldPath(cause.Field)).Line; line > 0 {
			text = fmt.Sprintf("%s:%d: %s", doc.Source, line, text)
		}
		if !slices.Contains(e.causes, text) {
			e.causes = append(e.causes, text)
		}
	}
	return e
}

const (
	uniqueNamesDetail  = "must contain unique version names"
	storageCountDetail = "must have exactly one version marked as storage version"
)

// versionsCause points a cause the server gives about the whole
// spec.versions list at the version it is about, or returns nil.
func versionsCause(err *field.Error, crd *apiextensionsv1.CustomResourceDefinition, positions *manifest.FieldPositions) *field.Error {
	if err.Field != "spec.versions" {
		return nil
	}
	versions := crd.Spec.Versions
	at := func(i int) string {
		p := fmt.Sprintf("spec.versions[%d]", i)
		if line := positions.Of(p).Line; line > 0 {
			return fmt.Sprintf("%s (line %d)", p, line)
		}
		return p
	}
	switch err.Detail {
	case uniqueNamesDetail:
		first := map[string]int{}
		for i, v := range versions {
			if j, seen := first[v.Name]; seen {
				dup := field.Duplicate(field.NewPath("spec", "versions").Index(i).Child("name"), v.Name)
				dup.Detail = fmt.Sprintf("%s; %s has it too", uniqueNamesDetail, at(j))
				return dup
			}
			first[v.Name] = i
		}
	case storageCountDetail:
		var storage []int
		for i, v := range versions {
			if v.Storage {
				storage = append(storage, i)
			}
		}
		if len(storage) < 2 {
			return &field.Error{Type: field.ErrorTypeRequired, Field: "spec.versions", Detail: storageCountDetail + "; none is"}
		}
		others := make([]string, 0, len(storage)-2)
		for _, i := range storage[2:] {
			others = append(others, at(i))
		}
		detail := fmt.Sprintf("%s; %s is one already", storageCountDetail, at(storage[0]))
		switch len(others) {
		case 0:
		case 1:
			detail += ", and so is " + others[0]
		default:
			detail += ", and so are " + strings.Join(others, ", ")
		}
		return field.Invalid(field.NewPath("spec", "versions").Index(storage[1]).Child("storage"), true, detail)
	}
	return nil
}

// causeText is err as the server words it, less a value that is a whole
// struct or a list of them: Go field names in JSON that repeat the document.
func causeText(err *field.Error) string {
	v := reflect.ValueOf(err.BadValue)
	kind := v.Kind()
	if kind == reflect.Slice || kind == reflect.Array || kind == reflect.Pointer {
		kind = v.Type().Elem().Kind()
	}
	switch kind {
	case reflect.Struct, reflect.Slice, reflect.Array, reflect.Map, reflect.Pointer:
		text := err.Field + ": " + err.Type.String()
		if err.Detail != "" {
			text += ": " + err.Detail
		}
		return text
	}
	return err.Error()
}

// sourceFieldPath is where in a v1 CRD's text the server's path is. The
// server validates the internal version, in which a schema,
// subresources or columns every version shares sit once under spec: in
// the text they are those of each version, the first of which is shown.
func sourceFieldPath(path string) string {
	for internal, v1 := range map[string]string{
		"spec.validation":               "spec.versions[0].schema",
		"spec.subresources":             "spec.versions[0].subresources",
		"spec.additionalPrinterColumns": "spec.versions[0].additionalPrinterColumns",
		"spec.version":                  "spec.versions[0].name",
	} {
		if path == internal || strings.HasPrefix(path, internal+".") || strings.HasPrefix(path, internal+"[") {
			return v1 + path[len(internal):]
		}
	}
	return path
}
