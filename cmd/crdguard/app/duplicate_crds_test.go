package app

import (
	"strings"
	"testing"

	"github.com/crdguard/crdguard/internal/filetree"
)

// TestDuplicateCRDsNameBothFiles: a directory holding one CRD in two
// variants is exit 2 in validate --crds and on either side of diff, with a
// message naming both files and saying what to pass instead.
func TestDuplicateCRDsNameBothFiles(t *testing.T) {
	dir := filetree.Write(t, map[string]string{
		"standard/widgets.yaml":     readFile(t, diffFile("old.yaml")),
		"experimental/widgets.yaml": readFile(t, diffFile("new-safe.yaml")),
	})
	// Each CRD starts below its file's comment: old.yaml's at line 2.
	dup := `CustomResourceDefinition "widgets.example.com" is given twice: DIR/experimental/widgets.yaml:1 and DIR/standard/widgets.yaml:2; ` +
		`pass one of the directories DIR/experimental and DIR/standard (they differ at spec.versions[0].schema.openAPIV3Schema.properties.spec.description, ` +
		`spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.replicas.maximum, spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size)`
	dup = strings.ReplaceAll(dup, "DIR", dir)
	checkUsageErrors(t, []usageErrorCase{
		{"validate --crds", []string{"validate", "--crds", dir, diffFile("objects.yaml")}, "crdguard: " + dup + "\n"},
		{"diff OLD", []string{"diff", dir, diffFile("old.yaml")}, "crdguard: OLD: " + dup + "\n"},
		{"diff NEW", []string{"diff", diffFile("old.yaml"), dir}, "crdguard: NEW: " + dup + "\n"},
	})
}
