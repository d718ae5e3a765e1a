package webhook

import (
	"context"
	"net/http"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/crdguard/crdguard/pkg/policies"
)

// Mutator is the /mutate handler: the engine's patches (policy defaults)
// and the one-shot consumption of approvals, on CREATE and UPDATE.
//
// It never denies: verdicts, warnings and audit annotations are /validate's,
// which sees the mutated object; reporting them here too would show every
// warning twice.
type Mutator struct {
	Engines *EngineHolder
	// NamespaceLabels looks up labels for namespaceSelectors; nil leaves
	// them unknown.
	NamespaceLabels NamespaceLabelsFunc
	// Now stamps approval records; time.Now when nil.
	Now func() time.Time
	// ApprovalKey signs approval records; nil writes them unsigned, and
	// then they approve no DELETE (see policies.ApprovalKey).
	ApprovalKey *policies.ApprovalKey
}

var _ admission.Handler = (*Mutator)(nil)

// Handle returns the patches for one request. A request that cannot be
// evaluated is a 500: a missing default could let /validate pass what the
// policy means to fill in, so mutation does not fail open either.
func (m *Mutator) Handle(ctx context.Context, req admission.Request) admission.Response {
	log := logf.FromContext(ctx)
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return admission.Allowed("")
	}
	preq, res, early := prepare(ctx, req, m.Engines, m.NamespaceLabels, m.ApprovalKey, nil)
	if early != nil {
		return *early
	}
	patches := res.Patches
	if res.Approval != nil {
		now := time.Now
		if m.Now != nil {
			now = m.Now
		}
		approval, err := approvalPatches(&preq, res.Approval, now())
		if err != nil {
			return admission.Errored(http.StatusInternalServerError, err)
		}
		patches = append(patches, approval...)
		log.Info("Recorded an approval", "user", res.Approval.User, "rules", res.Approval.Rules, "lifted", res.Approval.Lifted)
	}
	if len(patches) == 0 {
		return admission.Allowed("")
	}
	return admission.Patched("", patches...)
}
