package gotypes

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/crdguard/crdguard/internal/corpus"
	"github.com/crdguard/crdguard/pkg/schema"
)

// certManagerAPI is linted against cert-manager's own deploy/crds. It is
// loaded through hack/tools/corpora's go.mod, which pins cert-manager v1.21.2;
// the root module must not require cert-manager (its dependencies conflict
// with k8s.io/kubernetes v1.37's).
const certManagerAPI = "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"

// certManagerKinds loads the package once per test binary.
var certManagerKinds = sync.OnceValues(func() ([]*Kind, error) {
	return Load(context.Background(), filepath.Join(corpus.RepositoryRoot(), "hack", "tools", "corpora"), certManagerAPI)
})

func certManager(t *testing.T) ([]*Kind, []*apiextensionsv1.CustomResourceDefinition) {
	t.Helper()
	kinds, err := certManagerKinds()
	if err != nil {
		t.Fatal(err)
	}
	crds, err := corpus.CertManager.CRDs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return kinds, crds
}

// certManagerFindings is every finding on cert-manager v1.21.2, each with why
// it stands. All are zero-value-omitted warnings, true as stated (the zero
// cannot be sent, so server-side apply from the Go type cannot set it), and
// harmless in cert-manager because for each of these fields the zero value
// and "unset" mean the same to its controllers.
var certManagerFindings = []struct{ at, why string }{
	{"pkg/apis/acme/v1/types_issuer.go:78 info zero-value-omitted spec.acme.skipTLSVerify",
		`documented "Defaults to false": unset and false both verify TLS`},
	{"pkg/apis/acme/v1/types_issuer.go:110 info zero-value-omitted spec.acme.disableAccountKeyGeneration",
		`documented "Defaults to false": unset and false both generate a key`},
	{"pkg/apis/acme/v1/types_issuer.go:118 info zero-value-omitted spec.acme.enableDurationFeature",
		`documented "Defaults to false": unset and false both leave Not After alone`},
	{"pkg/apis/certmanager/v1/types_certificate.go:276 info zero-value-omitted spec.isCA",
		"unset and false both request a non-CA certificate"},
	{"pkg/apis/certmanager/v1/types_certificate.go:393 info zero-value-omitted spec.privateKey.size",
		"0 is not a valid key size; the schema just lacks the minimum, and 0 or unset both mean the algorithm's default size"},
	{"pkg/apis/certmanager/v1/types_certificate.go:797 info zero-value-omitted spec.nameConstraints.critical",
		"unset and false both leave the extension non-critical"},
	{"pkg/apis/certmanager/v1/types_certificaterequest.go:147 info zero-value-omitted spec.isCA",
		"unset and false both request a non-CA certificate"},
}

// TestCertManager lints a real API package against the CRDs generated from
// it, and without them: every finding must be one of the justified ones,
// and every justified one must still be found.
func TestCertManager(t *testing.T) {
	kinds, crds := certManager(t)
	var names []string
	for _, k := range kinds {
		names = append(names, k.GroupVersionKind.String())
	}
	if want := "cert-manager.io/v1, Kind=Certificate|cert-manager.io/v1, Kind=CertificateRequest|cert-manager.io/v1, Kind=ClusterIssuer|cert-manager.io/v1, Kind=Issuer"; strings.Join(names, "|") != want {
		t.Fatalf("kinds = %q", names)
	}
	for _, tt := range []struct {
		name string
		opts Options
	}{{"with CRDs", Options{CRDs: crds}}, {"without CRDs", Options{}}} {
		t.Run(tt.name, func(t *testing.T) {
			findings, err := Lint(kinds, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range findings {
				file := f.Pos.Filename[strings.Index(f.Pos.Filename, "/pkg/apis/")+1:]
				got = append(got, fmt.Sprintf("%s:%d %s %s %s", file, f.Pos.Line, f.Severity, f.Check, f.Path))
			}
			var want []string
			for _, j := range certManagerFindings {
				want = append(want, j.at)
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("findings\n got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// TestCertManagerCoverage keeps the comparison honest: a walk that compared
// nothing would find nothing too. Every serialised field of every kind is
// compared with a declared property, and none is undeclared.
func TestCertManagerCoverage(t *testing.T) {
	kinds, crds := certManager(t)
	want := map[string]int{"Certificate": 99, "CertificateRequest": 23, "ClusterIssuer": 479, "Issuer": 479}
	for _, k := range kinds {
		crd, _ := crdFor(crds, k.GroupVersionKind)
		root, err := schema.StructuralSchema(crd, "v1")
		if err != nil {
			t.Fatal(err)
		}
		compared, undeclared := 0, 0
		for _, s := range walk(k, root) {
			switch {
			case s.Kind != FieldSite || s.Implicit:
			case s.Schema != nil:
				compared++
			default:
				undeclared++
			}
		}
		if kind := k.GroupVersionKind.Kind; compared != want[kind] || undeclared != 0 {
			t.Errorf("%s: compared %d fields (want %d), %d undeclared (want 0)", kind, compared, want[kind], undeclared)
		}
	}
}
