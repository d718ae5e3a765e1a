package testsuite

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/crdguard/crdguard/internal/corpus"
	"github.com/crdguard/crdguard/internal/hacktools"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// schemaNode is the part of JSON Schema that schemas/testsuite.json uses
// to describe fields.
type schemaNode struct {
	Ref                  string                 `json:"$ref"`
	Type                 string                 `json:"type"`
	Const                string                 `json:"const"`
	Enum                 []string               `json:"enum"`
	Properties           map[string]*schemaNode `json:"properties"`
	Required             []string               `json:"required"`
	AdditionalProperties json.RawMessage        `json:"additionalProperties"`
	Items                *schemaNode            `json:"items"`
	Defs                 map[string]*schemaNode `json:"$defs"`
}

func readSchema(t *testing.T) (string, *schemaNode) {
	t.Helper()
	path := filepath.Join(corpus.RepositoryRoot(), "schemas", "testsuite.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var root schemaNode
	if err := json.Unmarshal(data, &root); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return path, &root
}

// TestSchemaMatchesTypes walks the Go types and the published schema side
// by side: the same fields, the same required ones, no others allowed,
// and the enums Decode accepts.
func TestSchemaMatchesTypes(t *testing.T) {
	_, root := readSchema(t)
	enums := map[string][]string{
		"TestSuite.apiVersion":   {APIVersion},
		"TestSuite.kind":         {Kind},
		"Case.operation":         operations,
		"Expectation.result":     resultNames(objectResults),
		"RuleExpectation.result": resultNames(ruleResults),
	}
	checked := map[string]bool{}
	var walk func(path string, typ reflect.Type, node *schemaNode, enumKey string)
	walk = func(path string, typ reflect.Type, node *schemaNode, enumKey string) {
		if node == nil {
			t.Errorf("%s: not in the schema", path)
			return
		}
		if name, ok := strings.CutPrefix(node.Ref, "#/$defs/"); ok {
			node = root.Defs[name]
			if node == nil {
				t.Errorf("%s: $ref to missing $defs/%s", path, name)
				return
			}
		}
		if typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		switch typ.Kind() {
		case reflect.Struct:
			if node.Type != "object" || string(node.AdditionalProperties) != "false" {
				t.Errorf("%s: schema type %q additionalProperties %s, want an object without additional properties", path, node.Type, node.AdditionalProperties)
			}
			var names, required []string
			for i := range typ.NumField() {
				f := typ.Field(i)
				name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
				names = append(names, name)
				if !strings.Contains(opts, "omitempty") {
					required = append(required, name)
				}
				walk(path+"."+name, f.Type, node.Properties[name], typ.Name()+"."+name)
			}
			for name := range node.Properties {
				if !slices.Contains(names, name) {
					t.Errorf("%s.%s: in the schema, not a field of %s", path, name, typ.Name())
				}
			}
			slices.Sort(required)
			schemaRequired := slices.Sorted(slices.Values(node.Required))
			if !slices.Equal(required, schemaRequired) {
				t.Errorf("%s: schema requires %q, the Go type %q (the fields without omitempty)", path, schemaRequired, required)
			}
		case reflect.Slice:
			if node.Type != "array" {
				t.Errorf("%s: schema type %q, want array", path, node.Type)
			}
			walk(path+"[]", typ.Elem(), node.Items, "")
		case reflect.Map:
			if node.Type != "object" || string(node.AdditionalProperties) != `{"type": "string"}` {
				t.Errorf("%s: schema type %q additionalProperties %s, want an object of strings", path, node.Type, node.AdditionalProperties)
			}
		case reflect.String:
			want, isEnum := enums[enumKey]
			checked[enumKey] = isEnum
			switch {
			case isEnum && len(want) == 1:
				if node.Const != want[0] {
					t.Errorf("%s: schema const %q, want %q", path, node.Const, want[0])
				}
			case isEnum:
				if !slices.Equal(node.Enum, want) {
					t.Errorf("%s: schema enum %q, Decode accepts %q", path, node.Enum, want)
				}
			case node.Type != "string":
				t.Errorf("%s: schema type %q, want string", path, node.Type)
			}
		case reflect.Bool:
			if node.Type != "boolean" {
				t.Errorf("%s: schema type %q, want boolean", path, node.Type)
			}
		default:
			t.Errorf("%s: no schema check for Go kind %s", path, typ.Kind())
		}
	}
	walk("TestSuite", reflect.TypeFor[TestSuite](), root, "")
	for key := range enums {
		if !checked[key] {
			t.Errorf("%s: no such string field", key)
		}
	}
	if reflect.TypeFor[Case]().Field(1).Type != reflect.TypeFor[v1alpha1.Operation]() {
		t.Error("Case.Operation is not a v1alpha1.Operation")
	}
}

func resultNames(results []Result) []string {
	out := make([]string, len(results))
	for i, r := range results {
		out[i] = string(r)
	}
	return out
}

// TestSchemaValidatesSuites validates every suite of the repository
// against the schema with santhosh-tekuri/jsonschema, through
// hack/tools/jsonschema-validate (the tools module pins the validator, the
// root module does not depend on one). Suites Decode rejects are checked
// to fail first, so that a schema that accepts everything cannot pass.
func TestSchemaValidatesSuites(t *testing.T) {
	schema, _ := readSchema(t)
	root := corpus.RepositoryRoot()
	dir := t.TempDir()
	toJSON := func(name string, yamlDoc []byte) string {
		t.Helper()
		js, err := yaml.YAMLToJSON(yamlDoc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		path := filepath.Join(dir, strings.ReplaceAll(name, string(filepath.Separator), "_")+".json")
		if err := os.WriteFile(path, js, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	validate := func(files ...string) (string, error) { return hacktools.ValidateJSON(schema, files...) }

	suite := header + "cases:\n" + goodCase
	for _, tc := range []struct{ name, suite, want string }{
		{"unknown-field", suite + "  expected: {result: denied}\n", "additional properties 'expected' not allowed"},
		{"no-expect", strings.Replace(suite, "  expect: {result: allowed}\n", "", 1), "missing property 'expect'"},
		{"delete-with-object", strings.Replace(suite, "CREATE", "DELETE", 1), "missing property 'oldObject'"},
		{"denied-rule-without-fields", strings.Replace(suite, "{result: allowed}", "{result: denied, rules: [{policy: p, rule: r, result: denied}]}", 1), "missing property 'fields'"},
	} {
		if _, err := Decode(suiteDir(t, tc.suite)); err == nil {
			t.Fatalf("%s: Decode accepts the suite", tc.name)
		}
		if out, err := validate(toJSON(tc.name, []byte(tc.suite))); err == nil || !strings.Contains(out, tc.want) {
			t.Errorf("%s: the schema must reject it with %q: %v\n%s", tc.name, tc.want, err, out)
		}
	}

	suites, err := Find(filepath.Join(root, "examples"), filepath.Join(root, "policies"))
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, s := range suites {
		data, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, s)
		files = append(files, toJSON(rel, data))
	}
	if out, err := validate(files...); err != nil {
		t.Errorf("the repository's suites %q do not validate against %s: %v\n%s", suites, schema, err, out)
	}
}
