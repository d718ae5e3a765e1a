package schema_test

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/crdguard/crdguard/internal/filetree"

	crdschema "github.com/crdguard/crdguard/pkg/schema"
)

func TestDuplicateCRDsNameBothDocuments(t *testing.T) {
	data, err := os.ReadFile("testdata/widgets-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	widgets := string(data)
	// The experimental channel: an annotation and a looser bound, as
	// gateway-api's two channels differ.
	experimental := strings.Replace(widgets, "  name: widgets.test.crdguard.dev\n",
		"  name: widgets.test.crdguard.dev\n  annotations: {test.crdguard.dev/channel: experimental}\n", 1)
	if experimental == widgets {
		t.Fatal("fixture: the name line moved")
	}
	tests := []struct {
		name  string
		files map[string]string
		want  string // with DIR for the temporary directory
	}{{
		name:  "two channels in two directories",
		files: map[string]string{"standard/widgets.yaml": widgets, "experimental/widgets.yaml": experimental},
		want: `CustomResourceDefinition "widgets.test.crdguard.dev" is given twice: DIR/experimental/widgets.yaml:3 and DIR/standard/widgets.yaml:3; ` +
			`pass one of the directories DIR/experimental and DIR/standard (they differ at metadata.annotations)`,
	}, {
		name:  "two files in one directory",
		files: map[string]string{"a.yaml": widgets, "b.yaml": experimental},
		want: `CustomResourceDefinition "widgets.test.crdguard.dev" is given twice: DIR/a.yaml:3 and DIR/b.yaml:3; ` +
			`pass one of the files (they differ at metadata.annotations)`,
	}, {
		// Identical copies are refused too: which file was meant is the
		// user's to say.
		name:  "identical copies",
		files: map[string]string{"crds/widgets.yaml": widgets, "chart/crds/widgets.yaml": widgets},
		want: `CustomResourceDefinition "widgets.test.crdguard.dev" is given twice: DIR/chart/crds/widgets.yaml:3 and DIR/crds/widgets.yaml:3; ` +
			`pass one of the directories DIR/chart/crds and DIR/crds (they are identical)`,
	}, {
		name:  "twice in one file",
		files: map[string]string{"all.yaml": widgets + "---\n" + strings.Replace(experimental, "maximum: 10", "maximum: 20", 1)},
		want: `CustomResourceDefinition "widgets.test.crdguard.dev" is given twice: DIR/all.yaml:3 and DIR/all.yaml:` + lineAfter(widgets) + `; ` +
			`remove one of them (they differ at metadata.annotations, spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.replicas.maximum)`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filetree.Write(t, tt.files)
			want := strings.ReplaceAll(tt.want, "DIR", dir)
			_, err := crdschema.RegistryFromFiles(t.Context(), dir)
			var dup *crdschema.DuplicateCRDError
			if !errors.As(err, &dup) || err.Error() != want {
				t.Errorf("err\n got: %v\nwant: %s", err, want)
			}
		})
	}
}

// lineAfter is the line of the second copy's apiVersion when it follows
// text and "---": past text's lines, the separator and its two comment lines.
func lineAfter(text string) string {
	return strconv.Itoa(strings.Count(text, "\n") + 4)
}
