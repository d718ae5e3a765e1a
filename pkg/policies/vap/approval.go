package vap

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
	"github.com/crdguard/crdguard/pkg/policies/internal/rules"
)

// This file writes the approval protocol (pkg/policies' package comment)
// in CEL, so that approvable Deny rules compile. An approval counts only
// in the request that writes it, and only by an approver; that is all a
// ValidatingAdmissionPolicy needs to tell, from request.userInfo and the
// old and new annotations. It comes in one of two forms:
//
//   - crdguard.dev/approve itself, as the user wrote it, where no
//     mutating webhook stripped it (the compiled policies installed
//     without crdguard's webhook);
//   - the crdguard.dev/last-approval record the mutate path writes when it
//     strips the approval it lifted a denial with: it counts for the user
//     it names, as the webhook's /validate restores it.
//
// CEL cannot check the record's signature (an HMAC with a key only the
// webhook holds), and a compiled policy does not try: it honours a record
// only in the request that writes it, for the requesting user, who must be
// an approver of the rule — no more than writing crdguard.dev/approve
// grants that user. A stored record decides only a DELETE, and Deny rules
// that run on DELETE stay with the webhook, which checks the signature.
//
// Writing either is approving: a non-approver's approval, or a record of
// someone else's, is denied at its annotation.

// approvalCEL writes one policy's approval checks.
type approvalCEL struct {
	policy    string
	approvers *v1alpha1.Approvers
}

// Both annotation maps, empty when absent (oldObject is null on CREATE).
const (
	celNewAnnotations = `object.metadata.?annotations.orValue({})`
	celOldAnnotations = `(oldObject == null ? {} : oldObject.metadata.?annotations.orValue({}))`
)

// jsonString matches the body of a JSON string: a quote inside it is
// always escaped, so a literal `"x"` outside a string cannot be faked by
// what a string holds.
const jsonString = `(?:[^"\\]|\\.)*`

// recordShape matches a record as the mutate path writes it
// (json.Marshal of policies.ApprovalRecord, fields in order), with rules,
// a reason and its signature when the webhook has a key: CEL has no JSON
// parser, so a compiled policy reads no other record, where the webhook
// reads any JSON.
const recordShape = `^\{"user":"` + jsonString + `","rules":\["` + jsonString + `"(?:,"` + jsonString + `")*\],"reason":"(?:[^"\\]|\\.)+","time":"` + jsonString + `"(?:,"sig":"[A-Za-z0-9_-]+")?\}$`

// celWritten is the annotation's value when this request writes it (adds
// it, or changes it), else "": an approval carried over from the stored
// object approves nothing. An empty value approves nothing either.
func celWritten(key string) string {
	return fmt.Sprintf(`cel.bind(an, %[1]s, cel.bind(ao, %[2]s, %[3]s in an && !(%[3]s in ao && ao[%[3]s] == an[%[3]s]) ? an[%[3]s] : ""))`,
		celNewAnnotations, celOldAnnotations, celString(key))
}

// approver tells whether the requesting user is one of the policy's
// approvers: a listed user, a member of a listed group, or a listed
// service account, whose username is system:serviceaccount:<ns>:<name>.
func (a approvalCEL) approver() string {
	if !rules.HasApprovers(a.approvers) {
		return "false"
	}
	users := slices.Clone(a.approvers.Users)
	for _, sa := range a.approvers.ServiceAccounts {
		if ns, name, ok := strings.Cut(sa, "/"); ok {
			users = append(users, serviceaccount.MakeUsername(ns, name))
		}
	}
	var any []string
	if len(users) > 0 {
		any = append(any, "request.userInfo.username in "+celStrings(users))
	}
	if len(a.approvers.Groups) > 0 {
		any = append(any, "request.userInfo.?groups.orValue([]).exists(g, g in "+celStrings(a.approvers.Groups)+")")
	}
	if len(any) == 0 {
		return "false"
	}
	return "(" + strings.Join(any, " || ") + ")"
}

// namesRule tells whether the approval written in this request names the
// rule, by its name or as "policy/rule".
func (a approvalCEL) namesRule(rule string) string {
	return fmt.Sprintf(`variables.%s.exists(n, n in %s)`, namesVariable, celStrings([]string{rule, a.policy + "/" + rule}))
}

// recordNames tells whether the record value rec, of the mutate path's
// shape, names the rule among its rules.
func (a approvalCEL) recordNames(rec, rule string) string {
	named := `^\{"user":"` + jsonString + `","rules":\[(?:"` + jsonString + `",)*"` + regexp.QuoteMeta(a.policy+"/"+rule) + `"[,\]]`
	return fmt.Sprintf("%s.matches(%s)", rec, celString(named))
}

// recordOfUser tells whether the record value rec names the requesting
// user as its approver.
func recordOfUser(rec string) string {
	return fmt.Sprintf(`%s.startsWith('{"user":' + strings.quote(request.userInfo.username) + ',"rules":[')`, rec)
}

// The variables the approval checks share: each is evaluated once per
// request, however many rules read it.
const (
	byApproverVariable = "approval_by_approver"
	namesVariable      = "approval_names"
	recordVariable     = "approval_record"
)

// shared are the variables every approval check of the policy reads.
func (a approvalCEL) shared() []admissionregistrationv1.Variable {
	return []admissionregistrationv1.Variable{
		{Name: byApproverVariable, Expression: a.approver()},
		// The rules the approval written in this request names:
		// "<rule>[,<rule>...]: <reason>", with a reason that is not
		// blank, else it approves nothing.
		{Name: namesVariable, Expression: fmt.Sprintf(`cel.bind(av, %s, av.indexOf(":") >= 0 && av.substring(av.indexOf(":") + 1).trim() != "" ? av.substring(0, av.indexOf(":")).split(",").map(n, n.trim()) : [])`,
			celWritten(v1alpha1.ApproveAnnotation))},
		// The record written in this request, when it has the shape the
		// mutate path writes; any other approves nothing.
		{Name: recordVariable, Expression: fmt.Sprintf(`cel.bind(rec, %s, rec.matches(%s) ? rec : "")`, celWritten(v1alpha1.LastApprovalAnnotation), celString(recordShape))},
	}
}

// liftVariable is the variable that tells whether this request approves
// the rule's Deny findings: by an approval it writes, or by the record
// the mutate path wrote for this user in place of one, when no approval
// is pending.
func (a approvalCEL) liftVariable(rule string) admissionregistrationv1.Variable {
	rec := "variables." + recordVariable
	return admissionregistrationv1.Variable{
		Name: celIdentifier(rule) + "_approved",
		Expression: fmt.Sprintf(`variables.%s && (%s || !(%s in %s) && %s && %s)`,
			byApproverVariable, a.namesRule(rule), celString(v1alpha1.ApproveAnnotation), celNewAnnotations,
			a.recordNames(rec, rule), recordOfUser(rec)),
	}
}

// notApprovedVariable is what the engine adds to each Deny finding of the
// rule when an approval names it but cannot lift it, its writer being
// no approver; "" otherwise. The rule's checks share it.
func (a approvalCEL) notApprovedVariable(rule string) admissionregistrationv1.Variable {
	return admissionregistrationv1.Variable{
		Name: celIdentifier(rule) + "_not_approved",
		Expression: fmt.Sprintf(`(!variables.%s && %s ? %s + request.userInfo.username + %s : "")`, byApproverVariable, a.namesRule(rule),
			celString(" (not approved: "), celString(fmt.Sprintf(" may not approve policy %s; %s)", a.policy, policies.DescribeApprovers(a.approvers)))),
	}
}

// nothingWritten is a test that the request writes neither an approval
// nor a record (a DELETE writes nothing), for the gate: it implies that
// the write check passes, costs two lookups, and cannot fail.
const nothingWritten = `object == null || !has(object.metadata.annotations) || !("` + v1alpha1.ApproveAnnotation + `" in object.metadata.annotations) && !("` + v1alpha1.LastApprovalAnnotation + `" in object.metadata.annotations)`

// writeFindings are the findings of writing an approval or a record of
// the rule: Forbidden, at the annotation, to anyone but an approver, and
// a record to anyone but the approver it names.
func (a approvalCEL) writeFindings(rule string) string {
	id := a.policy + "/" + rule
	byApprover := "variables." + byApproverVariable
	mayNot := fmt.Sprintf(`"Forbidden: " + request.userInfo.username + %s`, celString(fmt.Sprintf(" may not approve %s; %s", id, policies.DescribeApprovers(a.approvers))))
	approve := fmt.Sprintf(`(!%s && %s ? [%s] : [])`, byApprover, a.namesRule(rule),
		celFinding(annotationPath(v1alpha1.ApproveAnnotation), mayNot))
	// The record's user as JSON wrote it, between `{"user":"` and the
	// first `","rules":[`, which no JSON string holds unescaped.
	rec := "variables." + recordVariable
	recordUser := fmt.Sprintf(`%[1]s.substring(9, %[1]s.indexOf('","rules":['))`, rec)
	forged := fmt.Sprintf(`"Forbidden: it records an approval of %s by " + %s + ", and only crdguard writes it, in " + %s + "'s own request"`, id, recordUser, recordUser)
	record := fmt.Sprintf(`(!(%s) ? [] : !(%s) ? [%s] : !%s ? [%s] : [])`,
		a.recordNames(rec, rule), recordOfUser(rec),
		celFinding(annotationPath(v1alpha1.LastApprovalAnnotation), forged), byApprover,
		celFinding(annotationPath(v1alpha1.LastApprovalAnnotation), mayNot))
	// On DELETE (a cel rule runs then too) there is no new object and
	// nothing written.
	return fmt.Sprintf("(object == null ? [] : %s + %s)", approve, record)
}

// annotationPath is the field path of an annotation, as the engine
// reports a finding about it.
func annotationPath(key string) celPath {
	return celPath{}.child("metadata").child("annotations").key(key)
}

// approvalSummary is the static message of a rule's approval check.
func approvalSummary(policy, rule string) string {
	at := field.NewPath("metadata", "annotations").Key(v1alpha1.ApproveAnnotation)
	return fmt.Sprintf("%s: Forbidden: only an approver may approve %s/%s, and only crdguard writes its %s record, for that approver",
		at, policy, rule, v1alpha1.LastApprovalAnnotation)
}
