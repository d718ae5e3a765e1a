package webhook

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crdguard/crdguard/internal/mysqlexample"
	"github.com/crdguard/crdguard/pkg/policies"
)

func TestNamespaceLabels(t *testing.T) {
	engine, _, err := policies.Files{CRDs: []string{mysqlexample.Path("crd.yaml")}, Policies: []string{filepath.Join("testdata", "prod-namespaces.yaml")}}.Engine(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	labels := func(l map[string]string, err error) NamespaceLabelsFunc {
		return func(_ context.Context, ns string) (map[string]string, error) {
			if ns != "shop" {
				t.Errorf("looked up namespace %q, want shop", ns)
			}
			return l, err
		}
	}
	tests := []struct {
		name     string
		lookup   NamespaceLabelsFunc
		allowed  bool
		code     int32
		message  string
		causes   []metav1.StatusCause
		warnings []string
	}{{
		name:    "a selected namespace",
		lookup:  labels(map[string]string{"env": "prod"}, nil),
		code:    http.StatusUnprocessableEntity,
		message: `MySQLCluster.db.example.io "prod" is invalid: <nil>: [prod-namespaces/frozen] Invalid value: production namespaces are frozen`,
		causes:  []metav1.StatusCause{{Type: "FieldValueInvalid", Field: "<nil>", Message: "[prod-namespaces/frozen] Invalid value: production namespaces are frozen"}},
	}, {
		name:    "another namespace",
		lookup:  labels(map[string]string{"env": "dev"}, nil),
		allowed: true, code: http.StatusOK,
	}, {
		name:    "a namespace without labels",
		lookup:  labels(nil, nil),
		allowed: true, code: http.StatusOK,
	}, {
		name:    "no lookup: the labels are unknown, so the request cannot be evaluated",
		code:    http.StatusInternalServerError,
		message: "the labels of namespace shop are unknown, and GuardPolicy prod-namespaces selects namespaces by label",
	}, {
		name:    "a lookup that fails cannot evaluate",
		lookup:  labels(nil, errors.New("cache not synced")),
		code:    http.StatusInternalServerError,
		message: "reading the labels of namespace shop: cache not synced",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := &Validator{Engines: NewEngineHolder(engine), NamespaceLabels: tt.lookup}
			resp := v.Handle(t.Context(), request(admissionv1.Create, bob, mysqlexample.JSON(t, "good.yaml"), nil))
			assertResponse(t, resp, tt.allowed, tt.code, tt.message, tt.causes)
			if diff := cmp.Diff(tt.warnings, []string(resp.Warnings)); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}
