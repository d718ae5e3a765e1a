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

// denial is the 422 Invalid status of the Deny violations, as
// apierrors.NewInvalid builds it from field errors, except that the message
// of a GuardPolicy's finding starts with "[policy/rule] ": kubectl prints
// each cause as "field: message", so the line reads
// "spec.image: [mysql-safety/image-version] Invalid value: ...". The field
// stays the exact field path, for clients that read the causes; schema
// findings keep the API server's own wording.
func denial(gk schema.GroupKind, name string, res *policies.Result) metav1.Status {
	var errs field.ErrorList
	var rules []string
	for _, v := range res.Violations {
		if v.Enforcement == v1alpha1.Deny {
			errs = append(errs, denialError(v))
			rules = append(rules, ruleMark(v))
		}
	}
	status := apierrors.NewInvalid(gk, name, errs).Status()
	// The message lists the causes as NewInvalid does (errs.ToAggregate:
	// each distinct "field: message" once), with the marks.
	lines := make([]error, 0, len(errs))
	seen := map[string]bool{}
	for i := range status.Details.Causes {
		c := &status.Details.Causes[i]
		c.Message = rules[i] + c.Message
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
