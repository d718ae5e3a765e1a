package schema

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
)

// fastCase is a schema and a value, the fast check's expected verdict,
// and kube-openapi's, which the case documents.
type fastCase struct {
	name          string
	schema        string // JSON of a spec.Schema
	value         any
	want          verdict
	upstreamValid bool
}

// TestFastCheckQuirks has a case per kube-openapi quirk: the fast check
// answers unknown (or, where it calls upstream's own function, the same),
// and kube-openapi's answer is what the case says it is.
func TestFastCheckQuirks(t *testing.T) {
	runFastCases(t, []fastCase{
		{"string with a format accepts a JSON array", `{"type":"string","format":"date-time"}`, []any{"x"}, unknown, true},
		{"format with no type accepts a string", `{"format":"int32"}`, "abc", unknown, true},
		{"format with no type rejects a bool", `{"format":"int32"}`, true, unknown, false},
		{"enum matches through ConvertibleTo", `{"enum":["A"]}`, int64(65), unknown, true},
		{"enum with a non-string value", `{"enum":["a",1]}`, "a", unknown, true},
		{"integer bound with a fraction fails the range check of the bound", `{"type":"integer","maximum":10.5}`, int64(10), unknown, false},
		{"number bound with a fraction is truncated for an integer", `{"type":"number","minimum":0.5}`, int64(0), unknown, true},
		{"int32 range by string round trip", `{"type":"integer","format":"int32"}`, int64(1) << 40, unknown, false},
		{"float format by string round trip", `{"type":"number","format":"float"}`, 1.5, unknown, true},
		{"integral float is an integer", `{"type":"integer"}`, 3.0, unknown, true},
		{"IMPORTANT! error survives a matching oneOf branch",
			`{"oneOf":[{"required":["a"]},{"properties":{"IMPORTANT!x":{"type":"string"}}}]}`,
			map[string]any{"a": int64(1), "IMPORTANT!x": int64(5)}, unknown, false},
		{"IMPORTANT! key below anyOf", `{"anyOf":[{"properties":{"IMPORTANT!x":{"type":"string"}}},{"required":["a"]}]}`,
			map[string]any{"a": int64(1), "IMPORTANT!x": int64(5)}, unknown, true},
		{"null runs only type and enum", `{"type":"object","nullable":true,"required":["a"]}`, nil, unknown, true},
		{"null is not of a non-nullable type", `{"type":"object"}`, nil, unknown, false},
		{"patternProperties", `{"type":"object","patternProperties":{"^a":{"type":"string"}}}`, map[string]any{"ab": int64(1)}, unknown, false},
		{"dependencies", `{"type":"object","dependencies":{"a":["b"]}}`, map[string]any{"a": int64(1)}, unknown, false},
		{"tuple items", `{"type":"array","items":[{"type":"string"}]}`, []any{"a"}, unknown, true},
		{"additionalItems", `{"type":"array","additionalItems":false}`, []any{"a"}, unknown, true},
		{"several types with a format", `{"type":["integer","string"],"format":"int32"}`, "a", unknown, true},
		{"invalid pattern", `{"type":"string","pattern":"("}`, "a", unknown, false},
		// maxLength counts runes: the check calls upstream's MaxLength.
		{"maxLength counts runes, within", `{"type":"string","maxLength":3}`, "ééé", valid, true},
		{"maxLength counts runes, beyond", `{"type":"string","maxLength":3}`, "éééé", invalid, false},
	})
}

// TestFastCheckRefIsUnknown: kube-openapi panics on a $ref, so only the
// fast check's side is checked.
func TestFastCheckRefIsUnknown(t *testing.T) {
	s := &spec.Schema{SchemaProps: spec.SchemaProps{Ref: spec.MustCreateRef("#/definitions/a")}}
	if got := compileCheck(s).eval("a"); got != unknown {
		t.Errorf("verdict %v, want unknown", got)
	}
}

// TestFastCheckDefinite covers the definite answers, not and oneOf
// included, which need definite answers from their branches.
func TestFastCheckDefinite(t *testing.T) {
	obj := map[string]any{"a": int64(1)}
	runFastCases(t, []fastCase{
		{"type", `{"type":"string"}`, int64(1), invalid, false},
		{"integer for number", `{"type":"number","maximum":2}`, int64(1), valid, true},
		{"int-or-string", `{"type":["integer","string"],"x-kubernetes-int-or-string":true}`, "1Gi", valid, true},
		{"enum", `{"type":"string","enum":["a","b"]}`, "c", invalid, false},
		{"pattern", `{"type":"string","pattern":"^a+$"}`, "aa", valid, true},
		{"format", `{"type":"string","format":"uuid"}`, "nope", invalid, false},
		{"maximum", `{"type":"integer","maximum":5}`, int64(6), invalid, false},
		{"exclusive minimum", `{"type":"integer","minimum":5,"exclusiveMinimum":true}`, int64(5), invalid, false},
		{"multipleOf", `{"type":"integer","multipleOf":3}`, int64(7), invalid, false},
		{"float maximum", `{"type":"number","maximum":1.5}`, 1.75, invalid, false},
		{"required", `{"type":"object","required":["b"]}`, obj, invalid, false},
		{"maxProperties", `{"type":"object","maxProperties":0}`, obj, invalid, false},
		{"additionalProperties false", `{"type":"object","additionalProperties":false}`, obj, invalid, false},
		{"additionalProperties schema", `{"type":"object","additionalProperties":{"type":"string"}}`, obj, invalid, false},
		{"items", `{"type":"array","items":{"type":"string"}}`, []any{"a", int64(1)}, invalid, false},
		{"maxItems", `{"type":"array","maxItems":1}`, []any{"a", "b"}, invalid, false},
		{"uniqueItems", `{"type":"array","uniqueItems":true}`, []any{"a", "a"}, invalid, false},
		{"not of a match", `{"not":{"required":["a"]}}`, obj, invalid, false},
		{"not of a mismatch", `{"not":{"required":["b"]}}`, obj, valid, true},
		{"not of an unknown", `{"not":{"enum":[1]}}`, obj, unknown, true},
		{"oneOf with one match", `{"oneOf":[{"required":["a"]},{"required":["b"]}]}`, obj, valid, true},
		{"oneOf with two matches", `{"oneOf":[{"required":["a"]},{"minProperties":1}]}`, obj, invalid, false},
		{"oneOf with none", `{"oneOf":[{"required":["b"]},{"required":["c"]}]}`, obj, invalid, false},
		{"oneOf with an unknown branch", `{"oneOf":[{"required":["a"]},{"enum":[1]}]}`, obj, unknown, true},
		{"anyOf with one match", `{"anyOf":[{"required":["b"]},{"required":["a"]}]}`, obj, valid, true},
		{"anyOf with none", `{"anyOf":[{"required":["b"]},{"required":["c"]}]}`, obj, invalid, false},
		{"allOf", `{"allOf":[{"required":["a"]},{"required":["b"]}]}`, obj, invalid, false},
	})
}

func runFastCases(t *testing.T, cases []fastCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &spec.Schema{}
			if err := json.Unmarshal([]byte(c.schema), s); err != nil {
				t.Fatal(err)
			}
			got := compileCheck(s).eval(c.value)
			upstream := validate.NewSchemaValidator(s, nil, "", strfmt.Default).Validate(c.value)
			if got != c.want {
				t.Errorf("fast verdict %v, want %v", got, c.want)
			}
			if upstream.IsValid() != c.upstreamValid {
				t.Errorf("kube-openapi valid = %v, want %v (errors %v)", upstream.IsValid(), c.upstreamValid, upstream.Errors)
			}
			if got == valid && !upstream.IsValid() || got == invalid && upstream.IsValid() {
				t.Errorf("fast verdict %v against kube-openapi's errors %v", got, upstream.Errors)
			}
		})
	}
}

// TestSchemaFieldCensus fails when kube-openapi's spec.Schema gains or
// loses a field: each must be classified in schemaFields, so that a
// Kubernetes upgrade forces a review of the fast check.
func TestSchemaFieldCensus(t *testing.T) {
	var fields []string
	walkSchemaFields(reflect.ValueOf(spec.Schema{}), func(name string, _ reflect.Value) {
		fields = append(fields, name)
	})
	for _, name := range fields {
		if _, ok := schemaFields[name]; !ok {
			t.Errorf("spec.Schema has a field %s the fast check does not classify: add it to schemaFields after reading how kube-openapi validates it", name)
		}
	}
	for name := range schemaFields {
		if !slices.Contains(fields, name) {
			t.Errorf("schemaFields classifies %s, which spec.Schema no longer has", name)
		}
	}
	// The fast check reads these wrappers field by field too.
	for _, wrapper := range []struct {
		value  any
		fields []string
	}{
		{spec.SchemaOrArray{}, []string{"Schema", "Schemas"}},
		{spec.SchemaOrBool{}, []string{"Allows", "Schema"}},
	} {
		var got []string
		walkSchemaFields(reflect.ValueOf(wrapper.value), func(name string, _ reflect.Value) { got = append(got, name) })
		if !slices.Equal(got, wrapper.fields) {
			t.Errorf("%T has fields %v, the fast check knows %v", wrapper.value, got, wrapper.fields)
		}
	}
}

// TestFieldsSupported: a refused field makes the schema unknown, an inert
// one does not.
func TestFieldsSupported(t *testing.T) {
	inert := &spec.Schema{SchemaProps: spec.SchemaProps{Description: "d", Default: "x"}}
	if !fieldsSupported(inert) {
		t.Error("description and default refused, want supported")
	}
	refused := &spec.Schema{SwaggerSchemaProps: spec.SwaggerSchemaProps{ReadOnly: true}}
	if fieldsSupported(refused) {
		t.Error("readOnly supported, want refused")
	}
}
