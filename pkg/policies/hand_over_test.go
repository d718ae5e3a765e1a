package policies

import (
	"path/filepath"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdguard/crdguard/internal/goldencase"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/schema"
)

// TestHandsOverObject evaluates every golden case with its policies and
// with none, its object handed over or not, with and without the stored
// object: the results must be the same, an object no policy guards must
// be validated itself (it is the stored object), and one a policy guards
// must be left as given.
func TestHandsOverObject(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "*", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases in testdata (%v)", err)
	}
	var compared, handedOver int
	for _, dir := range dirs {
		c := goldencase.Read(t, dir)
		if c.Object == nil || c.Schemas == nil {
			continue
		}
		gps, err := PoliciesFromDocuments(t.Context(), c.PolicyDocs, c.Schemas)
		if err != nil {
			t.Fatal(err)
		}
		withPolicies, err := NewEngine(c.Schemas, gps...)
		if err != nil {
			t.Fatal(err)
		}
		withNone, err := NewEngine(c.Schemas)
		if err != nil {
			t.Fatal(err)
		}
		for name, engine := range map[string]*Engine{"policies": withPolicies, "no policies": withNone} {
			for _, showStored := range []bool{false, true} {
				where := dir + ", " + name
				req := Request{
					Operation: c.Operation, OldObject: c.OldObject, UserInfo: c.UserInfo,
					Namespace: c.Namespace, NamespaceLabels: c.NamespaceLabels, ApprovalKey: testApprovalKey,
					ShowStored: showStored,
				}
				req.Object = c.Object.DeepCopy()
				want, wantErr := engine.Evaluate(t.Context(), req)
				if !reflect.DeepEqual(req.Object, c.Object) {
					t.Fatalf("%s: an object not handed over was modified", where)
				}
				handed := c.Object.DeepCopy()
				req.Object, req.HandsOverObject = handed, true
				got, err := engine.Evaluate(t.Context(), req)
				compared++
				if !reflect.DeepEqual(err, wantErr) || renderResult(got) != renderResult(want) ||
					!reflect.DeepEqual(got.ServerWarnings, want.ServerWarnings) || !reflect.DeepEqual(got.Stored, want.Stored) {
					t.Fatalf("%s: handed over:\n%s%v %q %v\nkept:\n%s%v %q %v", where,
						renderResult(got), err, got.ServerWarnings, got.Stored, renderResult(want), wantErr, want.ServerWarnings, want.Stored)
				}
				switch {
				case len(got.Policies) > 0 && !reflect.DeepEqual(handed, c.Object):
					t.Fatalf("%s: an object a policy guards was modified", where)
				case got.Stored != nil && got.Stored == handed:
					handedOver++
				}
			}
		}
	}
	t.Logf("%d evaluations compared, %d of them validated the object handed over in place", compared, handedOver)
	if handedOver == 0 {
		t.Errorf("no case's object was validated in place")
	}
}

// TestHandsOverObjectKeepsMetadata checks what the engine reads of an
// object handed over after validating it: approvals and their records,
// and the server's warnings of finalizers and owner references.
func TestHandsOverObjectKeepsMetadata(t *testing.T) {
	schemas, err := schema.RegistryFromFiles(t.Context(), filepath.Join("testdata", "defaults", "crd-path", "crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	engine, err := NewEngine(schemas)
	if err != nil {
		t.Fatal(err)
	}
	owner := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "c", "uid": "u1"}
	for name, metadata := range map[string]map[string]any{
		"approval and warnings": {
			"name": "prod", "namespace": "shop",
			"annotations":     map[string]any{v1alpha1.ApproveAnnotation: "ratio: load test"},
			"finalizers":      []any{"cleanup"},
			"ownerReferences": []any{owner, owner},
		},
		"forged record": {
			"name": "prod", "namespace": "shop",
			"annotations": map[string]any{v1alpha1.LastApprovalAnnotation: `{"user":"alice","rules":["p/ratio"],"reason":"forged","time":"2024-05-02T09:00:00Z"}`},
		},
	} {
		t.Run(name, func(t *testing.T) {
			obj := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "db.example.io/v1", "kind": "MySQLCluster", "metadata": metadata,
				"spec": map[string]any{"version": "8.0.36", "unknown": "pruned"},
			}}
			req := Request{Operation: v1alpha1.Create, Object: obj.DeepCopy(), Namespace: "shop", FieldValidation: schema.FieldValidationWarn}
			want, err := engine.Evaluate(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			if len(want.AdmissionWarnings())+len(want.ServerWarnings)+len(want.Violations) < 2 {
				t.Fatalf("the case finds too little to compare: %s%q", renderResult(want), want.ServerWarnings)
			}
			req.Object, req.HandsOverObject = obj.DeepCopy(), true
			got, err := engine.Evaluate(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			if renderResult(got) != renderResult(want) || !reflect.DeepEqual(got.ServerWarnings, want.ServerWarnings) {
				t.Errorf("handed over:\n%s%q\nkept:\n%s%q", renderResult(got), got.ServerWarnings, renderResult(want), want.ServerWarnings)
			}
			if _, pruned := req.Object.Object["spec"].(map[string]any)["unknown"]; pruned {
				t.Errorf("the object handed over was not validated in place")
			}
		})
	}
}
