package policies

import (
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdguard/crdguard/internal/goldencase"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

func TestNewApprovalKey(t *testing.T) {
	if _, err := NewApprovalKey([]byte("  short\n")); err == nil || err.Error() != "an approval key needs at least 32 bytes, found 5" {
		t.Errorf("a 5-byte key: %v; want the bound named", err)
	}
	if _, err := NewApprovalKey([]byte(strings.Repeat("k", 32) + "\n")); err != nil {
		t.Errorf("a 32-byte key with a final newline: %v", err)
	}
}

// TestApprovalRecordSignature checks what a signature binds: the record and
// the object's group, kind, namespace and name, with one key.
func TestApprovalRecordSignature(t *testing.T) {
	obj := func(apiVersion, kind, name string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion(apiVersion)
		u.SetKind(kind)
		u.SetName(name)
		return u
	}
	a := &Approval{User: "alice", Rules: []string{"p/r"}, Reason: "why"}
	req := &Request{Object: obj("db.example.io/v1", "MySQLCluster", "prod"), Namespace: "shop", ApprovalKey: testApprovalKey}
	value, err := FormatApprovalRecord(req, a, time.Date(2024, 5, 2, 9, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	record, err := ParseApprovalRecord(value)
	if err != nil || record.Sig == "" {
		t.Fatalf("ParseApprovalRecord(%s) = %+v, %v; want a signed record", value, record, err)
	}
	otherKey, err := NewApprovalKey([]byte(strings.Repeat("o", 32)))
	if err != nil {
		t.Fatal(err)
	}
	changed := func(f func(*ApprovalRecord)) ApprovalRecord {
		r := record
		r.Rules = append([]string(nil), record.Rules...)
		f(&r)
		return r
	}
	tests := []struct {
		name      string
		key       *ApprovalKey
		record    ApprovalRecord
		obj       *unstructured.Unstructured
		namespace string
		want      bool
	}{
		{"as signed", testApprovalKey, record, req.Object, "shop", true},
		{"another served version", testApprovalKey, record, obj("db.example.io/v2", "MySQLCluster", "prod"), "shop", true},
		{"another key", otherKey, record, req.Object, "shop", false},
		{"another name", testApprovalKey, record, obj("db.example.io/v1", "MySQLCluster", "prod-2"), "shop", false},
		{"another namespace", testApprovalKey, record, req.Object, "dev", false},
		{"another kind", testApprovalKey, record, obj("db.example.io/v1", "PostgresCluster", "prod"), "shop", false},
		{"another group", testApprovalKey, record, obj("db.other.io/v1", "MySQLCluster", "prod"), "shop", false},
		{"another user", testApprovalKey, changed(func(r *ApprovalRecord) { r.User = "mallory" }), req.Object, "shop", false},
		{"another rule", testApprovalKey, changed(func(r *ApprovalRecord) { r.Rules[0] = "p/other" }), req.Object, "shop", false},
		{"another reason", testApprovalKey, changed(func(r *ApprovalRecord) { r.Reason = "because" }), req.Object, "shop", false},
		{"another time", testApprovalKey, changed(func(r *ApprovalRecord) { r.Time = "2030-01-01T00:00:00Z" }), req.Object, "shop", false},
		{"no signature", testApprovalKey, changed(func(r *ApprovalRecord) { r.Sig = "" }), req.Object, "shop", false},
		{"a signature that is not base64", testApprovalKey, changed(func(r *ApprovalRecord) { r.Sig = "!!" }), req.Object, "shop", false},
	}
	for _, tt := range tests {
		if got := tt.key.verifies(tt.record, tt.obj, tt.namespace); got != tt.want {
			t.Errorf("%s: verifies = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestDeleteApprovalWithoutKey checks that an evaluation without the key
// (the offline CLI) refuses to count a stored approval, whatever its
// record, and says so, where the key would count it.
func TestDeleteApprovalWithoutKey(t *testing.T) {
	c := goldencase.Read(t, "testdata/deletion/approved")
	gps, err := PoliciesFromDocuments(t.Context(), c.PolicyDocs, c.Schemas)
	if err != nil {
		t.Fatal(err)
	}
	engine, err := NewEngine(c.Schemas, gps...)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		key     *ApprovalKey
		allowed bool
		message string
	}{
		{testApprovalKey, true, "Forbidden: MySQL clusters hold data; a dba approves their deletion"},
		{nil, false, "Forbidden: MySQL clusters hold data; a dba approves their deletion (not approved: a stored approval counts only with a crdguard.dev/last-approval record signed with crdguard's approval key, and this evaluation has no key to check it with (crdguard-webhook --approval-key-file); an approval on DELETE now counts only with a record that crdguard's mutating webhook signed (CHANGELOG.md): an approver writes crdguard.dev/approve in an update, which records it, then deletes)"},
	} {
		res, err := engine.Evaluate(t.Context(), Request{Operation: v1alpha1.Delete, OldObject: c.OldObject, Namespace: c.Namespace,
			UserInfo: authenticationv1.UserInfo{Username: "carol", Groups: []string{"dba"}}, ApprovalKey: tt.key})
		if err != nil {
			t.Fatal(err)
		}
		if res.Allowed() != tt.allowed || len(res.Violations) != 1 || res.Violations[0].Message != tt.message {
			t.Errorf("key %v: allowed %v, violations %+v; want allowed %v with %q", tt.key != nil, res.Allowed(), res.Violations, tt.allowed, tt.message)
		}
	}
}
