package webhook

import (
	"errors"
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
	"github.com/crdguard/crdguard/pkg/report"
)

// maxDenialCauses bounds the causes of a denial: the API server puts them
// all in the message kubectl prints, apimachinery joins that message in
// time quadratic in their number, and one UPDATE that removes 10,000 list
// items has 10,000 findings. The rest is counted in one final cause.
const maxDenialCauses = 10

// denial is the 422 Invalid status of the Deny violations, as
// apierrors.NewInvalid builds it from field errors, except that the message
// of a GuardPolicy's finding starts with "[policy/rule] ": kubectl prints
// each cause as "field: message", so the line reads
// "spec.image: [mysql-safety/image-version] Invalid value: ...". The field
// stays the exact field path, for clients that read the causes; schema
// findings keep the API server's own wording. Past maxDenialCauses the
// violations are counted, not formatted (boundCauses).
func denial(gk schema.GroupKind, name string, res *policies.Result) metav1.Status {
	var errs field.ErrorList
	var marks []string
	for _, v := range res.Violations {
		if v.Enforcement != v1alpha1.Deny {
			continue
		}
		if len(marks) < maxDenialCauses {
			errs = append(errs, denialError(v))
			marks = append(marks, ruleMark(v))
		} else {
			// Only the field counts in the last cause.
			errs = append(errs, &field.Error{Field: v.Field})
		}
	}
	if len(errs) > maxDenialCauses {
		marks = marks[:maxDenialCauses-1]
	}
	errs = boundCauses(errs)
	status := apierrors.NewInvalid(gk, name, errs).Status()
	// The message lists the causes as NewInvalid does (errs.ToAggregate:
	// each distinct "field: message" once), with the marks.
	lines := make([]error, 0, len(errs))
	seen := map[string]bool{}
	for i := range status.Details.Causes {
		c := &status.Details.Causes[i]
		if i < len(marks) {
			c.Message = marks[i] + c.Message
		}
		if line := c.Field + ": " + c.Message; !seen[line] {
			seen[line] = true
			lines = append(lines, errors.New(line))
		}
	}
	if agg := utilerrors.NewAggregate(lines); agg != nil {
		status.Message = fmt.Sprintf("%s %q is invalid: %v", gk.String(), name, agg)
	}
	return status
}

// boundCauses keeps the first maxDenialCauses-1 of errs, each with its
// message bounded, and counts the rest in a final Forbidden cause at the
// path they all lie under ("spec.users" for the items of spec.users).
// What is returned is small enough for apierrors.NewInvalid.
func boundCauses(errs field.ErrorList) field.ErrorList {
	if len(errs) > maxDenialCauses {
		rest := errs[maxDenialCauses-1:]
		under := rest[0].Field
		for _, e := range rest[1:] {
			under = commonPath(under, e.Field)
		}
		errs = append(errs[:maxDenialCauses-1:maxDenialCauses-1], &field.Error{
			Type: field.ErrorTypeForbidden, Field: under, BadValue: field.OmitValueType{},
			Detail: fmt.Sprintf("%d more findings not shown, %d in all", len(rest), len(errs)),
		})
	}
	for i, e := range errs {
		errs[i] = boundCause(e)
	}
	return errs
}

// boundCause is e with its field and message bounded as a logged value is
// (at maxLoggedValue bytes, its length said): a finding quotes the value it
// found, which a request can make megabytes long.
func boundCause(e *field.Error) *field.Error {
	body := e.ErrorBody()
	if len(e.Field) <= maxLoggedValue && len(body) <= maxLoggedValue {
		return e
	}
	detail, _ := strings.CutPrefix(bounded(body), e.Type.String())
	detail = strings.TrimPrefix(detail, ": ")
	return &field.Error{Type: e.Type, Field: bounded(e.Field), BadValue: field.OmitValueType{}, Detail: detail}
}

// commonPath is the longest field path that a and b both lie under, cut
// between steps: "spec.users" for "spec.users[3]" and "spec.users[7].name",
// "" for paths under different fields. A "." or "[" inside a map key
// ("metadata.labels[app.kubernetes.io/name]") is no step.
func commonPath(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	common, inKey := 0, false
	for i := 0; i <= n; i++ {
		if (i == len(a) || !inKey && isPathStep(a[i])) && (i == len(b) || !inKey && isPathStep(b[i])) {
			common = i
		}
		if i < len(a) {
			switch a[i] {
			case '[':
				inKey = true
			case ']':
				inKey = false
			}
		}
	}
	return a[:common]
}

// isPathStep tells whether c starts a step of a field path.
func isPathStep(c byte) bool { return c == '.' || c == '[' }

// boundedWarnings keeps the admission warnings short, as boundCauses keeps
// the causes: kubectl prints each, and one request can make a Warn rule
// find thousands.
func boundedWarnings(w []string) []string { return boundedList(w, "warnings") }

// boundedList is at most maxDenialCauses of items, each bounded, the last
// counting those left out ("3990 more objects").
func boundedList(items []string, noun string) []string {
	if len(items) > maxDenialCauses {
		items = append(items[:maxDenialCauses-1:maxDenialCauses-1], fmt.Sprintf("%d more %s", len(items)-(maxDenialCauses-1), noun))
	}
	for i := range items {
		items[i] = bounded(items[i])
	}
	return items
}

// denied is the response that denies a request with status, an Invalid
// status that names every cause; admission.Denied would send a 403 with a
// message only.
func denied(status metav1.Status) admission.Response {
	return admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{Allowed: false, Result: &status}}
}

// denialError is a violation as a field error whose ErrorBody is the
// violation's message exactly, so kubectl prints what `crdguard validate`
// prints. A violation's message starts with its type ("Invalid value: 3:
// ..."); the error carries the rest as its detail and no bad value.
func denialError(v report.Finding) *field.Error {
	typ := field.ErrorType(v.Type)
	detail, ok := strings.CutPrefix(v.Message, typ.String()+": ")
	if !ok && v.Message == typ.String() {
		detail = ""
	}
	return &field.Error{Type: typ, Field: v.Field, BadValue: field.OmitValueType{}, Detail: detail}
}

// ruleMark is "[policy/rule] " for a GuardPolicy's finding, as `crdguard
// validate` and the admission warnings name it, and "" for the schema's.
func ruleMark(v report.Finding) string {
	if v.Policy == policies.SchemaPolicy || v.Policy == "" {
		return ""
	}
	return "[" + v.RuleID() + "] "
}
