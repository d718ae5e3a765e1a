package policies

import (
	"fmt"
	"strings"
)

// vapCELRule compiles a cel rule to a validation that keeps the rule's own
// expression: it already is ValidatingAdmissionPolicy CEL. The message
// adds the finding's field path and value, as the engine reports them.
//
// Two differences stay, both on errors: an expression that fails to
// evaluate is a finding in the engine and an error that failurePolicy
// decides in the API server; a messageExpression that fails falls back to
// the message without the engine's "(messageExpression failed: ...)" note.
func vapCELRule(r rule, c *vapCompiler) ([]vapCheck, error) {
	cr := r.(*celRule)
	// A message may not hold a line break (the API server rejects the
	// policy, or drops the evaluated message), so an expression written
	// over several lines is quoted on one.
	failed := "failed expression: " + strings.ReplaceAll(strings.TrimSpace(cr.expression.expression), "\n", " ")
	detail := celString(cr.message)
	if cr.message == "" {
		detail = celString(failed)
	}
	if cr.messageExpression != nil {
		m := c.names.next("msg")
		// The engine trims the message and falls back on an empty one.
		detail = fmt.Sprintf("cel.bind(%[1]s, (%[2]s).trim(), %[1]s == '' ? %[3]s : %[1]s)", m, cr.messageExpression.expression, detail)
	}
	path := celPath{}
	body := `"Invalid value: " + ` + detail
	if cr.fieldPath != nil {
		for _, s := range cr.fieldPath.steps {
			switch {
			case s.field != "":
				path = path.child(s.field)
			case s.index >= 0:
				path = path.index(s.index)
			default:
				path = path.key(s.key)
			}
		}
		// The value shown is the scalar at fieldPath (strings, booleans,
		// numbers), as celRule.value shows it.
		shown := celVisit(c.names, *cr.fieldPath, "(object != null ? object : oldObject)", func(_ celPath, value string, found bool) string {
			if !found {
				return "[]"
			}
			return fmt.Sprintf(`((type(%[1]s) == string || type(%[1]s) == bool || type(%[1]s) == int || type(%[1]s) == double) ? [%[2]s + ": "] : [])`, value, celShowValue(value))
		})
		body = fmt.Sprintf(`"Invalid value: " + %s.join("") + %s`, shown, detail)
	}
	staticPath, _ := path.static()
	message := staticPath + ": Invalid value: " + cr.message
	if cr.message == "" {
		message = staticPath + ": Invalid value: " + failed
	}
	return []vapCheck{{
		expression:        cr.expression.expression,
		messageExpression: path.expr() + ` + ": " + ` + body,
		message:           message,
	}}, nil
}
