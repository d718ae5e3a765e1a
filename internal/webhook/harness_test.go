package webhook

import (
	"context"
	"sync"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/crdguard/crdguard/internal/mysqlexample"
	"github.com/crdguard/crdguard/pkg/policies"
)

// mysqlEngine is the example's engine with every rule, as
// internal/cluster's EngineFromFiles builds it for --enforcement=webhook.
var mysqlEngine = sync.OnceValues(func() (*EngineHolder, error) {
	engine, _, err := policies.Files{
		CRDs:     []string{mysqlexample.Path("crd.yaml")},
		Policies: []string{mysqlexample.Path("policy.yaml")},
	}.Engine(context.Background())
	if err != nil {
		return nil, err
	}
	return NewEngineHolder(engine), nil
})

// engines returns the holder of the MySQL example's engine.
func engines(t testing.TB) *EngineHolder {
	t.Helper()
	h, err := mysqlEngine()
	if err != nil {
		t.Fatalf("loading the example: %v", err)
	}
	return h
}

// edit returns the object with fn applied.
func edit(t *testing.T, raw []byte, fn func(*unstructured.Unstructured)) []byte {
	t.Helper()
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(raw); err != nil {
		t.Fatal(err)
	}
	fn(obj)
	out, err := obj.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var (
	alice = authenticationv1.UserInfo{Username: "alice", Groups: []string{"dba", "system:authenticated"}}
	bob   = authenticationv1.UserInfo{Username: "bob", Groups: []string{"developers", "system:authenticated"}}
)

// request is an AdmissionRequest for a MySQLCluster, as the API server
// builds it.
func request(op admissionv1.Operation, user authenticationv1.UserInfo, object, oldObject []byte) admission.Request {
	gvk := metav1.GroupVersionKind{Group: "db.example.io", Version: "v1", Kind: "MySQLCluster"}
	subject := object
	if subject == nil {
		subject = oldObject
	}
	meta := &unstructured.Unstructured{}
	_ = meta.UnmarshalJSON(subject)
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID:         types.UID("uid-1"),
		Kind:        gvk,
		Resource:    metav1.GroupVersionResource{Group: "db.example.io", Version: "v1", Resource: "mysqlclusters"},
		RequestKind: &gvk,
		Name:        meta.GetName(),
		Namespace:   meta.GetNamespace(),
		Operation:   op,
		UserInfo:    user,
		Object:      runtime.RawExtension{Raw: object},
		OldObject:   runtime.RawExtension{Raw: oldObject},
	}}
}
