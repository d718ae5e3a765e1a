package vap

import (
	"fmt"
	"strings"

	"github.com/crdguard/crdguard/pkg/policies/internal/rules"
)

// compileDeletion compiles a deletion rule. On DELETE a
// ValidatingAdmissionPolicy has the object in oldObject and null in
// object; the condition, written over object as the API documents, sees
// oldObject under that name, as in the engine.
//
// A condition that fails to evaluate is a finding in the engine ("rule
// could not be evaluated"); in a ValidatingAdmissionPolicy it is an error
// that failurePolicy Fail turns into a denial with the server's message.
func compileDeletion(d *rules.Deletion) ([]ruleCEL, error) {
	msg := celString(d.Message)
	if d.Message == "" {
		msg = `"deleting " + request.kind.kind + " " + (oldObject.metadata.?namespace.orValue("") == "" ? "" : oldObject.metadata.namespace + "/") + oldObject.metadata.?name.orValue("") + " is not allowed"`
		if d.Condition != nil {
			msg += " + " + celString(" while "+strings.ReplaceAll(strings.TrimSpace(d.Condition.Expression), "\n", " "))
		}
	}
	finding := celFinding(celPath{}, `"Forbidden: " + `+msg)
	if d.Condition == nil {
		return []ruleCEL{{findings: "[" + finding + "]", summary: deletionSummary(d)}}, nil
	}
	return []ruleCEL{{findings: fmt.Sprintf("(cel.bind(object, oldObject, %s) ? [%s] : [])", d.Condition.Expression, finding), summary: deletionSummary(d)}}, nil
}
