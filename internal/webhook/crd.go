package webhook

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/dynamic"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/audit"
	"github.com/crdguard/crdguard/pkg/policies"
	"github.com/crdguard/crdguard/pkg/schema"
	"github.com/crdguard/crdguard/pkg/schema/diff"
)

// ValidateCRDPath guards CRD upgrades; register it for
// customresourcedefinitions.apiextensions.k8s.io UPDATE, with an
// objectSelector matching the guarded CRDs' label.
const ValidateCRDPath = "/validate-crd"

// StoredObjectsCheck is the name an approval gives to lift the denial of a
// CRD update that strands stored objects. It is not a diff check: naming
// it says "I know these objects lose these fields, or will be rejected on
// their next write or on an edit of these values".
const StoredObjectsCheck = "stored-objects"

// maxDetailRunes bounds one cause's detail of a CRD update's denial: a
// CRD upgrade can change hundreds of paths, each cause is one line kubectl
// prints, and the full report is in the webhook's log.
const maxDetailRunes = 300

// The replay bounds of a CRDGuard that sets none, as the flags' defaults.
// The object bound is what the timeout can replay: a replay validates
// 600–750 objects per CPU-second (BenchmarkCRDReplay), so 4,000 fit in 8s
// on a core of its own, with room for the slot wait and the diff, and a
// CRD with more is denied at once, naming the bound, instead of after the
// whole timeout.
const (
	defaultReplayMaxObjects  = 4000
	defaultReplayTimeout     = 8 * time.Second
	defaultReplayConcurrency = 4
)

// CRDGuard configures /validate-crd.
type CRDGuard struct {
	// Selector selects guarded CRDs by label; nil selects none by label.
	Selector labels.Selector
	// Names selects guarded CRDs by name (plural.group). A CRD is guarded
	// when either the selector or the names select it.
	Names []string
	// Approvers may approve breaking changes with crdguard.dev/approve.
	Approvers v1alpha1.Approvers
	// Client reads stored objects live from the API server; it needs
	// list on every guarded kind.
	Client dynamic.Interface
	// PageSize is the limit of one list call; 0: audit.DefaultPageSize.
	PageSize int64
	// MaxObjects bounds the stored objects replayed for one request at
	// each changed version (audit.Lister.MaxObjects: a version lists them
	// all); 0: 4000.
	MaxObjects int
	// Timeout bounds listing and replaying for one request, waiting for a
	// replay slot included; it must be below the webhook configuration's
	// timeoutSeconds. 0: 8s.
	Timeout time.Duration
	// Concurrency bounds the replays run at once; the others wait for a
	// slot within Timeout. 0: 4.
	Concurrency int
	// slots holds a token per running replay.
	slots     chan struct{}
	slotsOnce sync.Once
	// Now is the clock waivers are judged by; nil: time.Now.
	Now func() time.Time
}

// CRDValidator is the /validate-crd handler: on UPDATE of a guarded CRD it
// denies breaking schema changes that no approver approved, and changes
// that strand stored objects (every diff.Replay finding: rejected on
// update, ratchet-tolerated or pruned). Other CRDs and operations are
// allowed untouched.
type CRDValidator struct {
	Guard *CRDGuard
	// Metrics records decisions; nil records nothing.
	Metrics *Metrics
}

var _ admission.Handler = (*CRDValidator)(nil)

// Handle decides one request and records it.
func (v *CRDValidator) Handle(ctx context.Context, req admission.Request) admission.Response {
	start := time.Now()
	resp := v.decide(ctx, req)
	kind := otherKind
	if req.Kind.Kind == "CustomResourceDefinition" {
		kind = req.Kind.Kind
	}
	v.Metrics.observe(string(req.Operation), kind, decisionOf(resp), time.Since(start), nil)
	return resp
}

func (v *CRDValidator) decide(ctx context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Update {
		return admission.Allowed("")
	}
	log := logf.FromContext(ctx)
	old, err := decodeCRD(req.OldObject, "oldObject")
	if err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	crd, err := decodeCRD(req.Object, "object")
	if err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	// Old or new: removing the label in the breaking update itself must
	// not escape the guard (the API server's objectSelector matches
	// either too).
	if !v.Guard.selects(old) && !v.Guard.selects(crd) {
		return admission.Allowed("")
	}
	now := time.Now
	if v.Guard.Now != nil {
		now = v.Guard.Now
	}

	changes, err := diff.Compare(old, crd)
	if err != nil {
		log.Error(err, "Cannot compare the CRD versions", "crd", crd.Name)
		return admission.Errored(http.StatusInternalServerError, err)
	}
	approved, approvalProblem, forbidden := crdApproval(old, crd, req.UserInfo, &v.Guard.Approvers)
	var breaking, lifted []diff.Change
	var warnings []string
	for _, ch := range changes {
		// The default configuration: breaking changes deny, warnings
		// warn, info is recorded only.
		switch (*diff.Config)(nil).Decide(ch, now()).Enforcement {
		case v1alpha1.Deny:
			if approved[ch.Check] {
				lifted = append(lifted, ch)
			} else {
				breaking = append(breaking, ch)
			}
		case v1alpha1.Warn:
			warnings = append(warnings, oneLine(ch.String()))
		}
	}

	// Only a breaking change can strand a stored object: a schema that
	// accepts all the old one did keeps what it stored, so a safe update
	// is answered without listing anything.
	var invalid []invalidObject
	// notReplayed is why the stored objects are unknown. That denies: an
	// approval of breaking changes is no approval of what they do to
	// objects nobody looked at, and a 500 would leave it to a
	// failurePolicy that may be Ignore.
	var notReplayed error
	if !approved[StoredObjectsCheck] && len(breaking)+len(lifted) > 0 {
		if invalid, notReplayed = v.Guard.replay(ctx, old, crd); notReplayed != nil {
			log.Error(notReplayed, "Cannot replay the stored objects against the new CRD", "crd", crd.Name)
		}
	}

	if len(breaking) == 0 && len(invalid) == 0 && notReplayed == nil && !forbidden {
		if len(lifted) > 0 {
			log.Info("Allowed an approved CRD update", "crd", crd.Name, "approved", changeStrings(lifted))
		}
		if approvalProblem != "" {
			warnings = append([]string{"ignored: " + oneLine(approvalProblem)}, warnings...)
		}
		resp := admission.Allowed("")
		resp.Warnings = boundedWarnings(warnings)
		return resp
	}
	// As bounded as the denial: a replay can strand thousands of objects.
	log.Info("Denied a CRD update", "crd", crd.Name,
		"breaking", boundedList(changeStrings(breaking), "changes"), "approved", boundedList(changeStrings(lifted), "changes"),
		"invalidObjects", boundedList(objectStrings(invalid), "objects"), "invalidObjectCount", len(invalid),
		"approvalProblem", bounded(approvalProblem))
	causes := denialCauses(breaking, invalid, approvalProblem, notReplayed)
	gk := apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition").GroupKind()
	resp := denied(apierrors.NewInvalid(gk, crd.Name, causes).Status())
	resp.Warnings = boundedWarnings(warnings)
	return resp
}

// decodeCRD reads one CRD of the request.
func decodeCRD(raw runtime.RawExtension, what string) (*apiextensionsv1.CustomResourceDefinition, error) {
	if len(raw.Raw) == 0 {
		return nil, fmt.Errorf("the admission request has no %s", what)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := json.Unmarshal(raw.Raw, crd); err != nil {
		return nil, fmt.Errorf("decoding the admission request's %s: %w", what, err)
	}
	return crd, nil
}

// selects tells whether crd is guarded.
func (g *CRDGuard) selects(crd *apiextensionsv1.CustomResourceDefinition) bool {
	if slices.Contains(g.Names, crd.Name) {
		return true
	}
	return g.Selector != nil && !g.Selector.Empty() && g.Selector.Matches(labels.Set(crd.Labels))
}

// crdApproval reads an approval on the CRD by the rules of GuardPolicy
// approvals (pkg/policies): "<check>[,<check>...]: <reason>" in
// crdguard.dev/approve counts only in the request that writes it, so one
// left on the CRD does not approve its next upgrade too, and only an
// approver may write it. It returns the checks the approval lifts, why an
// approval present lifts nothing ("" if none), and whether writing it is
// forbidden: writing an approval is approving, denied to anyone else
// whatever the update changes.
func crdApproval(old, crd *apiextensionsv1.CustomResourceDefinition, user authenticationv1.UserInfo, approvers *v1alpha1.Approvers) (checks map[string]bool, problem string, forbidden bool) {
	if _, ok := crd.Annotations[v1alpha1.ApproveAnnotation]; !ok {
		return nil, "", false
	}
	value, written := policies.AnnotationWritten(old.Annotations, crd.Annotations, v1alpha1.ApproveAnnotation)
	if !written {
		return nil, "the approval is unchanged from the stored CRD's; approve this update with a new one", false
	}
	a, err := policies.ParseApproval(value, "check")
	if err != nil {
		return nil, err.Error(), false
	}
	if !policies.IsApprover(approvers, user) {
		return nil, fmt.Sprintf("%s is not a CRD approver; only approvers may write %s", user.Username, v1alpha1.ApproveAnnotation), true
	}
	checks = map[string]bool{}
	for _, name := range a.Names {
		checks[name] = true
	}
	return checks, "", false
}

// invalidObject is a stored object the new CRD strands.
type invalidObject struct {
	kind, namespace, name string
	// schemaPath is the path of the version's schema in the new CRD.
	schemaPath string
	findings   []diff.ReplayFinding
}

func (o invalidObject) qualifiedName() string {
	if o.namespace != "" {
		return o.namespace + "/" + o.name
	}
	return o.name
}

func (o invalidObject) String() string {
	findings := make([]string, len(o.findings))
	for i, f := range o.findings {
		findings[i] = f.String()
	}
	return fmt.Sprintf("%s %s: %s", o.kind, o.qualifiedName(), strings.Join(findings, "; "))
}

// replay lists the stored objects of every version diff.ReplayVersions
// names and replays each against the new CRD with diff.Replay, as `crdguard
// diff --objects` replays objects from files or the cluster.
func (g *CRDGuard) replay(ctx context.Context, old, crd *apiextensionsv1.CustomResourceDefinition) ([]invalidObject, error) {
	changed := diff.ReplayVersions(old, crd)
	if len(changed) == 0 {
		return nil, nil
	}
	registry, err := schema.NewRegistry(crd)
	if err != nil {
		return nil, fmt.Errorf("compiling the new CRD: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(g.Timeout, defaultReplayTimeout))
	defer cancel()
	g.slotsOnce.Do(func() { g.slots = make(chan struct{}, cmp.Or(g.Concurrency, defaultReplayConcurrency)) })
	select {
	case g.slots <- struct{}{}:
		defer func() { <-g.slots }()
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for a replay slot: %w (raise --crd-replay-concurrency)", ctx.Err())
	}
	lister := &audit.Lister{Client: g.Client, PageSize: g.PageSize, MaxObjects: cmp.Or(g.MaxObjects, defaultReplayMaxObjects)}
	var invalid []invalidObject
	for _, name := range changed {
		i := slices.IndexFunc(crd.Spec.Versions, func(v apiextensionsv1.CustomResourceDefinitionVersion) bool { return v.Name == name })
		v := crd.Spec.Versions[i]
		target := audit.Target{
			Resource:   k8sschema.GroupVersionResource{Group: crd.Spec.Group, Version: v.Name, Resource: crd.Spec.Names.Plural},
			Kind:       k8sschema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind},
			Namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
		}
		resource := target.Resource.GroupResource()
		// replayErr is why fn stopped the listing, told apart from the
		// listing's own errors.
		var replayErr error
		err := lister.List(ctx, target, "", func(obj *unstructured.Unstructured) error {
			if replayErr = ctx.Err(); replayErr != nil {
				replayErr = fmt.Errorf("replaying %s: %w (raise --crd-replay-timeout)", resource, replayErr)
				return replayErr
			}
			findings, err := diff.Replay(ctx, registry, obj)
			if err != nil {
				replayErr = fmt.Errorf("validating %s %s/%s: %w", crd.Spec.Names.Kind, obj.GetNamespace(), obj.GetName(), err)
				return replayErr
			}
			if len(findings) > 0 {
				invalid = append(invalid, invalidObject{
					kind: crd.Spec.Names.Kind, namespace: obj.GetNamespace(), name: obj.GetName(),
					schemaPath: field.NewPath("spec", "versions").Index(i).Child("schema", "openAPIV3Schema").String(), findings: findings,
				})
			}
			return nil
		})
		// Past the bound, the objects not read could be the invalid ones:
		// that is not an answer.
		var tooMany *audit.TooManyObjectsError
		switch {
		case replayErr != nil:
			return nil, replayErr
		case errors.As(err, &tooMany):
			return nil, fmt.Errorf("%s has more than %d stored objects to replay; raise --crd-replay-max-objects, and --crd-replay-timeout with it", resource, tooMany.Max)
		case err != nil:
			return nil, fmt.Errorf("listing %s: %w", resource, err)
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("replaying %s: %w (raise --crd-replay-timeout)", resource, err)
		}
	}
	return invalid, nil
}

// denialCauses are the top findings, each at its path in the CRD, then a
// count of the rest. Breaking changes come first: they say what to fix;
// then why the stored objects were not replayed, if they were not.
func denialCauses(breaking []diff.Change, invalid []invalidObject, approvalProblem string, notReplayed error) field.ErrorList {
	var causes field.ErrorList
	if approvalProblem != "" {
		causes = append(causes, field.Forbidden(field.NewPath("metadata", "annotations").Key(v1alpha1.ApproveAnnotation), oneLine(approvalProblem)))
	}
	for _, ch := range breaking {
		detail := fmt.Sprintf("breaking change [%s]: %s: %s", ch.Check, ch.Values(), ch.Message)
		if ch.Version != "" {
			detail = ch.Version + ": " + detail
		}
		causes = append(causes, field.Forbidden(field.NewPath(ch.Path), oneLine(detail)))
	}
	if notReplayed != nil {
		causes = append(causes, field.Forbidden(field.NewPath("spec", "versions"), oneLine(fmt.Sprintf(
			"stored objects not replayed, so what the new schema does to them is unknown: %v; approving %s skips the replay", notReplayed, StoredObjectsCheck))))
	}
	// One cause per finding, so that every object and field path is named
	// (up to the bound).
	stranded := 0
	for _, o := range invalid {
		for _, f := range o.findings {
			causes = append(causes, field.Forbidden(field.NewPath(o.schemaPath), oneLine(fmt.Sprintf("stored %s %s: %s", o.kind, o.qualifiedName(), f))))
			stranded++
		}
	}
	if len(causes) > maxDenialCauses {
		rest := len(causes) - (maxDenialCauses - 1)
		causes = append(causes[:maxDenialCauses-1], field.Forbidden(field.NewPath("spec"),
			fmt.Sprintf("%d more findings (in all: %d breaking changes, %d findings in %d stored objects); the crdguard webhook's log has the full report", rest, len(breaking), stranded, len(invalid))))
	}
	return causes
}

// oneLine fits s on one line of at most maxDetailRunes runes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxDetailRunes {
		return string(r[:maxDetailRunes-1]) + "…"
	}
	return s
}

func changeStrings(changes []diff.Change) []string {
	out := make([]string, len(changes))
	for i, ch := range changes {
		out[i] = ch.String()
	}
	return out
}

func objectStrings(objs []invalidObject) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = o.String()
	}
	return out
}
