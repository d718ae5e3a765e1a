package report

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/crdguard/crdguard/internal/golden"
)

func TestJSONGolden(t *testing.T) {
	golden.Assert(t, filepath.Join("testdata", "report.json"), render(t, JSON, sampleReport(), Options{}))
}

func TestJSONRoundTrip(t *testing.T) {
	tests := []struct {
		name    string
		results []Result
	}{
		{"sample", sampleResults()},
		{"empty", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := New(tt.results)
			var got Report
			if err := json.Unmarshal(render(t, JSON, want, Options{}), &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("round trip changed the report\ngot:  %+v\nwant: %+v", got, want)
			}
		})
	}
}

// A Report assembled by hand, not through New, must still honour the
// schema's promises: arrays, not null, and the version.
func TestJSONHandBuiltReport(t *testing.T) {
	rep := Report{
		Results: []Result{{Source: "a.yaml", Line: 1, Kind: "Namespace", Name: "x", Allowed: true}},
		Summary: Summary{Objects: 1, Allowed: 1},
	}
	want := `{
  "version": "crdguard.dev/report/v1",
  "results": [
    {
      "source": "a.yaml",
      "document": 0,
      "line": 1,
      "kind": "Namespace",
      "name": "x",
      "allowed": true,
      "violations": [],
      "warnings": []
    }
  ],
  "summary": {
    "objects": 1,
    "allowed": 1,
    "denied": 0,
    "skipped": 0,
    "errors": 0
  }
}
`
	if got := string(render(t, JSON, rep, Options{})); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if rep.Results[0].Violations != nil {
		t.Error("writing changed the caller's report")
	}
	emptyWant := `{
  "version": "crdguard.dev/report/v1",
  "results": [],
  "summary": {
    "objects": 0,
    "allowed": 0,
    "denied": 0,
    "skipped": 0,
    "errors": 0
  }
}
`
	if got := string(render(t, JSON, Report{}, Options{})); got != emptyWant {
		t.Errorf("zero report got:\n%s\nwant:\n%s", got, emptyWant)
	}
}
