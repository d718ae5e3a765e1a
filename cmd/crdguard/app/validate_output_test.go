package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crdguard/crdguard/pkg/report"
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

// TestResultStreamWritesTheEarliestSourceAtOnce hands over results out of
// order: those of the earliest unfinished source are written as they come,
// the others wait for the sources before theirs and keep their order.
func TestResultStreamWritesTheEarliestSourceAtOnce(t *testing.T) {
	var out bytes.Buffer
	s := newResultStream(Streams{Out: &out, Err: io.Discard}, reportOptions{output: report.JSON})
	steps := []struct {
		source   int
		document int // -1: the source is done
		waiting  map[int]int
	}{
		{1, 0, map[int]int{1: 1}},
		{0, 0, map[int]int{1: 1}},
		{2, 0, map[int]int{1: 1, 2: 1}},
		{1, 1, map[int]int{1: 2, 2: 1}},
		{2, -1, map[int]int{1: 2, 2: 1}},
		{0, -1, map[int]int{2: 1}},
		{1, 2, map[int]int{2: 1}},
		{1, -1, map[int]int{}},
	}
	for i, step := range steps {
		var err error
		if step.document < 0 {
			err = s.done(step.source)
		} else {
			err = s.result(step.source, report.Result{Source: fmt.Sprintf("%d.yaml", step.source), Document: step.document, Kind: "MySQLCluster", Name: "db"})
		}
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		waiting := map[int]int{}
		for source, results := range s.pending {
			waiting[source] = len(results)
		}
		if !maps.Equal(waiting, step.waiting) {
			t.Errorf("step %d: results waiting by source %v, want %v", i, waiting, step.waiting)
		}
	}
	if _, err := s.close(false, false, nil); err != nil {
		t.Fatal(err)
	}
	var rep report.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	var written []string
	for _, r := range rep.Results {
		written = append(written, fmt.Sprintf("%s/%d", r.Source, r.Document))
	}
	assertLines(t, "written results", written, []string{"0.yaml/0", "1.yaml/0", "1.yaml/1", "1.yaml/2", "2.yaml/0"})
}
