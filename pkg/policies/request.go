package policies

import (
	"fmt"
	"slices"
	"strings"

	"gomodules.xyz/jsonpatch/v2"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies/internal/rules"
	"github.com/crdguard/crdguard/pkg/report"
	"github.com/crdguard/crdguard/pkg/schema"
)

// Request is one admission request, as the webhook receives it or the CLI
// simulates it.
type Request struct {
	Operation v1alpha1.Operation
	// Object is the object after the operation; nil on DELETE.
	Object *unstructured.Unstructured
	// OldObject is the stored object on UPDATE and DELETE.
	OldObject *unstructured.Unstructured
	// Namespace the object is in; "" for cluster-scoped objects.
	Namespace string
	// NamespaceLabels are the labels of Namespace; nil when unknown, which
	// makes a request a policy with a namespaceSelector matches by kind an
	// *UnknownNamespaceError. An empty map is a namespace without labels.
	NamespaceLabels map[string]string
	UserInfo        authenticationv1.UserInfo
	// DryRun requests are evaluated exactly like real ones.
	DryRun bool
	// FieldValidation is the request's fieldValidation: what the schema
	// validation makes of unknown fields (see schema.ValidateOptions).
	// Empty is Strict, kubectl's default.
	FieldValidation schema.FieldValidation
	// HandsOverObject says the caller gives Object up. When no policy
	// guards the object, schema validation then prepares Object itself
	// rather than a copy (see schema.ValidateOptions.HandOverObject), and
	// Object is left changed; Result.Stored may be it. The engine reads
	// no more of it afterwards than its kind and metadata (approvals, the
	// server's warnings), which it copies first. False (the default)
	// leaves Object unmodified.
	HandsOverObject bool
	// ShowStored asks for Result.Stored. An object the policies mutate is
	// then validated a second time, patched, as the server does.
	ShowStored bool
	// Admitted says Object and OldObject come from kube-apiserver's
	// admission chain: it has decoded them (pruned and defaulted by the
	// CRD), and validates the new object against the CRD's schema itself —
	// before validating webhooks are called, after mutating ones. The
	// engine then checks policies only, on the objects as sent: decoding
	// and validating again would cost most of a request's time and could
	// not change the verdict.
	Admitted bool
	// ApprovalKey signs the approval records this request's approval gets
	// (FormatApprovalRecord) and verifies the records it reads; nil signs
	// none, and then a stored approval approves no DELETE, since nothing
	// shows that crdguard wrote its record.
	ApprovalKey *ApprovalKey
}

// subject is the object the request is about: the new object, or the
// stored one on DELETE.
func (r *Request) subject() *unstructured.Unstructured {
	if r.Object != nil {
		return r.Object
	}
	return r.OldObject
}

// forRules is the request as rules read it.
func (r *Request) forRules() *rules.Request {
	return &rules.Request{Operation: r.Operation, Object: r.Object, OldObject: r.OldObject, Namespace: r.Namespace, UserInfo: r.UserInfo, DryRun: r.DryRun}
}

// Result is the verdict on a request.
type Result struct {
	// Violations at every enforcement level, schema findings first.
	Violations []report.Finding
	// Warnings are the engine's own notes (an approval, namespace labels it
	// did not know); Warn findings are in Violations. AdmissionWarnings
	// has both.
	Warnings []string
	// ServerWarnings are the warnings kube-apiserver sends with its answer,
	// in its order and within its limits: a deprecated version's, whatever
	// the verdict; ratcheted CEL rules'; and, for a request it accepts,
	// its strategy's. None when the request was Admitted: the server sent
	// them already.
	ServerWarnings []string
	// Approval is the approval this request wrote, when crdguard admitted
	// it; nil otherwise.
	Approval *Approval
	// Patches are the mutations the defaults rules propose (and schema
	// defaults, when asked for).
	Patches []jsonpatch.Operation
	// SchemaValidated tells whether a CRD schema validated the object.
	SchemaValidated bool
	// Stored is the object as the API server would store it (see
	// schema.Validator.DryRun), with the policies' patches applied and
	// decoded again as the server decodes a mutating webhook's answer. It
	// is nil unless Request.ShowStored, when the schema did not validate
	// the object or found errors (the server stores nothing then), and on
	// DELETE.
	Stored *unstructured.Unstructured
	// Policies names the policies that matched the request.
	Policies []string
}

// AdmissionWarnings are what the webhook returns as warnings: the notes,
// then every Warn finding prefixed "[policy/rule]".
func (r *Result) AdmissionWarnings() []string {
	warnings := slices.Clone(r.Warnings)
	for _, v := range r.Violations {
		if v.Enforcement == v1alpha1.Warn {
			warnings = append(warnings, fmt.Sprintf("[%s/%s] %s: %s", v.Policy, v.Rule, v.Field, v.Message))
		}
	}
	return warnings
}

// AuditAnnotations are what the webhook records in the audit log: the
// approval, and the Audit findings joined per policy and rule (keys
// "<policy>.<rule>", which the API server prefixes with the webhook name),
// at most maxAuditFindings of them per rule.
func (r *Result) AuditAnnotations() map[string]string {
	annotations := map[string]string{}
	if a := r.Approval; a != nil && a.Lifted {
		annotations[ApprovalAuditAnnotation] = fmt.Sprintf("user=%s rules=%s reason=%s", a.User, strings.Join(a.Rules, ","), a.Reason)
	}
	entries, counts := map[string][]string{}, map[string]int{}
	for _, v := range r.Violations {
		if v.Enforcement != v1alpha1.Audit {
			continue
		}
		key := v.Policy + "." + v.Rule
		if counts[key]++; counts[key] <= maxAuditFindings {
			entries[key] = append(entries[key], v.Field+": "+v.Message)
		}
	}
	for key, e := range entries {
		if more := counts[key] - len(e); more > 0 {
			e = append(e, fmt.Sprintf("%d more findings", more))
		}
		annotations[key] = strings.Join(e, "; ")
	}
	return annotations
}

// maxAuditFindings bounds the findings one audit annotation names: one
// request can make a rule find thousands (an item of a list each), and the
// audit log keeps every byte. The rest are counted.
const maxAuditFindings = 10

// Allowed is false when any violation is at Deny level.
func (r *Result) Allowed() bool {
	for _, v := range r.Violations {
		if v.Enforcement == v1alpha1.Deny {
			return false
		}
	}
	return true
}
