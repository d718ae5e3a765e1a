package policies

import (
	"fmt"
	"strings"
)

// vapDeletion compiles a deletion rule. On DELETE a
// ValidatingAdmissionPolicy has the object in oldObject and null in
// object; the condition, written over object as the API documents, sees
// oldObject under that name, as in the engine.
//
// A condition that fails to evaluate is a finding in the engine ("rule
// could not be evaluated"); in a ValidatingAdmissionPolicy it is an error
// that failurePolicy Fail turns into a denial with the server's message.
func vapDeletion(r rule, _ *vapCompiler) ([]vapCheck, error) {
	d := r.(*deletionRule)
	msg := celString(d.message)
	if d.message == "" {
		msg = `"deleting " + request.kind.kind + " " + (oldObject.metadata.?namespace.orValue("") == "" ? "" : oldObject.metadata.namespace + "/") + oldObject.metadata.?name.orValue("") + " is not allowed"`
		if d.condition != nil {
			msg += " + " + celString(" while "+strings.ReplaceAll(strings.TrimSpace(d.condition.expression), "\n", " "))
		}
	}
	finding := celFinding(celPath{}, `"Forbidden: " + `+msg)
	if d.condition == nil {
		return []vapCheck{{findings: "[" + finding + "]"}}, nil
	}
	return []vapCheck{{findings: fmt.Sprintf("(cel.bind(object, oldObject, %s) ? [%s] : [])", d.condition.expression, finding)}}, nil
}
