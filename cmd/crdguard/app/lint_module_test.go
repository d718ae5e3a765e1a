package app

import (
	"path/filepath"
	"testing"
)

// nestedModule is an operator repository whose API is a module of its own
// at ./api, as in prometheus-operator and flux.
const nestedModule = "testdata/lint-nested-module"

func TestLintNestedModule(t *testing.T) {
	crds := nestedModule + "/config/crd/bases"
	const file = nestedModule + "/api/v1/types.go"
	want := file + ":9: kind Widget nested.test.crdguard.dev/v1\n" +
		file + ":18: WidgetSpec.Enabled in Widget nested.test.crdguard.dev/v1\n" +
		"  error [zero-value-default] spec.enabled: WidgetSpec.Enabled drops false on the wire (omitempty), and the default true takes its place: whatever writes through this Go type (the operator's own updates and webhooks included) turns false into true; fix: make it a pointer (*bool) so that false is sent\n" +
		"1 kind checked: 1 error, 0 warnings, 0 infos\n"
	tests := []struct {
		name string
		args []string
	}{
		{"from the repository's root", []string{"./" + nestedModule + "/api/..."}},
		{"one package", []string{"./" + nestedModule + "/api/v1"}},
		{"-C the repository", []string{"-C", nestedModule, "./api/..."}},
		{"-C the module", []string{"-C", nestedModule + "/api", "./..."}},
		{"absolute", []string{abs(t, nestedModule+"/api") + "/..."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// --crds stays relative to the working directory, -C or not.
			r := crdguard(t, "", append([]string{"lint", "--crds", crds}, tt.args...)...)
			if r.code != ExitViolations || r.stder != "" || r.stdout != want {
				t.Errorf("exit %d, stderr %q, stdout\n got: %s\nwant: %s", r.code, r.stder, r.stdout, want)
			}
		})
	}
}

func TestLintModuleErrors(t *testing.T) {
	api := "./" + nestedModule + "/api/..."
	checkUsageErrors(t, []usageErrorCase{
		{"patterns in two modules", []string{"lint", api, "./testdata/lint-shared"},
			"crdguard: " + api + " is in module example.com/operator/api at ./" + nestedModule + "/api, ./testdata/lint-shared in module github.com/crdguard/crdguard at " + abs(t, "../../..") + ": lint one module per run, from its directory or with -C DIR\n"},
		{"an import path beside another module's directory", []string{"lint", "example.com/operator/api/v1", api},
			"crdguard: " + api + " is in module example.com/operator/api at ./" + nestedModule + "/api: run from there or pass -C ./" + nestedModule + "/api\n"},
		{"-C a file", []string{"lint", "-C", "lint.go", "./..."}, "crdguard: -C lint.go: not a directory\n"},
	})
}

func abs(t *testing.T, path string) string {
	t.Helper()
	a, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
