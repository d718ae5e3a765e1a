package gotypes

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/schema"
)

// Loss is a path of a Go object that does not survive the API server.
type Loss struct {
	// Path is the JSON path in the static notation: [*] for any list index
	// or map key, so it compares with Finding.Path.
	Path string
	// Dropped: pruned, because the schema does not declare it. Otherwise
	// the value was rejected for its type, and Detail says how.
	Dropped bool
	Detail  string
}

func (l Loss) String() string {
	if l.Dropped {
		return l.Path + ": dropped: the schema does not declare it, so the API server prunes it"
	}
	return l.Path + ": changed: " + l.Detail
}

// TestingT is the part of *testing.T that RoundTrip uses, so this package
// does not link the testing package into programs.
type TestingT interface {
	Helper()
	Errorf(format string, args ...any)
}

// RoundTrip fails t with every path of obj's type that the CRD in crdYAML
// drops or changes: it fills a new value of obj's type with non-zero values,
// marshals it with encoding/json, and runs it through the API server's
// decoding (pruning with unknown-field tracking) and validation, through
// pkg/schema. obj is only used for its type (and its apiVersion, if set, to
// pick the CRD version); the CRD is the one whose kind is the type's name.
//
//	func TestWidgetSurvivesItsCRD(t *testing.T) {
//		crd, _ := os.ReadFile("../../config/crd/bases/example.com_widgets.yaml")
//		gotypes.RoundTrip(t, &v1.Widget{}, crd)
//	}
func RoundTrip(t TestingT, obj any, crdYAML []byte) {
	t.Helper()
	ctx := context.Background()
	if c, ok := t.(interface{ Context() context.Context }); ok {
		ctx = c.Context()
	}
	losses, err := roundTrip(ctx, obj, crdYAML)
	if err != nil {
		t.Errorf("gotypes.RoundTrip: %v", err)
		return
	}
	for _, l := range losses {
		t.Errorf("gotypes.RoundTrip: %s", l)
	}
}

func roundTrip(ctx context.Context, obj any, crdYAML []byte) ([]Loss, error) {
	crds, err := schema.CRDsFromYAML(ctx, crdYAML, "crdYAML")
	if err != nil {
		return nil, err
	}
	t := reflect.TypeOf(obj)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("obj is a %T, not a pointer to a struct", obj)
	}
	for _, crd := range crds {
		if crd.Spec.Names.Kind == t.Elem().Name() {
			version, err := versionOf(obj, crd)
			if err != nil {
				return nil, err
			}
			return Losses(ctx, obj, crd, version)
		}
	}
	return nil, fmt.Errorf("no CustomResourceDefinition in crdYAML defines kind %s", t.Elem().Name())
}

// versionOf picks the CRD version obj stands for: its apiVersion when set,
// else the one named like its Go package (controller-gen's rule), else the
// only one.
func versionOf(obj any, crd *apiextensionsv1.CustomResourceDefinition) (string, error) {
	var tm struct {
		APIVersion string `json:"apiVersion"`
	}
	if data, err := json.Marshal(obj); err == nil {
		_ = json.Unmarshal(data, &tm)
	}
	pkg := reflect.TypeOf(obj).Elem().PkgPath()
	pkg = pkg[strings.LastIndex(pkg, "/")+1:]
	names := make([]string, 0, len(crd.Spec.Versions))
	for _, v := range crd.Spec.Versions {
		if tm.APIVersion == crd.Spec.Group+"/"+v.Name || (tm.APIVersion == "" && v.Name == pkg) {
			return v.Name, nil
		}
		names = append(names, v.Name)
	}
	if tm.APIVersion == "" && len(names) == 1 {
		return names[0], nil
	}
	return "", fmt.Errorf("cannot tell which of CustomResourceDefinition %q's versions %v obj is: set its apiVersion", crd.Name, names)
}

// Losses returns what the API server drops or rejects of a filled value of
// obj's type, for one version of crd (which must be valid, see
// schema.CRDsFromDocuments). Two values are tried, so that both wire forms
// of an IntOrString meet the schema. Losses below a path whose value was
// rejected for its type are left out: they follow from it.
func Losses(ctx context.Context, obj any, crd *apiextensionsv1.CustomResourceDefinition, version string) ([]Loss, error) {
	// The status subresource only decides which request may write status;
	// without it, a create validates status too, against the same schema.
	crd = crd.DeepCopy()
	for i := range crd.Spec.Versions {
		crd.Spec.Versions[i].Subresources = nil
	}
	v, err := schema.NewValidator(crd, version)
	if err != nil {
		return nil, err
	}
	var losses []Loss
	for variant := range 2 {
		data, err := json.Marshal(fillValue(obj, variant).Interface())
		if err != nil {
			return nil, fmt.Errorf("json.Marshal: %w", err)
		}
		u := &unstructured.Unstructured{}
		if err := json.Unmarshal(data, &u.Object); err != nil {
			return nil, err
		}
		// The API server owns these; metadata is checked by its own rules,
		// which filled values would only trip.
		gvk := v.GroupVersionKind()
		u.SetAPIVersion(gvk.GroupVersion().String())
		u.SetKind(gvk.Kind)
		u.Object["metadata"] = map[string]any{"name": "roundtrip"}
		for _, e := range v.Validate(ctx, u, nil) {
			switch {
			case schema.IsUnknownField(e) && isEmptyObject(valueAt(u.Object, e.Field)):
				// The zero struct of a field the filler leaves unset (a
				// claim template's status): pruning {} loses nothing.
			case schema.IsUnknownField(e):
				losses = append(losses, Loss{Path: staticPath(e.Field), Dropped: true})
			case e.Type == field.ErrorTypeTypeInvalid:
				losses = append(losses, Loss{Path: staticPath(e.Field), Detail: e.ErrorBody()})
			}
		}
	}
	slices.SortStableFunc(losses, func(a, b Loss) int { return strings.Compare(a.Path, b.Path) })
	// One loss per path, the first variant's; none below a rejected value.
	var changed []string
	for _, l := range losses {
		if !l.Dropped {
			changed = append(changed, l.Path)
		}
	}
	out := losses[:0]
	for _, l := range losses {
		if len(out) > 0 && out[len(out)-1].Path == l.Path {
			continue
		}
		if l.Dropped && slices.ContainsFunc(changed, func(c string) bool { return c != l.Path && under(l.Path, c) }) {
			continue
		}
		out = append(out, l)
	}
	return out, nil
}

var listIndex = regexp.MustCompile(`\[[0-9]+\]`)

// staticPath turns a path of the filled object into Finding.Path notation.
func staticPath(p string) string {
	p = listIndex.ReplaceAllString(p, "[*]")
	return strings.ReplaceAll(p, "."+mapKey, "[*]")
}

var pathStep = regexp.MustCompile(`[^.\[\]]+|\[[0-9]+\]`)

// valueAt finds the value at a path of the filled object ("spec.items[0].a");
// nil when the path leads nowhere.
func valueAt(obj any, path string) any {
	for _, step := range pathStep.FindAllString(path, -1) {
		switch v := obj.(type) {
		case map[string]any:
			obj = v[step]
		case []any:
			i, err := strconv.Atoi(strings.Trim(step, "[]"))
			if err != nil || i >= len(v) {
				return nil
			}
			obj = v[i]
		default:
			return nil
		}
	}
	return obj
}

func isEmptyObject(v any) bool {
	m, ok := v.(map[string]any)
	return ok && len(m) == 0
}
