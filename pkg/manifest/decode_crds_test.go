package manifest_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/crdguard/crdguard/internal/corpus"
	"github.com/crdguard/crdguard/pkg/manifest"
)

// BenchmarkDecodeCRDs decodes every CRD of the corpora the CLI benchmark
// loads (cert-manager, Gateway API, prometheus-operator), as controller-gen
// writes them, with the general decoder and with the fast path: the cost
// of reading the CRDs at every start of crdguard validate. Compare the
// decoders with benchstat -col /decoder.
func BenchmarkDecodeCRDs(b *testing.B) {
	var docs [][]byte
	var size int64
	for _, set := range []corpus.Set{corpus.CertManager, corpus.GatewayAPI, corpus.PrometheusOperator} {
		path, err := set.Path()
		if err != nil {
			b.Fatal(err)
		}
		files, err := yamlFiles(path)
		if err != nil {
			b.Fatal(err)
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				b.Fatal(err)
			}
			if err := manifest.EachPartText(bytes.NewReader(data), file, func(_ int, text []byte) error {
				docs = append(docs, text)
				size += int64(len(text))
				return nil
			}); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, decoder := range []struct {
		name   string
		decode func([]byte) (any, error)
	}{{"general", manifest.DecodeYAMLGeneral}, {"fast", manifest.DecodeYAML}} {
		b.Run("decoder="+decoder.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(size)
			for b.Loop() {
				for _, doc := range docs {
					if _, err := decoder.decode(doc); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
