package gotypes_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/crdguard/crdguard/pkg/schema/gotypes"
	clean "github.com/crdguard/crdguard/pkg/schema/gotypes/testdata/clean"
	duplicatejsonname "github.com/crdguard/crdguard/pkg/schema/gotypes/testdata/duplicate-json-name"
	ignoredfield "github.com/crdguard/crdguard/pkg/schema/gotypes/testdata/ignored-field"
	inlinenamedfield "github.com/crdguard/crdguard/pkg/schema/gotypes/testdata/inline-named-field"
	jsontagname "github.com/crdguard/crdguard/pkg/schema/gotypes/testdata/json-tag-name"
	markerrequiredmismatch "github.com/crdguard/crdguard/pkg/schema/gotypes/testdata/marker-required-mismatch"
	missingjsontag "github.com/crdguard/crdguard/pkg/schema/gotypes/testdata/missing-json-tag"
	opaquetype "github.com/crdguard/crdguard/pkg/schema/gotypes/testdata/opaque-type"
	prunedfield "github.com/crdguard/crdguard/pkg/schema/gotypes/testdata/pruned-field"
	requiredomitempty "github.com/crdguard/crdguard/pkg/schema/gotypes/testdata/required-omitempty"
	schemaonlyfield "github.com/crdguard/crdguard/pkg/schema/gotypes/testdata/schema-only-field"
	structalwayssent "github.com/crdguard/crdguard/pkg/schema/gotypes/testdata/struct-always-sent"
	typemismatch "github.com/crdguard/crdguard/pkg/schema/gotypes/testdata/type-mismatch"
	unvalidatedfield "github.com/crdguard/crdguard/pkg/schema/gotypes/testdata/unvalidated-field"
	zerovaluedefault "github.com/crdguard/crdguard/pkg/schema/gotypes/testdata/zero-value-default"
	zerovalueomitted "github.com/crdguard/crdguard/pkg/schema/gotypes/testdata/zero-value-omitted"
)

// runtimeKinds are the testdata kinds, compiled in, for the runtime proof.
// unsupported-type (json.Marshal fails by design) and missing-crd (no
// schema) have nothing to prove; zero-value-markers has no CRD.
var runtimeKinds = map[string]any{
	"clean":                    &clean.Widget{},
	"duplicate-json-name":      &duplicatejsonname.Widget{},
	"ignored-field":            &ignoredfield.Widget{},
	"inline-named-field":       &inlinenamedfield.Widget{},
	"json-tag-name":            &jsontagname.Widget{},
	"marker-required-mismatch": &markerrequiredmismatch.Widget{},
	"missing-json-tag":         &missingjsontag.Widget{},
	"opaque-type":              &opaquetype.Widget{},
	"pruned-field":             &prunedfield.Widget{},
	"required-omitempty":       &requiredomitempty.Widget{},
	"schema-only-field":        &schemaonlyfield.Widget{},
	"struct-always-sent":       &structalwayssent.Widget{},
	"type-mismatch":            &typemismatch.Widget{},
	"unvalidated-field":        &unvalidatedfield.Widget{},
	"zero-value-default":       &zerovaluedefault.Widget{},
	"zero-value-omitted":       &zerovalueomitted.Widget{},
}

// TestStaticAndRuntimeAgree: on every testdata kind, each path the API
// server drops or rejects at run time is one the static analysis reported
// (as pruned-field or type-mismatch, at the path or above it), and each
// such static finding shows up at run time (at the path or below it).
func TestStaticAndRuntimeAgree(t *testing.T) {
	for dir, obj := range runtimeKinds {
		t.Run(dir, func(t *testing.T) {
			crds := crdsOf(t, dir)
			findings, err := gotypes.Lint(kindsOf(t, dir), gotypes.Options{CRDs: crds})
			if err != nil {
				t.Fatal(err)
			}
			var static []string
			for _, f := range findings {
				if f.Check == "pruned-field" || f.Check == "type-mismatch" {
					static = append(static, f.Path)
				}
			}
			losses, err := gotypes.Losses(t.Context(), obj, crds[0], "v1")
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range losses {
				if !slices.ContainsFunc(static, func(s string) bool { return within(l.Path, s) }) {
					t.Errorf("runtime loss without a static finding: %s", l)
				}
			}
			for _, s := range static {
				if !slices.ContainsFunc(losses, func(l gotypes.Loss) bool { return within(l.Path, s) }) {
					t.Errorf("static finding at %s, but nothing is lost there at run time", s)
				}
			}
		})
	}
}

// within tells whether path is p or below it.
func within(path, p string) bool {
	return path == p || strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"[")
}

// TestLosses pins the runtime proof's exact output on the two packages
// where the API server loses data.
func TestLosses(t *testing.T) {
	tests := []struct {
		dir  string
		want []string
	}{
		{"clean", nil},
		// The fields the API server sets (uid, managedFields, a claim
		// template's status) are never written into a template: only what
		// a user writes there is lost.
		{"pruned-field", []string{
			"spec.podMetadata.labels: dropped: the schema does not declare it, so the API server prunes it",
			"spec.replicas: dropped: the schema does not declare it, so the API server prunes it",
			"spec.template.metadata.annotations: dropped: the schema does not declare it, so the API server prunes it",
			"spec.template.metadata.finalizers: dropped: the schema does not declare it, so the API server prunes it",
			"spec.template.metadata.labels: dropped: the schema does not declare it, so the API server prunes it",
			"spec.template.metadata.name: dropped: the schema does not declare it, so the API server prunes it",
			"spec.template.metadata.namespace: dropped: the schema does not declare it, so the API server prunes it",
		}},
		{"type-mismatch", []string{
			`spec.count: changed: Invalid value: "string": spec.count in body must be of type integer: "string"`,
			"spec.extra.key: dropped: the schema does not declare it, so the API server prunes it",
			`spec.items[*]: changed: Invalid value: "object": spec.items[0] in body must be of type string: "object"`,
			"spec.labels[*]: dropped: the schema does not declare it, so the API server prunes it",
			`spec.memory: changed: Invalid value: "string": spec.memory in body must be of type number: "string"`,
			`spec.ports: changed: Invalid value: "array": spec.ports in body must be of type object: "array"`,
			`spec.ratio: changed: Invalid value: "number": spec.ratio in body must be of type integer: "number"`,
			`spec.replicas: changed: Invalid value: "number": spec.replicas in body must be of type string: "number"`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			losses, err := gotypes.Losses(t.Context(), runtimeKinds[tt.dir], crdsOf(t, tt.dir)[0], "v1")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range losses {
				got = append(got, l.String())
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("losses\n got: %q\nwant: %q", got, tt.want)
			}
		})
	}
}

// recorder is a TestingT that keeps what RoundTrip reports.
type recorder struct{ errors []string }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func TestRoundTrip(t *testing.T) {
	crd, err := os.ReadFile(filepath.Join("testdata", "clean", "crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	gotypes.RoundTrip(t, &clean.Widget{}, crd) // the library use, verbatim

	pruned, err := os.ReadFile(filepath.Join("testdata", "pruned-field", "crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{}
	gotypes.RoundTrip(r, &prunedfield.Widget{}, pruned)
	if len(r.errors) != 7 || r.errors[1] != "gotypes.RoundTrip: spec.replicas: dropped: the schema does not declare it, so the API server prunes it" {
		t.Errorf("RoundTrip reported %d errors: %q", len(r.errors), r.errors)
	}
}
