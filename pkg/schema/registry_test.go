package schema_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/crdguard/crdguard/pkg/manifest"
	crdschema "github.com/crdguard/crdguard/pkg/schema"
)

// crdYAML is the text of a namespaced CRD of kind (plural: kind in lower
// case plus s) in group, with one version, v1, whose spec has the schema
// specSchema: YAML written at the left margin, which crdYAML indents into
// place. It is text, not a CRD, for the tests that edit it or read it as
// a file would be read.
func crdYAML(group, kind, specSchema string) string {
	plural := strings.ToLower(kind) + "s"
	var spec strings.Builder
	for line := range strings.Lines(strings.TrimPrefix(specSchema, "\n")) {
		if strings.TrimSpace(line) != "" {
			spec.WriteString("            ")
		}
		spec.WriteString(line)
	}
	return fmt.Sprintf(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: %[3]s.%[1]s}
spec:
  group: %[1]s
  names: {kind: %[2]s, plural: %[3]s}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
%[4]s`, group, kind, plural, spec.String())
}

func TestCRDsFromDocumentsRejectsWhatTheServerRejects(t *testing.T) {
	valid := crdYAML("example.io", "Thing", `
x-kubernetes-validations:
- rule: "self.a > 0"
properties:
  a: {type: integer}
`)
	tests := []struct {
		name, in, want string
	}{
		{
			name: "other kinds are ignored",
			in:   valid + "---\napiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n",
		},
		{
			name: "name must be plural.group",
			in:   strings.Replace(valid, "things.example.io", "thing.example.io", 1),
			want: `crds.yaml:1 (document 1): CustomResourceDefinition "thing.example.io" is invalid:` + "\n  " + `crds.yaml:3: metadata.name: Invalid value: "thing.example.io": must be spec.names.plural+"."+spec.group`,
		},
		{
			name: "CEL that does not compile",
			in:   strings.Replace(valid, "self.a > 0", "self.b > 0", 1),
			want: `crds.yaml:1 (document 1): CustomResourceDefinition "things.example.io" is invalid:` + "\n  " + `crds.yaml:19: spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: compilation failed: ERROR: <input>:1:5: undefined field 'b'` + "\n     | self.b > 0\n     | ....^",
		},
		{
			// The server validates the internal version, where one schema
			// shared by all versions sits at spec.validation; it prints that path.
			name: "non-structural schema",
			in:   strings.Replace(valid, "a: {type: integer}", "a: {}", 1),
			want: `crds.yaml:1 (document 1): CustomResourceDefinition "things.example.io" is invalid:` + "\n  " + `crds.yaml:21: spec.validation.openAPIV3Schema.properties[spec].properties[a].type: Required value: must not be empty for specified object fields`,
		},
		{
			name: "unknown field in the CRD",
			in:   strings.Replace(valid, "scope: Namespaced", "scope: Namespaced\n  scoop: x", 1),
			want: `crds.yaml:1 (document 1): CustomResourceDefinition "things.example.io": strict decoding error: unknown field "spec.scoop"`,
		},
		{
			// CRDs are validated in parallel; the first bad one is reported.
			name: "the first of two invalid CRDs",
			in: valid + "---\n" + strings.ReplaceAll(strings.Replace(valid, "self.a > 0", "self.b > 0", 1), "thing", "widget") +
				"---\n" + strings.ReplaceAll(strings.Replace(valid, "type: integer", "type: int", 1), "thing", "gadget"),
			want: `crds.yaml:23 (document 2): CustomResourceDefinition "widgets.example.io" is invalid:` + "\n  " + `crds.yaml:41: spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: compilation failed: ERROR: <input>:1:5: undefined field 'b'` + "\n     | self.b > 0\n     | ....^",
		},
		{
			// The server quotes the whole versions list as Go structs for
			// each cause; each is said once, at the version it is about.
			name: "a version name given twice",
			in:   valid + twoVersions("v1", "storage: false"),
			want: `crds.yaml:1 (document 1): CustomResourceDefinition "things.example.io" is invalid:` + "\n  " +
				`crds.yaml:22: spec.versions[1].name: Duplicate value: "v1": must contain unique version names; spec.versions[0] (line 9) has it too`,
		},
		{
			// The server also reports every storage version but the first
			// as missing from status.storedVersions, which it filled
			// itself: a consequence, left out.
			name: "three storage versions",
			in:   valid + twoVersions("v2", "storage: true") + twoVersions("v3", "storage: true"),
			want: `crds.yaml:1 (document 1): CustomResourceDefinition "things.example.io" is invalid:` + "\n  " +
				`crds.yaml:24: spec.versions[1].storage: Invalid value: true: must have exactly one version marked as storage version; spec.versions[0] (line 9) is one already, and so is spec.versions[2] (line 26)`,
		},
		{
			name: "v1beta1",
			in:   strings.Replace(valid, "apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1", 1),
			want: `crds.yaml:1 (document 1): CustomResourceDefinition "things.example.io": apiextensions.k8s.io/v1beta1 is not served by Kubernetes since 1.22; convert it to apiextensions.k8s.io/v1`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs, err := manifest.Read(strings.NewReader(tt.in), "crds.yaml")
			if err != nil {
				t.Fatal(err)
			}
			crds, err := crdschema.CRDsFromDocuments(t.Context(), docs)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("error\n got: %s\nwant: %s", got, tt.want)
			}
			if err == nil && len(crds) != 1 {
				t.Errorf("got %d CRDs, want 1", len(crds))
			}
		})
	}
}

func TestRegistry(t *testing.T) {
	registry := widgets(t)
	if got := registry.Kinds(); len(got) != 1 || got[0].String() != "test.crdguard.dev/v1, Kind=Widget" {
		t.Errorf("Kinds() = %v, want only the served version", got)
	}

	cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "x"}}}
	_, err := registry.Validate(t.Context(), cm, nil)
	var noSchema *crdschema.NoSchemaError
	if !errors.As(err, &noSchema) || err.Error() != "no CustomResourceDefinition defines /v1, Kind=ConfigMap" {
		t.Errorf("ConfigMap: err = %v, want a NoSchemaError", err)
	}

	if got, ok := registry.Resource(schema.GroupKind{Group: "test.crdguard.dev", Kind: "Widget"}); got != "widgets" || !ok {
		t.Errorf("Resource(Widget) = %q, %v; want widgets", got, ok)
	}
	if got, ok := registry.Resource(schema.GroupKind{Kind: "ConfigMap"}); ok {
		t.Errorf("Resource(ConfigMap) = %q; want none", got)
	}
	if _, ok := (*crdschema.Registry)(nil).Resource(schema.GroupKind{Kind: "ConfigMap"}); ok {
		t.Error("a nil Registry names a resource")
	}

	for _, tt := range []struct{ ns, want string }{{"", "default"}, {"team-a", "team-a"}} {
		w := readObject(t, "testdata/cases/valid-minimal/new.yaml")
		w.SetNamespace(tt.ns)
		if got := registry.Namespace(w); got != tt.want {
			t.Errorf("Namespace(%q) = %q, want %q", tt.ns, got, tt.want)
		}
	}
}

func TestNewRegistryRejectsTwoCRDsForOneKind(t *testing.T) {
	docs, err := manifest.ReadFile("testdata/widgets-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	crds, err := crdschema.CRDsFromDocuments(t.Context(), docs)
	if err != nil {
		t.Fatal(err)
	}
	other := crds[0].DeepCopy()
	other.Name = "gadgets.test.crdguard.dev"
	_, err = crdschema.NewRegistry(crds[0], other)
	if want := `CustomResourceDefinitions "widgets.test.crdguard.dev" and "gadgets.test.crdguard.dev" both define Widget.test.crdguard.dev`; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
	_, err = crdschema.NewRegistry(crds[0], crds[0])
	if want := `CustomResourceDefinition "widgets.test.crdguard.dev" is given twice`; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}

func TestDefault(t *testing.T) {
	v, err := widgets(t).Validator(schema.GroupVersionKind{Group: "test.crdguard.dev", Version: "v1", Kind: "Widget"})
	if err != nil {
		t.Fatal(err)
	}
	obj := readObject(t, "testdata/cases/valid-minimal/new.yaml")
	obj.Object["spec"].(map[string]any)["users"] = []any{map[string]any{"name": "a"}}
	obj.Object["spec"].(map[string]any)["ratio"] = nil
	obj.Object["spec"].(map[string]any)["name"] = nil
	v.Default(obj)
	got, _ := obj.MarshalJSON()
	got = bytes.TrimSpace(got)
	want := `{"apiVersion":"test.crdguard.dev/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"ratio":null,"replicas":1,"size":"small","users":[{"name":"a","role":"reader"}]}}`
	if string(got) != want {
		t.Errorf("defaulted\n got: %s\nwant: %s", got, want)
	}
}

func TestValidateUpdateWithUndecodableOldObject(t *testing.T) {
	registry := widgets(t)
	obj := readObject(t, "testdata/cases/valid-minimal/new.yaml")
	old := obj.DeepCopy()
	old.Object["metadata"] = map[string]any{"name": "w", "labels": "not-a-map"}
	errs, err := registry.Validate(t.Context(), obj, old)
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) != 1 || errs[0].Field != "metadata" || !strings.HasPrefix(errs[0].Detail, "old object: ") {
		t.Errorf("errs = %v, want one metadata error about the old object", errs)
	}
}

// twoVersions is another item of crdYAML's versions, named name, with
// storage set by storage ("storage: true").
func twoVersions(name, storage string) string {
	return fmt.Sprintf("  - name: %s\n    served: true\n    %s\n    schema: {openAPIV3Schema: {type: object}}\n", name, storage)
}

// TestValidateWithOptionsIsDryRunWithoutStored checks that the path that
// prepares no stored object reports what DryRun reports: the same errors,
// warnings and error on every conformance object (creates, updates, an
// unserved version), under each field validation, with the fast paths
// verified against kube-apiserver's validators.
func TestValidateWithOptionsIsDryRunWithoutStored(t *testing.T) {
	modes := []crdschema.FieldValidation{crdschema.FieldValidationStrict, crdschema.FieldValidationWarn, crdschema.FieldValidationIgnore}
	for _, set := range decodeSets() {
		t.Run(set.name, func(t *testing.T) {
			registry := set.crds(t)
			var compared int
			for _, o := range readConformanceObjects(t, set.objects) {
				for _, mode := range modes {
					opts := crdschema.ValidateOptions{FieldValidation: mode}
					dryRunCtx, dryRunWarnings := crdschema.RecordWarnings(crdschema.WithFastPathVerification(t.Context()))
					_, wantErrs, wantErr := registry.DryRun(dryRunCtx, o.obj, o.old, opts)
					ctx, warnings := crdschema.RecordWarnings(crdschema.WithFastPathVerification(t.Context()))
					errs, err := registry.ValidateWithOptions(ctx, o.obj, o.old, opts)
					what := fmt.Sprintf("%s %s (%s)", o.source, o.obj.GetName(), mode)
					if fmt.Sprint(err) != fmt.Sprint(wantErr) {
						t.Errorf("%s: error %v, DryRun's %v", what, err, wantErr)
					}
					if got, want := withoutGeneratedName(o.obj, fmt.Sprintf("%q", errs)), withoutGeneratedName(o.obj, fmt.Sprintf("%q", wantErrs)); got != want {
						t.Errorf("%s: errors %s, DryRun's %s", what, got, want)
					}
					if got, want := fmt.Sprintf("%q", warnings.Warnings()), fmt.Sprintf("%q", dryRunWarnings.Warnings()); got != want {
						t.Errorf("%s: warnings %s, DryRun's %s", what, got, want)
					}
					compared++
				}
			}
			if compared == 0 {
				t.Errorf("no objects in %s", set.objects)
			}
		})
	}
}

// withoutGeneratedName replaces in text the name the server would generate
// for obj, which is random, by a placeholder.
func withoutGeneratedName(obj *unstructured.Unstructured, text string) string {
	prefix := obj.GetGenerateName()
	if obj.GetName() != "" || prefix == "" {
		return text
	}
	return regexp.MustCompile(regexp.QuoteMeta(prefix)+"[a-z0-9]{5}").ReplaceAllString(text, prefix+"<generated>")
}

// Compile compiles every served kind, or those given, and returns the
// first error in their order, whichever goroutine met it first; the
// validators are then those Validator returns.
func TestRegistryCompile(t *testing.T) {
	docs, err := manifest.ReadFile("testdata/widgets-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	crds, err := crdschema.CRDsFromDocuments(t.Context(), docs)
	if err != nil {
		t.Fatal(err)
	}
	// CRDs without a schema, which only NewRegistry's callers can give
	// it, fail to compile.
	all := []*apiextensionsv1.CustomResourceDefinition{crds[0]}
	for _, kind := range []string{"Gadget", "Anvil", "Bolt"} {
		broken := crds[0].DeepCopy()
		broken.Name = strings.ToLower(kind) + "s.test.crdguard.dev"
		broken.Spec.Names = apiextensionsv1.CustomResourceDefinitionNames{Kind: kind, Plural: strings.ToLower(kind) + "s"}
		broken.Spec.Versions[0].Schema = nil
		all = append(all, broken)
	}
	registry, err := crdschema.NewRegistry(all...)
	if err != nil {
		t.Fatal(err)
	}
	kind := func(k string) schema.GroupVersionKind {
		return schema.GroupVersionKind{Group: "test.crdguard.dev", Version: "v1", Kind: k}
	}

	err = registry.Compile(t.Context())
	if want := `CustomResourceDefinition "anvils.test.crdguard.dev" version v1 has no schema`; err == nil || err.Error() != want {
		t.Errorf("Compile() = %v, want the first kind's error in Kinds' order: %s", err, want)
	}
	err = registry.Compile(t.Context(), kind("Widget"), kind("Gadget"), kind("Bolt"))
	if want := `CustomResourceDefinition "gadgets.test.crdguard.dev" version v1 has no schema`; err == nil || err.Error() != want {
		t.Errorf("Compile(Widget, Gadget, Bolt) = %v, want the first given kind's error: %s", err, want)
	}
	if _, err := registry.Validator(kind("Bolt")); err == nil {
		t.Error("Validator(Bolt) after Compile: no error, want its compile error again")
	}
	if err := registry.Compile(t.Context(), kind("Widget")); err != nil {
		t.Errorf("Compile(Widget) = %v, want nil", err)
	}
	var noSchema *crdschema.NoSchemaError
	if err := registry.Compile(t.Context(), kind("Widget"), kind("Sprocket")); !errors.As(err, &noSchema) {
		t.Errorf("Compile(Widget, Sprocket) = %v, want a NoSchemaError", err)
	}
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(errors.New("interrupted"))
	if err := registry.Compile(ctx); err == nil || err.Error() != "interrupted" {
		t.Errorf("Compile(done context) = %v, want its cause", err)
	}
}
