package webhook

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
	"github.com/crdguard/crdguard/pkg/schema"
)

// PolicyValidator is the /validate-policy handler: it denies a GuardPolicy
// create or update that crdguard could not compile, with every field path,
// exactly as `crdguard validate --policies` would reject the file. The
// CRD's schema cannot say that a CEL expression compiles or a path parses;
// without this, such a policy is stored and only the webhook's logs say
// it is not enforced.
type PolicyValidator struct {
	// Engines gives the CRD schemas the policy is checked against, the
	// ones the engine would compile it with; with no engine yet, it is
	// checked without schemas.
	Engines *EngineHolder
	// Routing names, in a warning, the kinds a valid policy matches that
	// no webhook configuration sends to crdguard; nil checks nothing.
	Routing *Routing
}

var _ admission.Handler = (*PolicyValidator)(nil)

// Handle validates one GuardPolicy. Other operations are allowed: a
// DELETE has nothing to check.
func (v *PolicyValidator) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return admission.Allowed("")
	}
	obj, err := decodeObject(req.Object, "object")
	if err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	var schemas *schema.Registry
	if engine := v.Engines.Load(); engine != nil {
		schemas = engine.Schemas()
	}
	gp, errs := policies.PolicyFromObject(ctx, obj, schemas)
	if len(errs) == 0 {
		return admission.Allowed("").WithWarnings(v.routingWarnings(ctx, gp)...)
	}
	for _, e := range errs {
		// crdguard failing is not the policy's fault: a 500, so the
		// configuration's failurePolicy decides.
		if e.Type == field.ErrorTypeInternal {
			return admission.Errored(http.StatusInternalServerError, e)
		}
	}
	logf.FromContext(ctx).Info("Denied an invalid GuardPolicy", "policy", obj.GetName(), "causes", len(errs))
	gk := v1alpha1.GroupVersion.WithKind("GuardPolicy").GroupKind()
	return denied(apierrors.NewInvalid(gk, obj.GetName(), boundCauses(errs)).Status())
}

// routingWarnings say what of the policy's match no webhook configuration
// routes to crdguard. Not knowing is said too, and is no reason to deny.
func (v *PolicyValidator) routingWarnings(ctx context.Context, gp *v1alpha1.GuardPolicy) []string {
	if v.Routing == nil {
		return nil
	}
	unrouted, err := v.Routing.Unrouted(ctx, gp.Spec.Match)
	switch {
	case err != nil:
		return []string{fmt.Sprintf("cannot tell whether the kinds of GuardPolicy %s reach crdguard: %v", gp.Name, err)}
	case len(unrouted) > 0:
		return []string{fmt.Sprintf("GuardPolicy %s is not enforced on %s: ValidatingWebhookConfiguration %s sends no such requests to crdguard; add them to its rules (the chart's webhook.rules)",
			gp.Name, strings.Join(unrouted, ", "), strings.Join(v.Routing.Configurations, ", "))}
	}
	return nil
}
