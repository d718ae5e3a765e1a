package gotypes

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strings"
	"testing"
)

// The shape* types exercise encoding/json's field rules; TestShapeMatchesEncodingJSON
// type-checks their source and compares the static field names with what
// json.Marshal writes for a filled value of the same types.
type shapeTags struct {
	Plain         string `json:"plain"`
	Dash          string `json:"-,"` //nolint:staticcheck // the name "-", on purpose
	Skipped       string `json:"-"`
	Invalid       string `json:"in'valid"` //nolint:staticcheck // a name encoding/json refuses, on purpose
	Empty         string `json:",omitempty"`
	NoTag         string
	Quoted        int    `json:"quoted,string"`
	unexported    string //nolint:unused // a field encoding/json skips, on purpose
	shapeEmbedded        // unexported, but its exported fields are promoted
	*ShapeExported
	Shadow      string        `json:"shadow"` // shallower than shapeEmbedded's
	Named       ShapeExported `json:"named"`
	ShapeLeft   `json:",inline"`
	*ShapeRight               // Both cancels ShapeLeft's Both (a pointer, for go vet's sake)
	Tagged      ShapeExported `json:"tagged,inline"`
}

type shapeEmbedded struct {
	Name   string `json:"name"`
	Shadow string `json:"shadow"`
}

type ShapeExported struct {
	Exported string `json:"exported"`
}

type ShapeLeft struct {
	Both string `json:"both"`
	Left string `json:"left"`
}

type ShapeRight struct {
	Both string `json:"both"`
}

func TestShapeMatchesEncodingJSON(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "shape_test.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Only the shape* type declarations: they use nothing but builtins.
	src := &ast.File{Name: f.Name}
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE && strings.HasPrefix(strings.ToLower(g.Specs[0].(*ast.TypeSpec).Name.Name), "shape") {
			src.Decls = append(src.Decls, g)
		}
	}
	pkg, err := (&types.Config{}).Check("shapes", fset, []*ast.File{src}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sh := newShaper(fset, newDeclIndex(nil)).shape(pkg.Scope().Lookup("shapeTags").Type())
	var static []string
	for _, f := range sh.Fields {
		static = append(static, f.JSONName)
	}
	slices.Sort(static)

	data, err := json.Marshal(fillValue(&shapeTags{}, 0).Interface())
	if err != nil {
		t.Fatal(err)
	}
	var written map[string]any
	if err := json.Unmarshal(data, &written); err != nil {
		t.Fatal(err)
	}
	runtime := slices.Sorted(maps.Keys(written))
	if strings.Join(static, " ") != strings.Join(runtime, " ") {
		t.Errorf("static fields %q, encoding/json writes %q", static, runtime)
	}
	// "-," names a field "-"; an empty or invalid name falls back to the Go
	// name; "tagged,inline" is a named field; Both is dropped.
	want := "- Empty Invalid NoTag exported left name named plain quoted shadow tagged"
	if got := strings.Join(static, " "); got != want {
		t.Errorf("fields = %q, want %q", got, want)
	}
	var ignored []string
	for _, f := range sh.Ignored {
		ignored = append(ignored, f.GoName+":"+f.Ignored)
	}
	if got, want := strings.Join(ignored, " "), `Skipped:json:"-" unexported:unexported Both:conflict Both:conflict`; got != want {
		t.Errorf("ignored = %q, want %q", got, want)
	}
	if got := written["quoted"]; got != "1" {
		t.Errorf(`",string" wrote %v, want "1"`, got)
	}
}

// TestFill pins the filler's output: every field non-zero, maps keyed by
// mapKey, recursion cut where a type repeats.
func TestFill(t *testing.T) {
	type node struct {
		Name     string          `json:"name"`
		Children []node          `json:"children"`
		Next     *node           `json:"next"`
		Ratio    float64         `json:"ratio"`
		On       bool            `json:"on"`
		Labels   map[string]uint `json:"labels"`
		Any      any             `json:"any"`
		Data     []byte          `json:"data"`
	}
	data, err := json.Marshal(fillValue(&node{}, 0).Interface())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"value","children":null,"next":null,"ratio":1.5,"on":true,"labels":{"*":1},"any":{"key":"value"},"data":"AQ=="}`
	if string(data) != want {
		t.Errorf("filled\n got: %s\nwant: %s", data, want)
	}
}
