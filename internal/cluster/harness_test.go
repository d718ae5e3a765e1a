package cluster

import (
	"context"
	"sync"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/crdguard/crdguard/internal/mysqlexample"
	"github.com/crdguard/crdguard/internal/webhook"
)

var mysqlEngine = sync.OnceValues(func() (*webhook.EngineHolder, error) {
	engine, _, err := EngineFromFiles(
		context.Background(),
		[]string{mysqlexample.Path("crd.yaml")},
		[]string{mysqlexample.Path("policy.yaml")},
		ModeWebhook,
	)
	if err != nil {
		return nil, err
	}
	return webhook.NewEngineHolder(engine), nil
})

// engines returns the holder of the MySQL example's engine.
func engines(t testing.TB) *webhook.EngineHolder {
	t.Helper()
	h, err := mysqlEngine()
	if err != nil {
		t.Fatalf("loading the example: %v", err)
	}
	return h
}

var bob = authenticationv1.UserInfo{Username: "bob", Groups: []string{"developers", "system:authenticated"}}

// request is an AdmissionRequest for a MySQLCluster, as the API server
// builds it: what an engine from the cluster answers is what /validate
// answers with it.
func request(op admissionv1.Operation, user authenticationv1.UserInfo, object []byte) admission.Request {
	gvk := metav1.GroupVersionKind{Group: "db.example.io", Version: "v1", Kind: "MySQLCluster"}
	meta := &unstructured.Unstructured{}
	_ = meta.UnmarshalJSON(object)
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID:         "uid-1",
		Kind:        gvk,
		Resource:    metav1.GroupVersionResource{Group: "db.example.io", Version: "v1", Resource: "mysqlclusters"},
		RequestKind: &gvk,
		Name:        meta.GetName(),
		Namespace:   meta.GetNamespace(),
		Operation:   op,
		UserInfo:    user,
		Object:      runtime.RawExtension{Raw: object},
	}}
}
