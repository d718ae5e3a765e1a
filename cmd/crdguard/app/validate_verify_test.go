package app

import (
	"path/filepath"
	"regexp"
	"testing"
)

// generatedName is the name the server generates for the corpus's object
// with generateName "Bad_", which a message quotes: random in each run.
var generatedName = regexp.MustCompile(`Bad_[a-z0-9]{5}`)

// TestValidateVerifyFastPaths runs the end-to-end corpus of Widgets with and
// without --verify-fast-paths: the same exit code and byte-identical
// output but for a generated name, since verification finds no
// difference there.
func TestValidateVerifyFastPaths(t *testing.T) {
	objects := filepath.Join("..", "..", "..", "test", "e2e", "testdata", "widgets")
	plain := crdguard(t, "", "validate", "--crds", widgetsCRD, "-o", "json", objects)
	verified := crdguard(t, "", "validate", "--crds", widgetsCRD, "-o", "json", "--verify-fast-paths", objects)
	if plain.code != ExitViolations || verified.code != plain.code {
		t.Errorf("exit codes %d plain, %d verified; want %d both", plain.code, verified.code, ExitViolations)
	}
	if generatedName.ReplaceAllString(verified.stdout, "Bad_") != generatedName.ReplaceAllString(plain.stdout, "Bad_") {
		t.Errorf("output differs:\nplain:    %s\nverified: %s", plain.stdout, verified.stdout)
	}
	if got := decodeReport(t, verified).Summary.Objects; got != 36 {
		t.Errorf("%d objects validated, want the corpus's 36", got)
	}
}
