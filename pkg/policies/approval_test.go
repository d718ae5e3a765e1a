package policies

import (
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

func TestApprovals(t *testing.T) { runCases(t, "approvals") }

func TestParseApproval(t *testing.T) {
	tests := []struct {
		in, err string
		rules   []string
		reason  string
	}{
		{in: "ratio: load test", rules: []string{"ratio"}, reason: "load test"},
		{in: " ratio , p/requests ,: why: because", rules: []string{"ratio", "p/requests"}, reason: "why: because"},
		{in: "ratio", err: `crdguard.dev/approve must be "<rule>[,<rule>...]: <reason>", found "ratio"`},
		{in: "ratio:  ", err: `crdguard.dev/approve must be "<rule>[,<rule>...]: <reason>", found "ratio:  "`},
		{in: " , : reason", err: "crdguard.dev/approve names no rule"},
	}
	for _, tt := range tests {
		a, err := parseApproval(tt.in)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if gotErr != tt.err || (err == nil && (a.reason != tt.reason || len(a.rules) != len(tt.rules))) {
			t.Errorf("parseApproval(%q) = %+v, %q; want rules %v reason %q err %q", tt.in, a, gotErr, tt.rules, tt.reason, tt.err)
		}
	}
}

func TestIsApprover(t *testing.T) {
	approvers := &v1alpha1.Approvers{Users: []string{"alice"}, Groups: []string{"dba"}, ServiceAccounts: []string{"ops/deployer"}}
	tests := []struct {
		user   authenticationv1.UserInfo
		want   bool
		reason string
	}{
		{authenticationv1.UserInfo{Username: "alice"}, true, "listed user"},
		{authenticationv1.UserInfo{Username: "bob", Groups: []string{"dba"}}, true, "member of a listed group"},
		{authenticationv1.UserInfo{Username: "system:serviceaccount:ops:deployer"}, true, "listed service account"},
		{authenticationv1.UserInfo{Username: "system:serviceaccount:dev:deployer"}, false, "same name, other namespace"},
		{authenticationv1.UserInfo{Username: "ops/deployer"}, false, "a user named like a service account entry"},
		{authenticationv1.UserInfo{Username: "mallory", Groups: []string{"dbas"}}, false, "no match"},
	}
	for _, tt := range tests {
		if got := isApprover(approvers, tt.user); got != tt.want {
			t.Errorf("%s: isApprover(%+v) = %v, want %v", tt.reason, tt.user, got, tt.want)
		}
	}
	if isApprover(nil, authenticationv1.UserInfo{Username: "alice"}) {
		t.Error("a policy without approvers has no approvers")
	}
}
