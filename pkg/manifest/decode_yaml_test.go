package manifest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/yaml"
)

// BenchmarkDecodeYAML decodes one object as kubectl writes it (and as the
// CLI benchmark's corpus is written) with the general decoder and with
// decodeYAML, the fast path. The objects are the real samples of
// BenchmarkValidate: a cert-manager Certificate, a Gateway API HTTPRoute
// and a production-sized Prometheus; kubectl folds the long PromQL
// expressions of the fourth, a PrometheusRule, onto several lines, which
// the fast path leaves to the general decoder: it shows the cost of
// falling back. Compare the decoders with benchstat -col /decoder.
func BenchmarkDecodeYAML(b *testing.B) {
	for _, name := range []string{"certificate", "httproute", "prometheus", "prometheusrule"} {
		data, err := os.ReadFile(filepath.Join("..", "schema", "testdata", "bench", name+".yaml"))
		if err != nil {
			b.Fatal(err)
		}
		var doc []byte
		if err := Parts(bytes.NewReader(data), name, func(p Part) error {
			doc = p.data
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		v, err := decodeYAMLGeneral(doc)
		if err != nil {
			b.Fatal(err)
		}
		kubectl, err := yaml.Marshal(v)
		if err != nil {
			b.Fatal(err)
		}
		for _, decoder := range []struct {
			name   string
			decode func([]byte) (any, error)
		}{{"general", decodeYAMLGeneral}, {"fast", decodeYAML}} {
			b.Run("object="+name+"/decoder="+decoder.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(kubectl)))
				for b.Loop() {
					if _, err := decoder.decode(kubectl); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
