package testsuite

import (
	"context"
	"errors"
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
	"github.com/crdguard/crdguard/pkg/report"
)

// CaseResult is the outcome of one case.
type CaseResult struct {
	Name      string
	Operation v1alpha1.Operation
	// Object names the request's object as reports do: "MySQLCluster
	// shop/prod" (see report.Result.ObjectRef).
	Object string
	// Err says why the request could not be evaluated; the case then
	// neither passed nor failed.
	Err error
	// Checks are the object's result, then each rule expectation in the
	// suite's order.
	Checks []Check
	// Unexpected are the findings that no expectation lists; always none
	// with AllowOtherFindings.
	Unexpected []report.Finding
}

// Passed tells whether the request was evaluated and got every expected
// finding and no other.
func (r *CaseResult) Passed() bool {
	if r.Err != nil || len(r.Unexpected) > 0 {
		return false
	}
	for _, c := range r.Checks {
		if !c.OK {
			return false
		}
	}
	return true
}

// Check is one expectation and what the request got.
type Check struct {
	// Subject is "result" for the object's result, else "POLICY/RULE".
	Subject string
	// Want and Got are a result and its field paths: "denied at [spec.image]".
	Want, Got string
	OK        bool
}

// Run evaluates every case of the suite, in order, with the suite's
// engine: the one `crdguard validate` and the webhook evaluate with.
func (s *Suite) Run(ctx context.Context) []CaseResult {
	out := make([]CaseResult, len(s.Cases))
	for i := range s.Cases {
		out[i] = s.runCase(ctx, i)
	}
	return out
}

func (s *Suite) runCase(ctx context.Context, i int) CaseResult {
	c := &s.Cases[i]
	req := policies.Request{
		Operation:       c.Operation,
		Object:          deepCopy(s.objects[i].object),
		OldObject:       deepCopy(s.objects[i].oldObject),
		NamespaceLabels: c.NamespaceLabels,
		UserInfo:        authenticationv1.UserInfo{Username: c.User, Groups: c.Groups},
	}
	subject := req.Object
	if subject == nil {
		subject = req.OldObject
	}
	registry := s.engine.Schemas()
	req.Namespace = registry.Namespace(subject)
	objectRef := (&report.Result{Kind: subject.GetKind(), Namespace: req.Namespace, Name: subject.GetName()}).ObjectRef()
	res := CaseResult{Name: c.Name, Operation: c.Operation, Object: objectRef}

	if _, err := registry.Validator(subject.GroupVersionKind()); err != nil && !s.AllowMissingSchemas {
		res.Err = fmt.Errorf("no CRD was loaded for %s %s, so its schema is not checked: give the CRD in the suite's crds or with crdguard test --crds, or set allowMissingSchemas: true in the suite to check it by its policies alone",
			subject.GetAPIVersion(), subject.GetKind())
		return res
	}
	out, err := s.engine.Evaluate(ctx, req)
	if unknown := (*policies.UnknownNamespaceError)(nil); errors.As(err, &unknown) {
		err = fmt.Errorf("%w: give them with namespaceLabels", err)
	}
	if err != nil {
		res.Err = err
		return res
	}
	// A request no schema and no policy looked at would pass any
	// expectation of "allowed" for the wrong reason: a wrong kind or a
	// missing CRD.
	if !out.SchemaValidated && len(out.Policies) == 0 {
		res.Err = fmt.Errorf("no CRD defines %s and no policy matches the request: the case checks nothing", subject.GroupVersionKind())
		return res
	}
	got := Allowed
	switch {
	case !out.Allowed():
		got = Denied
	case len(out.ServerWarnings) > 0 || len(out.AdmissionWarnings()) > 0:
		got = Warned
	}
	res.Checks, res.Unexpected = s.compare(c.Expect, got, out.Violations)
	return res
}

func deepCopy(obj *unstructured.Unstructured) *unstructured.Unstructured {
	if obj == nil {
		return nil
	}
	return obj.DeepCopy()
}
