package webhook

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/utils/ptr"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
)

// operations maps the admission operations crdguard evaluates; CONNECT
// carries no object and is allowed without evaluation.
var operations = map[admissionv1.Operation]v1alpha1.Operation{
	admissionv1.Create: v1alpha1.Create,
	admissionv1.Update: v1alpha1.Update,
	admissionv1.Delete: v1alpha1.Delete,
}

// toPolicyRequest builds the request the engine evaluates, field for field
// as `crdguard validate` builds it, so both give the same verdict. ok is
// false for an operation crdguard does not evaluate.
func toPolicyRequest(req admission.Request) (out policies.Request, ok bool, err error) {
	op, ok := operations[req.Operation]
	if !ok {
		return out, false, nil
	}
	out = policies.Request{
		Operation: op,
		Namespace: req.Namespace,
		UserInfo:  req.UserInfo,
		// Dry-run requests get the same verdict: `kubectl apply
		// --dry-run=server` is how people ask whether a real apply would pass.
		DryRun: req.DryRun != nil && *req.DryRun,
		// What the API server sends is decoded and, by the time /validate
		// sees it, schema-validated: only the policies are left to check.
		Admitted: true,
	}
	if op != v1alpha1.Delete {
		if out.Object, err = decodeObject(req.Object, "object"); err != nil {
			return out, true, err
		}
	}
	if op != v1alpha1.Create {
		if out.OldObject, err = decodeObject(req.OldObject, "oldObject"); err != nil {
			return out, true, err
		}
	}
	return out, true, nil
}

// decodeObject reads one object of an AdmissionRequest, decoded with the
// review (serveReviews) or from its JSON. An empty one is an error: the
// API server always sends it for the operations evaluated.
func decodeObject(raw runtime.RawExtension, what string) (*unstructured.Unstructured, error) {
	obj, decoded := raw.Object.(*unstructured.Unstructured)
	if !decoded {
		if len(raw.Raw) == 0 {
			return nil, fmt.Errorf("the admission request has no %s", what)
		}
		obj = &unstructured.Unstructured{}
		if err := utiljson.Unmarshal(raw.Raw, &obj.Object); err != nil {
			return nil, fmt.Errorf("decoding the admission request's %s: %w", what, err)
		}
	}
	// Not apimachinery's missing-kind error, which quotes the whole
	// object: this error is logged, and object contents (a Secret's data,
	// a password) never belong in the logs.
	if obj.GetKind() == "" {
		return nil, fmt.Errorf("decoding the admission request's %s: it has no kind", what)
	}
	return obj, nil
}

// objectName names the request's object in a denial: the name, or the
// generateName prefix of a create that has no name yet (as the CLI does).
func objectName(req admission.Request, subject *unstructured.Unstructured) string {
	switch {
	case req.Name != "":
		return req.Name
	case subject == nil:
		return ""
	case subject.GetName() != "":
		return subject.GetName()
	}
	return subject.GetGenerateName()
}

// requireOperation denies, with 400, an AdmissionReview whose request is
// missing (so its operation is empty) or names an operation admission does
// not define. The API server never sends one, and every handler allows
// the operations it does not evaluate: without this, a review without a
// request would be answered "allowed".
func requireOperation(next admission.Handler) admission.Handler {
	return admission.HandlerFunc(func(ctx context.Context, req admission.Request) admission.Response {
		switch req.Operation {
		case admissionv1.Create, admissionv1.Update, admissionv1.Delete, admissionv1.Connect:
			return next.Handle(ctx, req)
		case "":
			return admission.Errored(http.StatusBadRequest, errors.New("the AdmissionReview has no request (no operation)"))
		}
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("unknown operation %q", req.Operation))
	})
}

// prepare takes a request through the steps /validate and /mutate share
// before their verdict: decode it, take the loaded engine, add the
// namespace labels and the approval key, and evaluate. restore, when not nil, gives the object
// to evaluate (/validate's restoreApproval). A non-nil early is the
// response to send instead: an allow for an operation crdguard does not
// evaluate, else an error, since a request that cannot be evaluated is
// never allowed.
func prepare(ctx context.Context, req admission.Request, engines *EngineHolder, lookup NamespaceLabelsFunc, key *policies.ApprovalKey,
	restore func(obj, old *unstructured.Unstructured, user string) *unstructured.Unstructured,
) (preq policies.Request, res policies.Result, early *admission.Response) {
	log := logf.FromContext(ctx)
	preq, ok, err := toPolicyRequest(req)
	switch {
	case err != nil:
		log.Error(err, "Cannot decode the admission request")
		return preq, res, ptr.To(admission.Errored(http.StatusBadRequest, err))
	case !ok:
		return preq, res, ptr.To(admission.Allowed(""))
	}
	engine := engines.Load()
	if engine == nil {
		return preq, res, ptr.To(admission.Errored(http.StatusInternalServerError, ErrNotReady))
	}
	if err := addNamespaceLabels(ctx, lookup, engine, &preq); err != nil {
		log.Error(err, "Cannot evaluate the request")
		return preq, res, ptr.To(admission.Errored(http.StatusInternalServerError, err))
	}
	preq.ApprovalKey = key
	if restore != nil {
		preq.Object = restore(preq.Object, preq.OldObject, req.UserInfo.Username)
	}
	if res, err = evaluate(ctx, engine, preq); err != nil {
		log.Error(err, "Cannot evaluate the request", "policies", res.Policies)
		return preq, res, ptr.To(admission.Errored(http.StatusInternalServerError, err))
	}
	return preq, res, nil
}
