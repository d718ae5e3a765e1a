package report

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/crdguard/crdguard/pkg/manifest"
)

// BenchmarkJSONStored measures what writing a --show-stored result costs in
// the JSON report, for the largest object of validate's benchmark corpus (a
// production-sized Prometheus): encodeResult, which the report uses, against
// encoding/json's encoding of the same result, its peer.
func BenchmarkJSONStored(b *testing.B) {
	docs, err := manifest.ReadFile(filepath.Join("..", "schema", "testdata", "bench", "prometheus.yaml"))
	if err != nil || len(docs) != 1 || docs[0].Err != nil {
		b.Fatalf("want one object, got %v, %v", docs, err)
	}
	r := Result{Source: "prometheus.yaml", Line: 1, Kind: "Prometheus", Name: "k8s", Allowed: true, Violations: []Finding{}, Warnings: []string{}, Stored: docs[0].Object.Object}
	for _, encoder := range []struct {
		name   string
		encode func(*bytes.Buffer, string, *Result) error
	}{
		{"encodeResult", encodeResult},
		{"encoding-json", func(w *bytes.Buffer, prefix string, r *Result) error { return encodeJSON(w, prefix, r) }},
	} {
		b.Run(encoder.name, func(b *testing.B) {
			var w bytes.Buffer
			b.ReportAllocs()
			for b.Loop() {
				w.Reset()
				if err := encoder.encode(&w, "    ", &r); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(w.Len()))
		})
	}
}
