package policies

import (
	"slices"
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
		a, err := ParseApproval(tt.in, "rule")
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if gotErr != tt.err || (err == nil && (a.Reason != tt.reason || !slices.Equal(a.Names, tt.rules))) {
			t.Errorf("ParseApproval(%q) = %+v, %q; want rules %v reason %q err %q", tt.in, a, gotErr, tt.rules, tt.reason, tt.err)
		}
	}
}

func TestFormatApproval(t *testing.T) {
	tests := []struct {
		names     []string
		reason    string
		want, err string
	}{
		{names: []string{"ratio", "p/requests"}, reason: "why: because", want: "ratio,p/requests: why: because"},
		{names: nil, reason: "r", err: "crdguard.dev/approve names nothing"},
		{names: []string{"a,b"}, reason: "r", err: `crdguard.dev/approve cannot name "a,b": a name is not blank and holds no ",", ":" or surrounding space`},
		{names: []string{"a:b"}, reason: "r", err: `crdguard.dev/approve cannot name "a:b": a name is not blank and holds no ",", ":" or surrounding space`},
		{names: []string{" a"}, reason: "r", err: `crdguard.dev/approve cannot name " a": a name is not blank and holds no ",", ":" or surrounding space`},
		{names: []string{"a"}, reason: " ", err: `crdguard.dev/approve needs a reason without surrounding space, found " "`},
	}
	for _, tt := range tests {
		got, err := FormatApproval(RequestedApproval{Names: tt.names, Reason: tt.reason})
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if got != tt.want || gotErr != tt.err {
			t.Errorf("FormatApproval(%q, %q) = %q, %q; want %q, %q", tt.names, tt.reason, got, gotErr, tt.want, tt.err)
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
		{authenticationv1.UserInfo{Username: "system:serviceaccount:ops:deployer:x"}, false, "not a service account's username"},
		{authenticationv1.UserInfo{Username: "mallory", Groups: []string{"dbas"}}, false, "no match"},
	}
	for _, tt := range tests {
		if got := IsApprover(approvers, tt.user); got != tt.want {
			t.Errorf("%s: IsApprover(%+v) = %v, want %v", tt.reason, tt.user, got, tt.want)
		}
	}
	if IsApprover(nil, authenticationv1.UserInfo{Username: "alice"}) {
		t.Error("a policy without approvers has no approvers")
	}
}

func TestAnnotationWritten(t *testing.T) {
	const key = "crdguard.dev/approve"
	tests := []struct {
		name     string
		old, new map[string]string
		written  bool
	}{
		{"added", map[string]string{}, map[string]string{key: "a: b"}, true},
		{"created", nil, map[string]string{key: "a: b"}, true},
		{"changed", map[string]string{key: "a: b"}, map[string]string{key: "a: c"}, true},
		{"unchanged", map[string]string{key: "a: b"}, map[string]string{key: "a: b"}, false},
		{"removed", map[string]string{key: "a: b"}, map[string]string{}, false},
	}
	for _, tt := range tests {
		if _, got := AnnotationWritten(tt.old, tt.new, key); got != tt.written {
			t.Errorf("%s: written = %v, want %v", tt.name, got, tt.written)
		}
	}
}
