package vap

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdguard/crdguard/pkg/policies"
)

// The golden cases and the example are the engine's: ../testdata and
// examples/mysql.
const (
	goldenCases = "../testdata"
	example     = "../../../examples/mysql"
)

// requestSubject is the object req is about: the new object, or the
// stored one on DELETE.
func requestSubject(req *policies.Request) *unstructured.Unstructured {
	if req.Object != nil {
		return req.Object
	}
	return req.OldObject
}
