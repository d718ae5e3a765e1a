package policies

import (
	"fmt"
	"slices"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// ApprovalAuditAnnotation records an approval in the audit log.
const ApprovalAuditAnnotation = "approval"

// approval is a parsed crdguard.dev/approve annotation.
type approval struct {
	rules  []string
	reason string
}

// parseApproval reads "<rule>[,<rule>...]: <reason>". A rule may be written
// "policy/rule" to name one policy's rule only.
func parseApproval(value string) (approval, error) {
	list, reason, ok := strings.Cut(value, ":")
	reason = strings.TrimSpace(reason)
	if !ok || reason == "" {
		return approval{}, fmt.Errorf(`%s must be "<rule>[,<rule>...]: <reason>", found %q`, v1alpha1.ApproveAnnotation, value)
	}
	var a approval
	for _, r := range strings.Split(list, ",") {
		if r = strings.TrimSpace(r); r != "" {
			a.rules = append(a.rules, r)
		}
	}
	if len(a.rules) == 0 {
		return approval{}, fmt.Errorf("%s names no rule", v1alpha1.ApproveAnnotation)
	}
	a.reason = reason
	return a, nil
}

// names tells whether the approval names a policy's rule.
func (a approval) names(policy, rule string) bool {
	return slices.Contains(a.rules, rule) || slices.Contains(a.rules, policy+"/"+rule)
}

// isApprover tells whether user may approve exceptions to p.
func isApprover(p *v1alpha1.Approvers, user authenticationv1.UserInfo) bool {
	if p == nil {
		return false
	}
	if slices.Contains(p.Users, user.Username) {
		return true
	}
	for _, g := range user.Groups {
		if slices.Contains(p.Groups, g) {
			return true
		}
	}
	if ns, name, ok := strings.Cut(strings.TrimPrefix(user.Username, "system:serviceaccount:"), ":"); ok && strings.HasPrefix(user.Username, "system:serviceaccount:") {
		return slices.Contains(p.ServiceAccounts, ns+"/"+name)
	}
	return false
}

// describeApprovers names who may approve, for the message of a denial.
func describeApprovers(p *v1alpha1.Approvers) string {
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
