package policies

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/report"
)

// TestAuditAnnotations: the Audit findings are joined per rule, at most
// maxAuditFindings of them, then counted; other enforcements are left out.
func TestAuditAnnotations(t *testing.T) {
	finding := func(rule string, i int, enforcement v1alpha1.Enforcement) report.Finding {
		return report.Finding{
			Field: fmt.Sprintf("spec.users[%d]", i), Type: "FieldValueForbidden", Message: "Forbidden: removed",
			Policy: "mysql-safety", Rule: rule, Enforcement: enforcement,
		}
	}
	var res Result
	for i := range 10000 {
		res.Violations = append(res.Violations, finding("many", i, v1alpha1.Audit))
	}
	res.Violations = append(res.Violations, finding("two", 0, v1alpha1.Audit), finding("two", 1, v1alpha1.Audit), finding("warned", 0, v1alpha1.Warn))

	var many []string
	for i := range maxAuditFindings {
		many = append(many, fmt.Sprintf("spec.users[%d]: Forbidden: removed", i))
	}
	want := map[string]string{
		"mysql-safety.many": strings.Join(many, "; ") + "; 9990 more findings",
		"mysql-safety.two":  "spec.users[0]: Forbidden: removed; spec.users[1]: Forbidden: removed",
	}
	if diff := cmp.Diff(want, res.AuditAnnotations()); diff != "" {
		t.Errorf("audit annotations (-want +got):\n%s", diff)
	}
}
