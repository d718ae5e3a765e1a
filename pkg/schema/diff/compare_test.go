package diff

import (
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// baseCRD is a small valid CRD with two versions; cases change copies of it.
const baseCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets, shortNames: [wd], categories: [all]}
  versions:
  - name: v1beta1
    served: true
    storage: false
    schema:
      openAPIV3Schema: {type: object}
  - name: v1
    served: true
    storage: true
    subresources: {status: {}, scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object}
`

func parseCRD(t *testing.T, doc string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict([]byte(doc), crd); err != nil {
		t.Fatal(err)
	}
	return crd
}

// withSpec is baseCRD with the v1 spec property's schema given as YAML.
func withSpec(t *testing.T, spec string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	crd := parseCRD(t, baseCRD)
	s := apiextensionsv1.JSONSchemaProps{}
	if err := yaml.UnmarshalStrict([]byte(spec), &s); err != nil {
		t.Fatalf("spec schema: %v", err)
	}
	crd.Spec.Versions[1].Schema.OpenAPIV3Schema.Properties["spec"] = s
	return crd
}

// summary renders changes as "severity check version path old→new", the
// fields each case asserts exactly.
func summary(changes []Change) []string {
	out := make([]string, len(changes))
	for i, c := range changes {
		out[i] = strings.Join([]string{string(c.Impact), c.Check, c.Version, c.Path, c.Values()}, " ")
	}
	return out
}

// crdCase changes copies of a base CRD into the old and the new one;
// want is the summary of the changes between them.
type crdCase struct {
	name string
	old  func(*apiextensionsv1.CustomResourceDefinition) // changes the old CRD, nil: base
	new  func(*apiextensionsv1.CustomResourceDefinition) // changes the new CRD, nil: base
	want []string
}

// runCRDCases compares the old and the new CRD of each case, made from
// base.
func runCRDCases(t *testing.T, base string, tests []crdCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, new := parseCRD(t, base), parseCRD(t, base)
			if tt.old != nil {
				tt.old(old)
			}
			if tt.new != nil {
				tt.new(new)
			}
			got, err := Compare(old, new)
			if err != nil {
				t.Fatal(err)
			}
			assertChanges(t, got, tt.want)
		})
	}
}

func assertChanges(t *testing.T, got []Change, want []string) {
	t.Helper()
	g := summary(got)
	if strings.Join(g, "\n") != strings.Join(want, "\n") {
		t.Errorf("changes\n got: %q\nwant: %q", g, want)
	}
	for _, c := range got {
		if c.Message == "" || c.CRD != "widgets.example.com" {
			t.Errorf("%s: empty message or wrong CRD %q", c.Check, c.CRD)
		}
	}
}

const specPath = "spec.versions[1].schema.openAPIV3Schema.properties.spec"

func TestPropertyChecks(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		want     []string
	}{
		{"no change", `{type: object, properties: {a: {type: string}}}`, `{type: object, properties: {a: {type: string}}}`, nil},
		{"field removed", `{type: object, properties: {a: {type: string}, b: {type: integer}}}`, `{type: object, properties: {a: {type: string}}}`,
			[]string{"breaking field-removed v1 " + specPath + ".properties.b integer → <none>"}},
		{"field removed under preserve-unknown-fields", `{type: object, x-kubernetes-preserve-unknown-fields: true, properties: {b: {type: integer}}}`, `{type: object, x-kubernetes-preserve-unknown-fields: true}`,
			[]string{"warning field-removed v1 " + specPath + ".properties.b integer → <none>"}},
		{"field added", `{type: object}`, `{type: object, properties: {a: {type: string}}}`,
			[]string{"info field-added v1 " + specPath + ".properties.a <none> → string"}},
		{"type changed", `{type: object, properties: {a: {type: string}}}`, `{type: object, properties: {a: {type: integer}}}`,
			[]string{"breaking type-changed v1 " + specPath + ".properties.a.type string → integer"}},
		{"type widened to int-or-string", `{type: object, properties: {a: {type: integer}}}`, `{type: object, properties: {a: {x-kubernetes-int-or-string: true}}}`,
			[]string{"info type-changed v1 " + specPath + ".properties.a.type integer → <none>", "info int-or-string-changed v1 " + specPath + ".properties.a.x-kubernetes-int-or-string false → true"}},
		{"int-or-string removed", `{x-kubernetes-int-or-string: true}`, `{type: string}`,
			[]string{"breaking type-changed v1 " + specPath + ".type <none> → string", "breaking int-or-string-changed v1 " + specPath + ".x-kubernetes-int-or-string true → false"}},
		{"enum value removed", `{type: string, enum: [a, b]}`, `{type: string, enum: [a]}`,
			[]string{`breaking enum-value-removed v1 ` + specPath + `.enum "b" → <none>`}},
		{"enum value added", `{type: string, enum: [a]}`, `{type: string, enum: [a, b]}`,
			[]string{`warning enum-value-added v1 ` + specPath + `.enum <none> → "b"`}},
		{"enum reordered", `{type: string, enum: [a, b]}`, `{type: string, enum: [b, a]}`,
			[]string{`info enum-value-added v1 ` + specPath + `.enum ["\"a\"","\"b\""] → ["\"b\"","\"a\""]`}},
		{"enum introduced", `{type: string}`, `{type: string, enum: [a]}`,
			[]string{`breaking enum-introduced v1 ` + specPath + `.enum <none> → "a"`}},
		{"enum lifted", `{type: string, enum: [a]}`, `{type: string}`,
			[]string{`info enum-introduced v1 ` + specPath + `.enum "a" → <none>`}},
		{"required added", `{type: object, properties: {a: {type: string}}}`, `{type: object, required: [a], properties: {a: {type: string}}}`,
			[]string{"breaking required-changed v1 " + specPath + ".required <none> → a"}},
		{"required added with default", `{type: object, properties: {a: {type: string, default: x}}}`, `{type: object, required: [a], properties: {a: {type: string, default: x}}}`,
			[]string{"info required-changed v1 " + specPath + ".required <none> → a"}},
		{"required removed", `{type: object, required: [a], properties: {a: {type: string}}}`, `{type: object, properties: {a: {type: string}}}`,
			[]string{"info required-changed v1 " + specPath + ".required a → <none>"}},
		{"required reordered", `{type: object, required: [a, b], properties: {a: {type: string}, b: {type: string}}}`, `{type: object, required: [b, a], properties: {a: {type: string}, b: {type: string}}}`,
			[]string{`info required-changed v1 ` + specPath + `.required ["a","b"] → ["b","a"]`}},
		{"default added", `{type: integer}`, `{type: integer, default: 1}`,
			[]string{"warning default-changed v1 " + specPath + ".default <none> → 1"}},
		{"default changed", `{type: integer, default: 1}`, `{type: integer, default: 2}`,
			[]string{"breaking default-changed v1 " + specPath + ".default 1 → 2"}},
		{"default removed", `{type: integer, default: 1}`, `{type: integer}`,
			[]string{"warning default-changed v1 " + specPath + ".default 1 → <none>"}},
		{"maximum lowered", `{type: integer, maximum: 10}`, `{type: integer, maximum: 5}`,
			[]string{"breaking maximum-changed v1 " + specPath + ".maximum 10 → 5"}},
		{"maximum raised", `{type: integer, maximum: 10}`, `{type: integer, maximum: 20}`,
			[]string{"info maximum-changed v1 " + specPath + ".maximum 10 → 20"}},
		{"maxLength added", `{type: string}`, `{type: string, maxLength: 5}`,
			[]string{"breaking maximum-changed v1 " + specPath + ".maxLength <none> → 5"}},
		{"maxItems removed", `{type: array, maxItems: 3, items: {type: string}}`, `{type: array, items: {type: string}}`,
			[]string{"info maximum-changed v1 " + specPath + ".maxItems 3 → <none>"}},
		{"exclusiveMaximum on", `{type: integer, maximum: 5}`, `{type: integer, maximum: 5, exclusiveMaximum: true}`,
			[]string{"breaking maximum-changed v1 " + specPath + ".exclusiveMaximum false → true"}},
		{"minimum raised", `{type: integer, minimum: 1}`, `{type: integer, minimum: 2}`,
			[]string{"breaking minimum-changed v1 " + specPath + ".minimum 1 → 2"}},
		{"minLength lowered", `{type: string, minLength: 2}`, `{type: string, minLength: 1}`,
			[]string{"info minimum-changed v1 " + specPath + ".minLength 2 → 1"}},
		{"minProperties added", `{type: object}`, `{type: object, minProperties: 1}`,
			[]string{"breaking minimum-changed v1 " + specPath + ".minProperties <none> → 1"}},
		{"pattern added", `{type: string}`, `{type: string, pattern: '^a'}`,
			[]string{"breaking pattern-changed v1 " + specPath + ".pattern <none> → ^a"}},
		{"pattern removed", `{type: string, pattern: '^a'}`, `{type: string}`,
			[]string{"info pattern-changed v1 " + specPath + ".pattern ^a → <none>"}},
		{"format changed", `{type: string, format: date}`, `{type: string, format: date-time}`,
			[]string{"breaking format-changed v1 " + specPath + ".format date → date-time"}},
		{"format removed", `{type: string, format: date}`, `{type: string}`,
			[]string{"info format-changed v1 " + specPath + ".format date → <none>"}},
		// external-secrets v0.17.0 → v0.18.2, sessionDuration: the API
		// server checks no integer's format.
		{"integer format narrowed", `{type: integer, format: int64}`, `{type: integer, format: int32}`,
			[]string{"warning format-changed v1 " + specPath + ".format int64 → int32"}},
		{"unsupported string format added", `{type: string}`, `{type: string, format: semver}`,
			[]string{"warning format-changed v1 " + specPath + ".format <none> → semver"}},
		{"unsupported string format replaced by a checked one", `{type: string, format: semver}`, `{type: string, format: uuid}`,
			[]string{"breaking format-changed v1 " + specPath + ".format semver → uuid"}},
		{"nullable off", `{type: string, nullable: true}`, `{type: string}`,
			[]string{"breaking nullable-changed v1 " + specPath + ".nullable true → false"}},
		{"nullable on", `{type: string}`, `{type: string, nullable: true}`,
			[]string{"info nullable-changed v1 " + specPath + ".nullable false → true"}},
		{"uniqueItems on", `{type: array, items: {type: string}}`, `{type: array, uniqueItems: true, items: {type: string}}`,
			[]string{"breaking unique-items-changed v1 " + specPath + ".uniqueItems false → true"}},
		{"uniqueItems off", `{type: array, uniqueItems: true, items: {type: string}}`, `{type: array, items: {type: string}}`,
			[]string{"info unique-items-changed v1 " + specPath + ".uniqueItems true → false"}},
		{"list type set", `{type: array, items: {type: string}}`, `{type: array, x-kubernetes-list-type: set, items: {type: string}}`,
			[]string{"breaking list-type-changed v1 " + specPath + ".x-kubernetes-list-type <none> → set"}},
		{"list type atomic made explicit", `{type: array, items: {type: string}}`, `{type: array, x-kubernetes-list-type: atomic, items: {type: string}}`,
			[]string{"info list-type-changed v1 " + specPath + ".x-kubernetes-list-type <none> → atomic"}},
		{"list map keys changed", `{type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [name], items: {type: object, required: [name, port], properties: {name: {type: string}, port: {type: integer}}}}`,
			`{type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [name, port], items: {type: object, required: [name, port], properties: {name: {type: string}, port: {type: integer}}}}`,
			[]string{"breaking list-type-changed v1 " + specPath + ".x-kubernetes-list-map-keys name → name,port"}},
		{"preserve unknown fields removed", `{type: object, x-kubernetes-preserve-unknown-fields: true}`, `{type: object}`,
			[]string{"breaking preserve-unknown-fields-changed v1 " + specPath + ".x-kubernetes-preserve-unknown-fields true → false"}},
		{"preserve unknown fields added", `{type: object}`, `{type: object, x-kubernetes-preserve-unknown-fields: true}`,
			[]string{"info preserve-unknown-fields-changed v1 " + specPath + ".x-kubernetes-preserve-unknown-fields false → true"}},
		{"embedded resource on", `{type: object, properties: {t: {type: object}}}`, `{type: object, properties: {t: {type: object, x-kubernetes-embedded-resource: true}}}`,
			[]string{"breaking embedded-resource-changed v1 " + specPath + ".properties.t.x-kubernetes-embedded-resource false → true"}},
		{"embedded resource off", `{type: object, properties: {t: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}}}`, `{type: object, properties: {t: {type: object, x-kubernetes-preserve-unknown-fields: true}}}`,
			[]string{"breaking embedded-resource-changed v1 " + specPath + ".properties.t.x-kubernetes-embedded-resource true → false"}},
		{"map type changed", `{type: object, x-kubernetes-map-type: granular}`, `{type: object, x-kubernetes-map-type: atomic}`,
			[]string{"breaking list-type-changed v1 " + specPath + ".x-kubernetes-map-type granular → atomic"}},
		{"list type set to atomic", `{type: array, x-kubernetes-list-type: set, items: {type: string}}`, `{type: array, x-kubernetes-list-type: atomic, items: {type: string}}`,
			[]string{"breaking list-type-changed v1 " + specPath + ".x-kubernetes-list-type set → atomic"}},
		{"maxProperties raised", `{type: object, maxProperties: 2}`, `{type: object, maxProperties: 3}`,
			[]string{"info maximum-changed v1 " + specPath + ".maxProperties 2 → 3"}},
		{"exclusiveMinimum off", `{type: integer, minimum: 0, exclusiveMinimum: true}`, `{type: integer, minimum: 0}`,
			[]string{"info minimum-changed v1 " + specPath + ".exclusiveMinimum true → false"}},
		{"type unchanged, format added", `{type: string}`, `{type: string, format: uuid}`,
			[]string{"breaking format-changed v1 " + specPath + ".format <none> → uuid"}},
		{"CEL rule reordered", `{type: object, x-kubernetes-validations: [{rule: self.a > 0}, {rule: self.a < 9}], properties: {a: {type: integer}}}`, `{type: object, x-kubernetes-validations: [{rule: self.a < 9}, {rule: self.a > 0}], properties: {a: {type: integer}}}`,
			nil},
		{"CEL rules shown verbatim", `{type: object, properties: {a: {type: string}}}`, `{type: object, x-kubernetes-validations: [{rule: "self.a.matches('^[a-z]+$') && size(self.a) < 5"}], properties: {a: {type: string}}}`,
			[]string{"breaking validation-rules-changed v1 " + specPath + ".x-kubernetes-validations[0] <none> → self.a.matches('^[a-z]+$') && size(self.a) < 5"}},
		{"default object compared as JSON", `{type: object, default: {a: 1, b: 2}}`, `{type: object, default: {b: 2, a: 1}}`, nil},
		{"title and example", `{type: string, title: a, example: x}`, `{type: string, title: b, example: z}`,
			[]string{"info description-changed v1 " + specPath + ".title a → b", `info description-changed v1 ` + specPath + `.example "x" → "z"`}},
		{"unclassified items as a list", `{type: array, items: {type: string}}`, `{type: array, items: [{type: string}]}`,
			[]string{`breaking unclassified v1 ` + specPath + `.items {"type":"string"} → [{"type":"string"}]`}},
		{"additionalProperties narrowed", `{type: object, additionalProperties: {type: string}}`, `{type: object}`,
			[]string{`breaking additional-properties-changed v1 ` + specPath + `.additionalProperties {"type":"string"} → <none>`}},
		{"additionalProperties widened", `{type: object}`, `{type: object, additionalProperties: {type: string}}`,
			[]string{`info additional-properties-changed v1 ` + specPath + `.additionalProperties <none> → {"type":"string"}`}},
		{"additionalProperties schema walked", `{type: object, additionalProperties: {type: string}}`, `{type: object, additionalProperties: {type: string, maxLength: 3}}`,
			[]string{"breaking maximum-changed v1 " + specPath + ".additionalProperties.maxLength <none> → 3"}},
		{"items walked", `{type: array, items: {type: string}}`, `{type: array, items: {type: string, enum: [a]}}`,
			[]string{`breaking enum-introduced v1 ` + specPath + `.items.enum <none> → "a"`}},
		{"CEL rule added", `{type: object, properties: {a: {type: integer}}}`, `{type: object, x-kubernetes-validations: [{rule: self.a > 0}], properties: {a: {type: integer}}}`,
			[]string{"breaking validation-rules-changed v1 " + specPath + ".x-kubernetes-validations[0] <none> → self.a > 0"}},
		{"CEL rule changed", `{type: object, x-kubernetes-validations: [{rule: self.a > 0}], properties: {a: {type: integer}}}`, `{type: object, x-kubernetes-validations: [{rule: self.a > 1}], properties: {a: {type: integer}}}`,
			[]string{"breaking validation-rules-changed v1 " + specPath + ".x-kubernetes-validations[0] self.a > 0 → self.a > 1"}},
		{"CEL rule removed", `{type: object, x-kubernetes-validations: [{rule: self.a > 0}], properties: {a: {type: integer}}}`, `{type: object, properties: {a: {type: integer}}}`,
			[]string{"info validation-rules-changed v1 " + specPath + ".x-kubernetes-validations self.a > 0 → <none>"}},
		{"CEL message changed", `{type: object, x-kubernetes-validations: [{rule: self.a > 0, message: x}], properties: {a: {type: integer}}}`, `{type: object, x-kubernetes-validations: [{rule: self.a > 0, message: "y"}], properties: {a: {type: integer}}}`,
			[]string{`info validation-rules-changed v1 ` + specPath + `.x-kubernetes-validations[0] {"rule":"self.a > 0","message":"x"} → {"rule":"self.a > 0","message":"y"}`}},
		{"description", `{type: object, description: old}`, `{type: object, description: new}`,
			[]string{"info description-changed v1 " + specPath + ".description old → new"}},
		{"unclassified keyword", `{type: integer, multipleOf: 2}`, `{type: integer, multipleOf: 3}`,
			[]string{"breaking unclassified v1 " + specPath + ".multipleOf 2 → 3"}},
		{"unclassified sub-schema", `{type: object, anyOf: [{required: [a]}], properties: {a: {type: string}}}`, `{type: object, anyOf: [{required: [b]}], properties: {a: {type: string}}}`,
			[]string{`breaking unclassified v1 ` + specPath + `.anyOf [{"required":["a"]}] → [{"required":["b"]}]`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Compare(withSpec(t, tt.old), withSpec(t, tt.new))
			if err != nil {
				t.Fatal(err)
			}
			assertChanges(t, got, tt.want)
		})
	}
}

func TestValuesFitOnOneLine(t *testing.T) {
	long := strings.Repeat("word ", 50)
	got, err := Compare(withSpec(t, "{type: object, description: \"first line\\nsecond "+long+"\"}"), withSpec(t, "{type: object}"))
	if err != nil {
		t.Fatal(err)
	}
	// 200 runes: the escaped line break, then words up to the ellipsis.
	want := []string{`info description-changed v1 ` + specPath + `.description first line\nsecond ` + strings.Repeat("word ", 36) + `… → <none>`}
	assertChanges(t, got, want)
}

// TestDescriptionShowsTheChangedWords: two long descriptions that share
// their opening show the words that changed, not two equal excerpts.
func TestDescriptionShowsTheChangedWords(t *testing.T) {
	const opening = "TargetRefs identifies an API object to apply the policy to. "
	got, err := Compare(
		withSpec(t, `{type: object, description: "`+opening+`Only Services have Extended support."}`),
		withSpec(t, `{type: object, description: "`+opening+`Services and ServiceImports have Extended support."}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`info description-changed v1 ` + specPath + `.description … apply the policy to. [-Only-] Services {+and ServiceImports+} have Extended support.`}
	assertChanges(t, got, want)
	if got[0].Old != opening+"Only Services have Extended support." || got[0].New != opening+"Services and ServiceImports have Extended support." {
		t.Errorf("old %q, new %q: want both in full", got[0].Old, got[0].New)
	}
}
