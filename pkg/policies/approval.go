package policies

import (
	"fmt"
	"slices"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies/internal/rules"
	"github.com/crdguard/crdguard/pkg/report"
)

// ApprovalAuditAnnotation records an approval in the audit log.
const ApprovalAuditAnnotation = "approval"

// ApprovalPolicy is the Policy of findings about an approval record that
// no GuardPolicy owns: one crdguard did not write. Rule is "record".
const ApprovalPolicy = "approval"

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
	var stored storedApproval
	if req.Object == nil {
		stored = readStoredRecord(req)
	}
	var lifted []string
	for i := range res.Violations {
		v := &res.Violations[i]
		if v.Enforcement != v1alpha1.Deny || v.Policy == SchemaPolicy || !a.namesRule(v.Policy, v.Rule) {
			continue
		}
		p := guarding[slices.IndexFunc(guarding, func(p *policy) bool { return p.Name == v.Policy })]
		id := v.Policy + "/" + v.Rule
		if !IsApprover(p.Spec.Approvers, user) {
			v.Message += fmt.Sprintf(" (not approved: %s may not approve policy %s; %s)", user.Username, p.Name, DescribeApprovers(p.Spec.Approvers))
			continue
		}
		if req.Object == nil {
			if problem := stored.problem(a.Reason, id); problem != "" {
				v.Message += " (not approved: " + problem + ")"
				continue
			}
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

// checkRecordWrite denies writing an approval record crdguard did not
// write: one that does not parse, names a rule no policy guarding the
// object has, lacks the signature of req.ApprovalKey, records someone
// else's approval or a rule its writer may not approve. Each is Deny,
// whatever the rules' enforcement: the record is crdguard's, and a forged
// one stored under a Warn rule would wait there for a DELETE.
func checkRecordWrite(req *Request, guarding []*policy, res *Result) {
	value, written := annotationChanged(req, v1alpha1.LastApprovalAnnotation)
	if !written {
		return
	}
	record, err := ParseApprovalRecord(value)
	if err != nil {
		res.Violations = append(res.Violations, forgedRecord(fmt.Sprintf("it is not a record crdguard wrote: %v", err)))
		return
	}
	named := rulesNamed(guarding, func(policy, rule string) bool { return slices.Contains(record.Rules, policy+"/"+rule) })
	var unknown []string
	for _, id := range record.Rules {
		if !slices.ContainsFunc(named, func(r approvedRule) bool { return r.String() == id }) {
			unknown = append(unknown, id)
		}
	}
	if len(unknown) > 0 {
		res.Violations = append(res.Violations, forgedRecord(fmt.Sprintf("it records an approval of %s, which no policy guarding this object has; crdguard records only rules it judged", strings.Join(unknown, ", "))))
	}
	if req.ApprovalKey != nil && !req.ApprovalKey.verifies(record, req.Object, req.Namespace) {
		res.Violations = append(res.Violations, forgedRecord("it does not carry crdguard's signature for this object; only crdguard's mutating webhook writes it"))
	}
	user := req.UserInfo
	for _, r := range named {
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
			Enforcement: v1alpha1.Deny,
		})
	}
}

// forgedRecord is the finding of a record no GuardPolicy's rule owns.
func forgedRecord(problem string) report.Finding {
	return report.Finding{
		Field:       approvalField(v1alpha1.LastApprovalAnnotation),
		Type:        string(field.ErrorTypeForbidden),
		Message:     fmt.Sprintf("%s: %s", field.ErrorTypeForbidden, problem),
		Policy:      ApprovalPolicy,
		Rule:        "record",
		Enforcement: v1alpha1.Deny,
	}
}

// storedApproval is the approval record on the object a DELETE removes.
type storedApproval struct {
	record *ApprovalRecord
	// unverified says why the record cannot be shown to be crdguard's;
	// "" when it is.
	unverified string
}

// readStoredRecord reads the record of a DELETE's stored object and checks
// its signature.
func readStoredRecord(req *Request) storedApproval {
	value, ok := req.OldObject.GetAnnotations()[v1alpha1.LastApprovalAnnotation]
	if !ok {
		return storedApproval{}
	}
	record, err := ParseApprovalRecord(value)
	if err != nil {
		return storedApproval{}
	}
	s := storedApproval{record: &record}
	switch {
	case req.ApprovalKey == nil:
		s.unverified = fmt.Sprintf("a stored approval counts only with a %s record signed with crdguard's approval key, and this evaluation has no key to check it with (crdguard-webhook --approval-key-file)", v1alpha1.LastApprovalAnnotation) + deleteApprovalChange
	case !req.ApprovalKey.verifies(record, req.OldObject, req.Namespace):
		s.unverified = fmt.Sprintf("the stored object's %s record does not carry crdguard's signature for this object", v1alpha1.LastApprovalAnnotation) + deleteApprovalChange
	}
	return s
}

// problem is why the stored record does not approve rule id for the
// stored approval with reason; "" when it does.
func (s storedApproval) problem(reason, id string) string {
	if s.record == nil || s.record.Reason != reason || !slices.Contains(s.record.Rules, id) {
		return fmt.Sprintf("the stored object's approval has no %s record of crdguard admitting it for %s", v1alpha1.LastApprovalAnnotation, id) + deleteApprovalChange
	}
	return s.unverified
}

// deleteApprovalChange tells users of the release in which an approval
// annotation alone approved a DELETE what changed, and what works now.
var deleteApprovalChange = fmt.Sprintf("; an approval on DELETE now counts only with a record that crdguard's mutating webhook signed (CHANGELOG.md): an approver writes %s in an update, which records it, then deletes", v1alpha1.ApproveAnnotation)

func approvalField(annotation string) string {
	return field.NewPath("metadata", "annotations").Key(annotation).String()
}
