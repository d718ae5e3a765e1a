// Package goldencase reads the engine's golden cases (pkg/policies/testdata)
// for the tests of the engine, of the ValidatingAdmissionPolicy compiler and
// of the compiled policies on a real API server, so all evaluate exactly the
// same requests.
//
// A case is a directory with policy.yaml, object.yaml and/or old.yaml (an
// old object makes an UPDATE, an old object alone a DELETE), an optional
// request.yaml (operation, user, groups, namespace, namespaceLabels) and
// crd.yaml, and want.txt with the engine's expected result.
package goldencase

import (
	"os"
	"path/filepath"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/manifest"
	"github.com/crdguard/crdguard/pkg/schema"
)

// Case is one case as read from its directory.
type Case struct {
	// Schemas are crd.yaml's, nil without it.
	Schemas *schema.Registry
	// PolicyDocs are policy.yaml's documents.
	PolicyDocs []manifest.Document
	// The request: CREATE of Object, UPDATE from OldObject to Object,
	// DELETE of OldObject, unless request.yaml names the operation.
	Operation         v1alpha1.Operation
	Object, OldObject *unstructured.Unstructured
	UserInfo          authenticationv1.UserInfo
	// Namespace is request.yaml's, else the object's.
	Namespace       string
	NamespaceLabels map[string]string
	// Unmade is set when request.yaml names an operation the objects do
	// not make (a DELETE with a new object): the engine evaluates it, an
	// API server never receives it.
	Unmade bool
}

// requestFile is request.yaml: what the objects alone do not say.
type requestFile struct {
	Operation       v1alpha1.Operation `json:"operation"`
	User            string             `json:"user"`
	Groups          []string           `json:"groups"`
	Namespace       string             `json:"namespace"`
	NamespaceLabels map[string]string  `json:"namespaceLabels"`
}

// Read reads the case in dir, failing t on anything it cannot read.
func Read(t testing.TB, dir string) *Case {
	t.Helper()
	c := &Case{Operation: v1alpha1.Create, PolicyDocs: Documents(t, filepath.Join(dir, "policy.yaml"))}
	if _, err := os.Stat(filepath.Join(dir, "crd.yaml")); err == nil {
		if c.Schemas, err = schema.RegistryFromFiles(t.Context(), filepath.Join(dir, "crd.yaml")); err != nil {
			t.Fatal(err)
		}
	}
	c.Object = OptionalObject(t, filepath.Join(dir, "object.yaml"))
	if c.OldObject = OptionalObject(t, filepath.Join(dir, "old.yaml")); c.OldObject != nil {
		c.Operation = v1alpha1.Update
		if c.Object == nil {
			c.Operation = v1alpha1.Delete
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, "request.yaml")); err == nil {
		var rf requestFile
		if err := yaml.UnmarshalStrict(data, &rf); err != nil {
			t.Fatalf("%s: %v", filepath.Join(dir, "request.yaml"), err)
		}
		if rf.Operation != "" {
			c.Unmade = rf.Operation != c.Operation
			c.Operation = rf.Operation
		}
		c.UserInfo = authenticationv1.UserInfo{Username: rf.User, Groups: rf.Groups}
		c.Namespace, c.NamespaceLabels = rf.Namespace, rf.NamespaceLabels
	}
	if subject := c.Object; c.Namespace == "" {
		if subject == nil {
			subject = c.OldObject
		}
		if subject != nil {
			c.Namespace = subject.GetNamespace()
		}
	}
	return c
}

// Documents reads the manifest at path.
func Documents(t testing.TB, path string) []manifest.Document {
	t.Helper()
	docs, err := manifest.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// OptionalObject reads the one object at path, nil when there is no file.
func OptionalObject(t testing.TB, path string) *unstructured.Unstructured {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	docs := Documents(t, path)
	if len(docs) != 1 || docs[0].Err != nil {
		t.Fatalf("%s: want one valid document", path)
	}
	return docs[0].Object
}

// Object decodes one object written in YAML.
func Object(t testing.TB, doc string) *unstructured.Unstructured {
	t.Helper()
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
		t.Fatal(err)
	}
	return obj
}
