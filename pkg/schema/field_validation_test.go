package schema_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/crdguard/crdguard/pkg/schema"
)

// TestFieldValidation validates one object with unknown fields and a schema
// error under each mode: the schema error is reported in every mode, the
// unknown fields are errors (Strict), warnings worded as the server's
// (Warn), or nothing (Ignore).
func TestFieldValidation(t *testing.T) {
	registry := widgets(t)
	obj := readObject(t, "testdata/cases/unknown-fields/new.yaml")
	obj.Object["spec"].(map[string]any)["replicas"] = int64(11)
	schemaError := "spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10"
	unknown := []string{"metadata.foo", "spec.bogus", "spec.template.metadata.foo", "spec.users[0].baz", "status.unknown"}

	tests := []struct {
		mode         schema.FieldValidation
		wantErrs     []string
		wantWarnings []string
	}{
		{mode: "", wantErrs: forbiddenUnknown(unknown, schemaError)},
		{mode: schema.FieldValidationStrict, wantErrs: forbiddenUnknown(unknown, schemaError)},
		{mode: schema.FieldValidationWarn, wantErrs: []string{schemaError}, wantWarnings: []string{
			`unknown field "metadata.foo"`, `unknown field "spec.bogus"`, `unknown field "spec.template.metadata.foo"`,
			`unknown field "spec.users[0].baz"`, `unknown field "status.unknown"`,
		}},
		{mode: schema.FieldValidationIgnore, wantErrs: []string{schemaError}},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode), func(t *testing.T) {
			ctx, recorder := schema.RecordWarnings(t.Context())
			v, err := registry.Validator(obj.GroupVersionKind())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range v.ValidateWithOptions(ctx, obj, nil, schema.ValidateOptions{FieldValidation: tt.mode}) {
				got = append(got, e.Error())
			}
			if !slices.Equal(got, tt.wantErrs) {
				t.Errorf("errors:\n got %q\nwant %q", got, tt.wantErrs)
			}
			if warnings := sorted(recorder.Warnings()); !slices.Equal(warnings, tt.wantWarnings) {
				t.Errorf("warnings:\n got %q\nwant %q", warnings, tt.wantWarnings)
			}
		})
	}
}

func forbiddenUnknown(paths []string, others ...string) []string {
	var out []string
	for _, p := range paths {
		out = append(out, p+`: Forbidden: unknown field "`+p+`"`)
	}
	out = append(out, others...)
	slices.Sort(out)
	return out
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func TestParseFieldValidation(t *testing.T) {
	for in, want := range map[string]schema.FieldValidation{"Strict": "Strict", "warn": "Warn", "IGNORE": "Ignore"} {
		got, err := schema.ParseFieldValidation(in)
		if err != nil || got != want {
			t.Errorf("ParseFieldValidation(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	_, err := schema.ParseFieldValidation("true")
	if err == nil || err.Error() != `field validation "true": want Strict, Warn or Ignore` {
		t.Errorf("ParseFieldValidation(true): %v", err)
	}
}

// TestDryRun checks the stored object of a create and of an update: pruned,
// defaulted, status dropped (the status subresource is on), metadata filled
// as the server fills it and without what only the server assigns.
func TestDryRun(t *testing.T) {
	registry := widgets(t)
	obj := readObject(t, "testdata/cases/unknown-fields/new.yaml")
	obj.SetUID("given")
	obj.SetResourceVersion("5")
	before := obj.DeepCopy()

	stored, errs, err := registry.DryRun(t.Context(), obj, nil, schema.ValidateOptions{FieldValidation: schema.FieldValidationIgnore})
	if err != nil || len(errs) > 0 {
		t.Fatalf("DryRun: %v %v", errs, err)
	}
	if !equalObjects(before, obj) {
		t.Errorf("DryRun modified its input")
	}
	want := `apiVersion: test.crdguard.dev/v1
kind: Widget
metadata:
  generation: 1
  name: w
  namespace: default
spec:
  replicas: 1
  size: small
  template:
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: cm
  users:
  - name: a
    role: reader
`
	if got := yamlOf(t, stored.Object); got != want {
		t.Errorf("stored on create:\n%s\nwant:\n%s", got, want)
	}

	// An update keeps the stored object's uid and creationTimestamp, and
	// counts a changed spec in generation.
	old := stored.DeepCopy()
	old.SetUID("stored-uid")
	old.SetCreationTimestamp(metav1.NewTime(time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)))
	old.SetGeneration(3)
	updated := old.DeepCopy()
	updated.SetUID("")
	updated.Object["spec"].(map[string]any)["size"] = "large"
	stored, errs, err = registry.DryRun(t.Context(), updated, old, schema.ValidateOptions{})
	if err != nil || len(errs) > 0 {
		t.Fatalf("DryRun: %v %v", errs, err)
	}
	meta := yamlOf(t, stored.Object["metadata"])
	wantMeta := "creationTimestamp: \"2024-05-01T10:00:00Z\"\ngeneration: 4\nname: w\nnamespace: default\nuid: stored-uid\n"
	if meta != wantMeta {
		t.Errorf("stored metadata on update:\n%s\nwant:\n%s", meta, wantMeta)
	}
	if !strings.Contains(yamlOf(t, stored.Object["spec"]), "size: large") {
		t.Errorf("stored spec lost the update: %v", stored.Object["spec"])
	}
}

func yamlOf(t *testing.T, v any) string {
	t.Helper()
	data, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
