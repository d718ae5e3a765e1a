package app

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/report"
	"github.com/crdguard/crdguard/pkg/schema"
)

// schemaFindings turns the API server's field errors into findings. The
// message is the cause message kube-apiserver sends ("Invalid value: 20:
// spec.replicas in body should be ..."), so output reads as kubectl's does.
func schemaFindings(errs field.ErrorList) []report.Finding {
	findings := make([]report.Finding, len(errs))
	for i, e := range errs {
		rule := "validation"
		if schema.IsUnknownField(e) {
			rule = "unknown-field"
		}
		findings[i] = report.Finding{
			Field:       e.Field,
			Type:        string(e.Type),
			Message:     e.ErrorBody(),
			Policy:      "schema",
			Rule:        rule,
			Enforcement: report.Deny,
		}
	}
	return findings
}
