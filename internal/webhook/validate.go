package webhook

import (
	"context"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime/schema"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/crdguard/crdguard/pkg/policies"
)

// Validator is the /validate handler: GuardPolicies on CREATE, UPDATE and
// DELETE. Schema conformance is the API server's, checked before it calls
// validating webhooks (see policies.Request.Admitted).
type Validator struct {
	Engines *EngineHolder
	// Metrics records decisions; nil records nothing.
	Metrics *Metrics
	// NamespaceLabels looks up labels for namespaceSelectors; nil leaves
	// them unknown.
	NamespaceLabels NamespaceLabelsFunc
	// ApprovalKey verifies approval records, /mutate's; nil verifies
	// none, and then a stored approval approves no DELETE.
	ApprovalKey *policies.ApprovalKey
}

var _ admission.Handler = (*Validator)(nil)

// Handle evaluates one request. An object that breaks a Deny rule is
// denied with a 422 Invalid status naming every field; a request that
// cannot be evaluated is a 500, never an allow.
func (v *Validator) Handle(ctx context.Context, req admission.Request) admission.Response {
	start := time.Now()
	resp, res := v.decide(ctx, req)
	v.Metrics.observe(string(req.Operation), knownKind(v.Engines.Load(), req.Kind.Kind), decisionOf(resp), time.Since(start), res)
	return resp
}

// decide is Handle without the metrics; res is nil when nothing was
// evaluated.
func (v *Validator) decide(ctx context.Context, req admission.Request) (admission.Response, *policies.Result) {
	preq, res, early := prepare(ctx, req, v.Engines, v.NamespaceLabels, v.ApprovalKey, restoreApproval)
	if early != nil {
		return *early, nil
	}
	var resp admission.Response
	if res.Allowed() {
		resp = admission.Allowed("")
	} else {
		subject := preq.Object
		if subject == nil {
			subject = preq.OldObject
		}
		resp = denied(denial(groupKind(req), objectName(req, subject), &res))
	}
	resp.Warnings = boundedWarnings(res.AdmissionWarnings())
	if annotations := res.AuditAnnotations(); len(annotations) > 0 {
		resp.AuditAnnotations = annotations
	}
	logDecision(logf.FromContext(ctx), req, &res, resp)
	return resp, &res
}

// logDecision logs a denial, and an allow at V(1). The logger already
// carries the request's UID, resource, namespace, name and user; object
// contents are never logged. The values are built only for a line that is
// written: at the default level an allow writes none.
func logDecision(log logr.Logger, req admission.Request, res *policies.Result, resp admission.Response) {
	if !resp.Allowed {
		log.Info("Denied", "kind", req.Kind.Kind, "operation", req.Operation, "policies", res.Policies, "causes", len(resp.Result.Details.Causes))
		return
	}
	if log := log.V(1); log.Enabled() {
		log.Info("Allowed", "kind", req.Kind.Kind, "operation", req.Operation, "policies", res.Policies, "approval", res.Approval != nil, "warnings", len(resp.Warnings))
	}
}

// groupKind is the kind named in a denial: the kind the client asked for,
// as the API server names it in its own Invalid errors.
func groupKind(req admission.Request) schema.GroupKind {
	kind := req.Kind
	if req.RequestKind != nil {
		kind = *req.RequestKind
	}
	return schema.GroupKind{Group: kind.Group, Kind: kind.Kind}
}
