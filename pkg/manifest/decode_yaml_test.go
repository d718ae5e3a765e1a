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
// kubectlSample is the sample object name of pkg/schema's
// BenchmarkValidate as kubectl writes it.
func kubectlSample(b *testing.B, name string) []byte {
	b.Helper()
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
	return kubectl
}

// BenchmarkDecodeYAML decodes the samples of pkg/schema's
// BenchmarkValidate as kubectl writes them: a cert-manager Certificate, a
// Gateway API HTTPRoute and a production-sized Prometheus, and a
// PrometheusRule, whose long PromQL expressions kubectl folds onto several
// lines. Compare the decoders with benchstat -col /decoder.
func BenchmarkDecodeYAML(b *testing.B) {
	for _, name := range []string{"certificate", "httproute", "prometheus", "prometheusrule"} {
		kubectl := kubectlSample(b, name)
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
