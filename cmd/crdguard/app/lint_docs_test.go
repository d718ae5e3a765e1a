package app

import (
	"os"
	"regexp"
	"testing"

	"github.com/crdguard/crdguard/pkg/schema/gotypes"
)

// TestLintDocsListEveryCheck keeps docs/lint.md's table of checks the
// registry's: every check, at its default severity, and no other.
func TestLintDocsListEveryCheck(t *testing.T) {
	data, err := os.ReadFile("../../../docs/lint.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]string{}
	for _, row := range regexp.MustCompile("(?m)^\\| `([a-z-]+)` \\| ([a-z]+) \\|").FindAllStringSubmatch(string(data), -1) {
		documented[row[1]] = row[2]
	}
	for _, c := range gotypes.Checks() {
		t.Run(c.Name, func(t *testing.T) {
			switch severity, ok := documented[c.Name]; {
			case !ok:
				t.Errorf("docs/lint.md does not list %s", c.Name)
			case severity != string(c.Severity):
				t.Errorf("docs/lint.md gives %s the default severity %s; the registry %s", c.Name, severity, c.Severity)
			}
			delete(documented, c.Name)
		})
	}
	for name := range documented {
		t.Errorf("docs/lint.md lists %s, which is no check", name)
	}
}
