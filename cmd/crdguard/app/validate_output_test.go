package app

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateKeepsInputOrder runs many files of different sizes through
// the parallel workers: the streamed report lists them in input order, with
// the skipped results held before the first checked one kept in place.
func TestValidateKeepsInputOrder(t *testing.T) {
	dir := t.TempDir()
	const widget = "apiVersion: db.example.io/v1\nkind: MySQLCluster\nmetadata: {name: db%d, namespace: shop}\nspec: {version: \"8.0.36\", image: \"mysql:8.0.36\", storage: {size: 10Gi}}\n"
	var want []string
	for i := range 40 {
		name := filepath.Join(dir, fmt.Sprintf("%02d.yaml", i))
		var docs []string
		// Large files early, so that later ones finish first.
		for j := range 1 + (40-i)%7*5 {
			docs = append(docs, fmt.Sprintf(widget, i*100+j))
			want = append(want, name)
		}
		if i == 0 {
			docs = append([]string{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"}, docs...)
			want = append(want, name)
		}
		writeFile(t, name, strings.Join(docs, "---\n"))
	}
	r := crdguard(t, "", "validate", "--crds", exampleCRD, "-o", "json", dir)
	if r.code != ExitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stder)
	}
	rep := decodeReport(t, r)
	var got []string
	for _, res := range rep.Results {
		got = append(got, res.Source)
	}
	assertLines(t, "sources out of input order", got, want)
	if !rep.Results[0].Skipped || rep.Results[0].Kind != "ConfigMap" || rep.Summary.Skipped != 1 || rep.Summary.Objects != len(want) {
		t.Errorf("first result %+v, summary %+v", rep.Results[0], rep.Summary)
	}
}
