package webhook

import (
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
)

// BenchmarkValidate is /validate deciding one CREATE of the example
// MySQLCluster (schema and policy) once the review is decoded: what
// crdguard adds to the framework's cost per request.
func BenchmarkValidate(b *testing.B) {
	v := &Validator{Engines: engines(b)}
	for _, name := range []string{"good.yaml", "unsafe.yaml"} {
		b.Run(name, func(b *testing.B) {
			req := request(admissionv1.Create, bob, example(b, name), nil)
			if resp := v.Handle(b.Context(), req); resp.Result != nil && resp.Result.Code >= 500 {
				b.Fatalf("%s: %s", name, resp.Result.Message)
			}
			b.ReportAllocs()
			for b.Loop() {
				v.Handle(b.Context(), req)
			}
		})
	}
}
