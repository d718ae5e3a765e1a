package vap

import (
	"fmt"
	"strings"

	"github.com/crdguard/crdguard/pkg/policies/internal/rules"
)

// compileCELRule compiles a cel rule to a validation that keeps the rule's own
// expression: it already is ValidatingAdmissionPolicy CEL. The message
// adds the finding's field path and value, as the engine reports them.
//
// Two differences stay, both on errors: an expression that fails to
// evaluate is a finding in the engine and an error that failurePolicy
// decides in the API server; a messageExpression that fails falls back to
// the message without the engine's "(messageExpression failed: ...)" note.
func compileCELRule(cr *rules.CEL, c *compiler) ([]ruleCEL, error) {
	// A message may not hold a line break (the API server rejects the
	// policy, or drops the evaluated message), so an expression written
	// over several lines is quoted on one.
	failed := "failed expression: " + strings.ReplaceAll(strings.TrimSpace(cr.Expression.Expression), "\n", " ")
	detail := celString(cr.Message)
	if cr.Message == "" {
		detail = celString(failed)
	}
	if cr.MessageExpression != nil {
		m := c.names.next("msg")
		// The engine trims the message and falls back on an empty one.
		detail = fmt.Sprintf("cel.bind(%[1]s, (%[2]s).trim(), %[1]s == '' ? %[3]s : %[1]s)", m, cr.MessageExpression.Expression, detail)
	}
	path := celPath{}
	body := `"Invalid value: " + ` + detail
	if cr.FieldPath != nil {
		path = path.steps(cr.FieldPath.Steps)
		// The value shown is the scalar at fieldPath (strings, booleans,
		// numbers), as rules.CEL.value shows it.
		shown := celVisit(c.names, *cr.FieldPath, "(object != null ? object : oldObject)", func(_ celPath, value string, found bool) string {
			if !found {
				return "[]"
			}
			return fmt.Sprintf(`((type(%[1]s) == string || type(%[1]s) == bool || type(%[1]s) == int || type(%[1]s) == double) ? [%[2]s + ": "] : [])`, value, celShowValue(value))
		})
		body = fmt.Sprintf(`"Invalid value: " + %s.join("") + %s`, shown, detail)
	}
	staticPath, _ := path.static()
	message := staticPath + ": Invalid value: " + cr.Message
	if cr.Message == "" {
		message = staticPath + ": Invalid value: " + failed
	}
	return []ruleCEL{{
		expression:        cr.Expression.Expression,
		messageExpression: path.expr() + ` + ": " + ` + body,
		message:           message,
	}}, nil
}
