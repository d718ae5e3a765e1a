package gotypes_test

import (
	"context"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/crdguard/crdguard/pkg/manifest"
	"github.com/crdguard/crdguard/pkg/schema"
	"github.com/crdguard/crdguard/pkg/schema/gotypes"
)

// testdataKinds loads every testdata package in one go/packages call, once
// per test binary: loading is the slow part, linting is not.
var testdataKinds = sync.OnceValues(func() (map[string][]*gotypes.Kind, error) {
	dirs, err := testdataDirs()
	if err != nil {
		return nil, err
	}
	patterns := make([]string, len(dirs))
	for i, d := range dirs {
		patterns[i] = "./testdata/" + d
	}
	kinds, err := gotypes.Load(context.Background(), "", patterns...)
	if err != nil {
		return nil, err
	}
	byDir := map[string][]*gotypes.Kind{}
	for _, k := range kinds {
		dir := filepath.Base(filepath.Dir(k.Pos.Filename))
		byDir[dir] = append(byDir[dir], k)
	}
	return byDir, nil
})

func testdataDirs() ([]string, error) {
	entries, err := os.ReadDir("testdata")
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, e.Name())
		}
	}
	return dirs, nil
}

func kindsOf(t *testing.T, dir string) []*gotypes.Kind {
	t.Helper()
	byDir, err := testdataKinds()
	if err != nil {
		t.Fatal(err)
	}
	if len(byDir[dir]) == 0 {
		t.Fatalf("testdata/%s has no kinds", dir)
	}
	return byDir[dir]
}

// crdsOf reads testdata/<dir>/crd.yaml; a package without one is linted
// without CRDs.
func crdsOf(t *testing.T, dir string) []*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	path := filepath.Join("testdata", dir, "crd.yaml")
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	docs, err := manifest.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	crds, err := schema.CRDsFromDocuments(t.Context(), docs)
	if err != nil {
		t.Fatal(err)
	}
	return crds
}

// wants reads the "// want" comments of a testdata package: each quoted
// string is one finding expected at the comment's line, written as
// "<severity> <check> <path>: <message>".
func wants(t *testing.T, dir string) map[string][]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range f.Comments {
			for _, c := range g.List {
				rest, ok := strings.CutPrefix(c.Text, "// want ")
				if !ok {
					continue
				}
				at := fmt.Sprintf("%s:%d", filepath.Base(name), fset.Position(c.Pos()).Line)
				for rest = strings.TrimSpace(rest); rest != ""; rest = strings.TrimSpace(rest) {
					q, err := strconv.QuotedPrefix(rest)
					if err != nil {
						t.Fatalf("%s: malformed want: %v", at, err)
					}
					s, _ := strconv.Unquote(q)
					out[at] = append(out[at], s)
					rest = rest[len(q):]
				}
			}
		}
	}
	return out
}

func got(findings []gotypes.Finding) map[string][]string {
	out := map[string][]string{}
	for _, f := range findings {
		at := fmt.Sprintf("%s:%d", filepath.Base(f.Pos.Filename), f.Pos.Line)
		out[at] = append(out[at], fmt.Sprintf("%s %s %s: %s", f.Severity, f.Check, f.Path, f.Message))
	}
	return out
}

// compare reports every expected finding that is missing and every finding
// that was not expected, by file:line.
func compare(t *testing.T, want, have map[string][]string) {
	t.Helper()
	lines := map[string]bool{}
	for at := range want {
		lines[at] = true
	}
	for at := range have {
		lines[at] = true
	}
	sorted := make([]string, 0, len(lines))
	for at := range lines {
		sorted = append(sorted, at)
	}
	sort.Strings(sorted)
	for _, at := range sorted {
		w, h := slices.Sorted(slices.Values(want[at])), slices.Sorted(slices.Values(have[at]))
		for _, s := range w {
			if !slices.Contains(h, s) {
				t.Errorf("%s: missing finding\n  %s", at, s)
			}
		}
		for _, s := range h {
			if !slices.Contains(w, s) {
				t.Errorf("%s: unexpected finding\n  %s", at, s)
			}
		}
	}
}

// TestChecks lints each testdata package (against its crd.yaml when it has
// one) and compares the findings with its "// want" comments: every
// finding must be expected, and every expectation found.
func TestChecks(t *testing.T) {
	dirs, err := testdataDirs()
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range dirs {
		t.Run(dir, func(t *testing.T) {
			findings, err := gotypes.Lint(kindsOf(t, dir), gotypes.Options{CRDs: crdsOf(t, dir)})
			if err != nil {
				t.Fatal(err)
			}
			compare(t, wants(t, dir), got(findings))
			for _, f := range findings {
				if f.Hint == "" || f.Pos.Line == 0 || f.Type == "" {
					t.Errorf("finding without a hint, a line or a type: %s", f)
				}
			}
		})
	}
}

// TestEveryCheckHasTestdata keeps the registry and the testdata in step: a
// check without an expected finding somewhere is untested.
func TestEveryCheckHasTestdata(t *testing.T) {
	dirs, err := testdataDirs()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, dir := range dirs {
		for _, ws := range wants(t, dir) {
			for _, w := range ws {
				seen[strings.Fields(w)[1]] = true
			}
		}
	}
	for _, c := range gotypes.Checks() {
		if !seen[c.Name] {
			t.Errorf("check %s has no \"// want\" in testdata", c.Name)
		}
		if !slices.Contains(dirs, c.Name) {
			t.Errorf("check %s has no testdata/%s package", c.Name, c.Name)
		}
	}
}

// TestCleanWithoutCRD: the clean package must also be clean when only the
// markers are there to judge it.
func TestCleanWithoutCRD(t *testing.T) {
	findings, err := gotypes.Lint(kindsOf(t, "clean"), gotypes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		t.Errorf("unexpected finding: %s", f)
	}
}
