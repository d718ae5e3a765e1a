package policies

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies/internal/rules"
	"github.com/crdguard/crdguard/pkg/report"
)

// ApprovalAuditAnnotation records an approval in the audit log.
const ApprovalAuditAnnotation = "approval"

// An approval is the approver's own act. It counts in the request that
// writes it (CREATE, or an UPDATE that adds or changes it); one carried
// over from the stored object approves nothing. Only approvers of every
// rule it names may write it, and only the approver a record names may
// write that record, so an approval on a stored object was admitted by
// crdguard from an approver. A DELETE carries no new object: it may use the
// approval on the stored object, but only with the record crdguard's
// mutating webhook wrote when it admitted it.

// Approval is an approval this request wrote and crdguard admitted.
type Approval struct {
	// User is the approver: the requesting user.
	User string
	// Rules are what it approves, as "policy/rule": the rules whose
	// denials it lifted, or, when it lifted none, every rule it names.
	Rules  []string
	Reason string
	// Lifted tells whether it lifted a denial of this request. One that
	// lifted none stays on the object, where it can approve a DELETE.
	Lifted bool
}

// ApprovalRecord is the value of v1alpha1.LastApprovalAnnotation.
type ApprovalRecord struct {
	User   string   `json:"user"`
	Rules  []string `json:"rules"`
	Reason string   `json:"reason"`
	Time   string   `json:"time"`
}

// RequestedApproval is a parsed crdguard.dev/approve annotation: what it
// names and why. GuardPolicies and the CRD guard (/validate-crd) read it
// alike.
type RequestedApproval struct {
	// Names are GuardPolicy rules ("rule", or "policy/rule" for one
	// policy's rule only), or the CRD guard's checks.
	Names  []string
	Reason string
}

// ParseApproval reads "<name>[,<name>...]: <reason>". noun is what the
// names are ("rule", "check"), for the messages.
func ParseApproval(value, noun string) (RequestedApproval, error) {
	list, reason, ok := strings.Cut(value, ":")
	reason = strings.TrimSpace(reason)
	if !ok || reason == "" {
		return RequestedApproval{}, fmt.Errorf(`%s must be "<%s>[,<%s>...]: <reason>", found %q`, v1alpha1.ApproveAnnotation, noun, noun, value)
	}
	var a RequestedApproval
	for _, r := range strings.Split(list, ",") {
		if r = strings.TrimSpace(r); r != "" {
			a.Names = append(a.Names, r)
		}
	}
	if len(a.Names) == 0 {
		return RequestedApproval{}, fmt.Errorf("%s names no %s", v1alpha1.ApproveAnnotation, noun)
	}
	a.Reason = reason
	return a, nil
}

// FormatApproval writes a as ParseApproval reads it. Names that are empty,
// hold a "," or ":" or surrounding space, and a reason that is blank or
// has surrounding space, would not read back the same: they are an error.
func FormatApproval(a RequestedApproval) (string, error) {
	if len(a.Names) == 0 {
		return "", fmt.Errorf("%s names nothing", v1alpha1.ApproveAnnotation)
	}
	for _, n := range a.Names {
		if n == "" || n != strings.TrimSpace(n) || strings.ContainsAny(n, ",:") {
			return "", fmt.Errorf("%s cannot name %q: a name is not blank and holds no \",\", \":\" or surrounding space", v1alpha1.ApproveAnnotation, n)
		}
	}
	if a.Reason == "" || a.Reason != strings.TrimSpace(a.Reason) {
		return "", fmt.Errorf("%s needs a reason without surrounding space, found %q", v1alpha1.ApproveAnnotation, a.Reason)
	}
	return strings.Join(a.Names, ",") + ": " + a.Reason, nil
}

// namesRule tells whether the approval names a policy's rule.
func (a RequestedApproval) namesRule(policy, rule string) bool {
	return slices.Contains(a.Names, rule) || slices.Contains(a.Names, policy+"/"+rule)
}

// IsApprover tells whether user is one of approvers: a listed user, a
// member of a listed group, or a listed service account
// ("namespace/name"). Nil approvers have no one.
func IsApprover(approvers *v1alpha1.Approvers, user authenticationv1.UserInfo) bool {
	if approvers == nil {
		return false
	}
	if slices.Contains(approvers.Users, user.Username) {
		return true
	}
	for _, g := range user.Groups {
		if slices.Contains(approvers.Groups, g) {
			return true
		}
	}
	if ns, name, err := serviceaccount.SplitUsername(user.Username); err == nil {
		return slices.Contains(approvers.ServiceAccounts, ns+"/"+name)
	}
	return false
}

// ValidateServiceAccountApprovers checks that each service account approver
// is "namespace/name": any other entry would never match a user, and
// approve nothing without a word.
func ValidateServiceAccountApprovers(serviceAccounts []string, path *field.Path) field.ErrorList {
	return rules.ValidateServiceAccountApprovers(serviceAccounts, path)
}

// AnnotationWritten tells whether a request writes an annotation: the new
// object's annotations have it, and the old object's (nil for a CREATE)
// had no such value. Only what a request writes can be its user's act.
func AnnotationWritten(oldAnnotations, newAnnotations map[string]string, annotation string) (string, bool) {
	value, ok := newAnnotations[annotation]
	if !ok {
		return "", false
	}
	if old, had := oldAnnotations[annotation]; had && old == value {
		return value, false
	}
	return value, true
}

// DescribeApprovers names who may approve, for the message of a denial;
// compiled policies print it as the engine does.
func DescribeApprovers(p *v1alpha1.Approvers) string {
	if p == nil {
		return "this policy has no approvers"
	}
	var parts []string
	for _, set := range []struct {
		what  string
		names []string
	}{{"users", p.Users}, {"groups", p.Groups}, {"service accounts", p.ServiceAccounts}} {
		if len(set.names) > 0 {
			parts = append(parts, set.what+" "+strings.Join(set.names, ", "))
		}
	}
	if len(parts) == 0 {
		return "this policy has no approvers"
	}
	return "approvers: " + strings.Join(parts, "; ")
}

// approvedRule is a rule of a policy guarding the object.
type approvedRule struct {
	policy *policy
	rule   *rules.Compiled
}

func (r approvedRule) String() string { return r.policy.Name + "/" + r.rule.Name }

// rulesNamed are the rules of the guarding policies that names selects.
func rulesNamed(guarding []*policy, names func(policy, rule string) bool) []approvedRule {
	var out []approvedRule
	for _, p := range guarding {
		for i := range p.Rules {
			if r := &p.Rules[i]; names(p.Name, r.Name) {
				out = append(out, approvedRule{p, r})
			}
		}
	}
	return out
}

// annotationChanged tells whether a CREATE or UPDATE writes annotation.
func annotationChanged(req *Request, annotation string) (string, bool) {
	var old map[string]string
	if req.OldObject != nil {
		old = req.OldObject.GetAnnotations()
	}
	return AnnotationWritten(old, req.Object.GetAnnotations(), annotation)
}

// carriesApproval tells whether applyApproval judges an approval in req,
// and so needs the policies of the object whatever their operations: one
// this request writes (crdguard.dev/approve or its record), or on DELETE
// the approval the stored object holds.
func carriesApproval(req *Request) bool {
	if req.Object == nil {
		_, ok := req.OldObject.GetAnnotations()[v1alpha1.ApproveAnnotation]
		return ok
	}
	_, approval := annotationChanged(req, v1alpha1.ApproveAnnotation)
	_, record := annotationChanged(req, v1alpha1.LastApprovalAnnotation)
	return approval || record
}

// applyApproval lifts the Deny findings an approval names, and denies
// writing an approval or its record by anyone but an approver.
func applyApproval(req *Request, guarding []*policy, res *Result) {
	if req.Object != nil {
		checkRecordWrite(req, guarding, res)
	}
	value, ok := req.subject().GetAnnotations()[v1alpha1.ApproveAnnotation]
	if !ok {
		return
	}
	if req.Object != nil {
		if _, written := annotationChanged(req, v1alpha1.ApproveAnnotation); !written {
			res.Warnings = append(res.Warnings, fmt.Sprintf("ignored: %s is unchanged from the stored object; an approval counts only in the request that writes it", v1alpha1.ApproveAnnotation))
			return
		}
	}
	a, err := ParseApproval(value, "rule")
	if err != nil {
		res.Warnings = append(res.Warnings, "ignored: "+err.Error())
		return
	}
	named := rulesNamed(guarding, a.namesRule)
	for _, r := range a.Names {
		if !slices.ContainsFunc(named, func(n approvedRule) bool { return r == n.rule.Name || r == n.String() }) {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s names rule %q, which no matching policy has", v1alpha1.ApproveAnnotation, r))
		}
	}

	user := req.UserInfo
	var record *ApprovalRecord
	if req.Object == nil {
		record = storedRecord(req.OldObject)
	}
	var lifted []string
	for i := range res.Violations {
		v := &res.Violations[i]
		if v.Enforcement != v1alpha1.Deny || v.Policy == SchemaPolicy || !a.namesRule(v.Policy, v.Rule) {
			continue
		}
		p := guarding[slices.IndexFunc(guarding, func(p *policy) bool { return p.Name == v.Policy })]
		id := v.Policy + "/" + v.Rule
		switch {
		case !IsApprover(p.Spec.Approvers, user):
			v.Message += fmt.Sprintf(" (not approved: %s may not approve policy %s; %s)", user.Username, p.Name, DescribeApprovers(p.Spec.Approvers))
			continue
		case req.Object == nil && (record == nil || record.Reason != a.Reason || !slices.Contains(record.Rules, id)):
			v.Message += fmt.Sprintf(" (not approved: the stored object's approval has no %s record of crdguard admitting it for %s)", v1alpha1.LastApprovalAnnotation, id)
			continue
		}
		v.Enforcement = v1alpha1.Audit
		if !slices.Contains(lifted, id) {
			lifted = append(lifted, id)
		}
	}
	if len(lifted) > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("approved by %s: %s: %s", user.Username, strings.Join(lifted, ", "), a.Reason))
		res.Approval = &Approval{User: user.Username, Rules: lifted, Reason: a.Reason, Lifted: true}
	}
	if req.Object == nil {
		return
	}

	// Writing an approval is approving: refused to anyone who may not
	// approve every rule it names.
	refused := false
	for _, r := range named {
		if IsApprover(r.policy.Spec.Approvers, user) {
			continue
		}
		refused = true
		res.Violations = append(res.Violations, report.Finding{
			Field:       approvalField(v1alpha1.ApproveAnnotation),
			Type:        string(field.ErrorTypeForbidden),
			Message:     fmt.Sprintf("%s: %s may not approve %s; %s", field.ErrorTypeForbidden, user.Username, r, DescribeApprovers(r.policy.Spec.Approvers)),
			Policy:      r.policy.Name,
			Rule:        r.rule.Name,
			Enforcement: r.rule.Enforcement,
		})
	}
	if refused || len(lifted) > 0 || len(named) == 0 {
		return
	}
	rules := make([]string, len(named))
	for i, r := range named {
		rules[i] = r.String()
	}
	res.Approval = &Approval{User: user.Username, Rules: rules, Reason: a.Reason}
	res.Warnings = append(res.Warnings, fmt.Sprintf("%s lifted nothing in this request; it stays on the object, where it can approve a DELETE (%s); remove it if it is not meant for one", v1alpha1.ApproveAnnotation, strings.Join(rules, ", ")))
}

// checkRecordWrite denies writing an approval record by anyone but the
// approver it names, for rules that approver may approve: a forged record
// would approve a DELETE. A record that does not parse approves nothing.
func checkRecordWrite(req *Request, guarding []*policy, res *Result) {
	value, written := annotationChanged(req, v1alpha1.LastApprovalAnnotation)
	if !written {
		return
	}
	var record ApprovalRecord
	if err := json.Unmarshal([]byte(value), &record); err != nil {
		res.Warnings = append(res.Warnings, fmt.Sprintf("ignored: %s is not a record crdguard wrote: %v", v1alpha1.LastApprovalAnnotation, err))
		return
	}
	user := req.UserInfo
	for _, r := range rulesNamed(guarding, func(policy, rule string) bool { return slices.Contains(record.Rules, policy+"/"+rule) }) {
		var problem string
		switch {
		case record.User != user.Username:
			problem = fmt.Sprintf("it records an approval of %s by %s, and only crdguard writes it, in %s's own request", r, record.User, record.User)
		case !IsApprover(r.policy.Spec.Approvers, user):
			problem = fmt.Sprintf("%s may not approve %s; %s", user.Username, r, DescribeApprovers(r.policy.Spec.Approvers))
		default:
			continue
		}
		res.Violations = append(res.Violations, report.Finding{
			Field:       approvalField(v1alpha1.LastApprovalAnnotation),
			Type:        string(field.ErrorTypeForbidden),
			Message:     fmt.Sprintf("%s: %s", field.ErrorTypeForbidden, problem),
			Policy:      r.policy.Name,
			Rule:        r.rule.Name,
			Enforcement: r.rule.Enforcement,
		})
	}
}

// storedRecord is the approval record on a stored object, nil when it has
// none that parses.
func storedRecord(obj *unstructured.Unstructured) *ApprovalRecord {
	value, ok := obj.GetAnnotations()[v1alpha1.LastApprovalAnnotation]
	if !ok {
		return nil
	}
	var record ApprovalRecord
	if json.Unmarshal([]byte(value), &record) != nil {
		return nil
	}
	return &record
}

func approvalField(annotation string) string {
	return field.NewPath("metadata", "annotations").Key(annotation).String()
}
