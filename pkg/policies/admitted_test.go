package policies

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crdguard/crdguard/internal/goldencase"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/schema"
)

// TestAdmitted: a request from the API server's admission chain is checked
// against the policies only — the server has decoded it and validates the
// schema itself — while the same request from a file gets both.
func TestAdmitted(t *testing.T) {
	schemas, err := schema.RegistryFromFiles(t.Context(), "../../examples/mysql/crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	gps, err := PoliciesFromDocuments(t.Context(), goldencase.Documents(t, "../../examples/mysql/policy.yaml"), schemas)
	if err != nil {
		t.Fatal(err)
	}
	engine, err := NewEngine(schemas, gps...)
	if err != nil {
		t.Fatal(err)
	}
	// The second object of bad.yaml: an invalid name and enum value, and
	// no resources.
	obj := goldencase.Documents(t, "../../examples/mysql/bad.yaml")[1].Object
	policyFindings := []string{
		"mysql-safety spec.resources.requests.cpu",
		"mysql-safety spec.resources.requests.memory",
		"mysql-safety spec.resources.limits.memory",
	}
	for _, tt := range []struct {
		admitted bool
		want     []string
	}{
		{false, append([]string{"schema metadata.name", "schema spec.storage.reclaimPolicy", "schema <nil>"}, policyFindings...)},
		{true, policyFindings},
	} {
		res, err := engine.Evaluate(t.Context(), Request{Operation: v1alpha1.Create, Object: obj, Namespace: obj.GetNamespace(), Admitted: tt.admitted})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, v := range res.Violations {
			got = append(got, v.Policy+" "+v.Field)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("admitted %v: findings (-want +got):\n%s", tt.admitted, diff)
		}
		if res.SchemaValidated == tt.admitted {
			t.Errorf("admitted %v: Result.SchemaValidated %v", tt.admitted, res.SchemaValidated)
		}
	}
}
