package policies

import (
	"testing"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

func TestDeletion(t *testing.T) { runCases(t, "deletion") }

func TestDeletionCompileErrors(t *testing.T) {
	p := mysqlPolicy(v1alpha1.Rule{Name: "protect", Deletion: &v1alpha1.DeletionRule{Condition: "object.spec.storage.reclaimPolicy", Message: "a\nb"}})
	want := []string{
		`spec.rules[0].deletion.condition: Invalid value: "object.spec.storage.reclaimPolicy": must evaluate to bool but got dyn`,
		`spec.rules[0].deletion.message: Invalid value: "a\nb": must not contain line breaks`,
	}
	assertPolicyErrors(t, p, nil, want)
}
