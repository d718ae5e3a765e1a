// Package e2e proves that crdguard gives the verdict a real kube-apiserver
// gives, object by object. It has no non-test code.
//
// TestMain starts one kube-apiserver v1.37.2 and etcd (controller-runtime
// envtest, binaries from KUBEBUILDER_ASSETS; `make test` builds them),
// installs the widgets test CRD, the MySQL example CRD and the cert-manager,
// Gateway API (standard channel) and prometheus-operator CRDs, waits until
// they are established, builds the crdguard binary, and writes a kubeconfig
// for the real kubectl. Without KUBEBUILDER_ASSETS the package fails rather
// than skips.
//
// Each object is validated by both sides:
//
//   - crdguard: `crdguard validate --crds <the object's CRD set> [--old OLD] -o json FILE`
//     (one run per CRD set covers many files; an update gets its own run);
//   - the server: `kubectl create --dry-run=server -f FILE` (`kubectl replace`
//     for an update), once with --validate=strict (fieldValidation=Strict: the
//     request fails with a 400 listing only the unknown fields) and once with
//     --validate=false (fieldValidation=Ignore: unknown fields are pruned and
//     the 422 lists the schema, CEL, list-type and metadata errors).
//
// and the test asserts, for every object, that
//
//   - both accept it or both deny it;
//   - crdguard's findings with rule "unknown-field" are exactly the server's
//     unknown fields under Strict;
//   - crdguard's other findings are exactly the server's causes under Ignore
//     (or its decoding error), field path and message alike, "field: message"
//     as kubectl prints them, compared as sets since kubectl drops repeats;
//   - hence both report the same set of field paths.
//
// Two allowances, both about form: a generated name's random suffix is
// masked in messages, and for an apiVersion the CRD does not serve (kubectl
// cannot map it, so no request is sent) crdguard must deny the object at
// field apiVersion only.
//
// The objects:
//
//   - TestSchemaCases: every case of pkg/schema/testdata/cases;
//   - TestWidgetUpdates: more updates, testdata/widgets-updates;
//   - TestWidgetsCorpus, TestCertManagerCorpus, TestGatewayAPICorpus,
//     TestPrometheusCorpus: testdata/<set>/, one object per file, named
//     <kind>-valid*.yaml or <kind>-invalid-<class>.yaml; the intent is
//     checked against the server too, so an object cannot silently stop
//     testing what its name says;
//   - TestExamples: examples/mysql;
//   - TestUpstreamRatchetingCorpus: kube-apiserver's own ratcheting corpus
//     (k8s.io/apiextensions-apiserver test/integration/ratcheting_test_cases)
//     against the installed Gateway API CRDs, every object of a served kind.
//
// An update case is a directory with old.yaml and new.yaml. The old object
// is created for real, each case in its own namespace; since some old
// objects are invalid (ratcheting), they are created while the widgets CRD
// is relaxed (constraints removed, types and defaults kept), and the strict
// CRD is restored, and seen enforced, before anything is compared. new.yaml
// is then sent with kubectl replace, with the stored object's namespace and
// resourceVersion; crdguard gets old.yaml with --old.
package e2e
