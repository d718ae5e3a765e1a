package policies

import (
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestFilesEngine(t *testing.T) {
	engine, guardPolicies, err := Files{CRDs: []string{"../../examples/mysql/crd.yaml"}, Policies: []string{"../../examples/mysql/policy.yaml"}}.Engine(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(guardPolicies) != 1 || guardPolicies[0].Name != "mysql-safety" {
		t.Errorf("policies %v, want mysql-safety", guardPolicies)
	}
	if kinds := engine.Schemas().Kinds(); len(kinds) != 1 || kinds[0] != (schema.GroupVersionKind{Group: "db.example.io", Version: "v1", Kind: "MySQLCluster"}) {
		t.Errorf("schemas of %v, want the MySQLCluster's", kinds)
	}

	// A path without what it was given for stays an *EmptyPathError.
	_, _, err = Files{Policies: []string{"../../examples/mysql/crd.yaml"}}.Engine(t.Context())
	var empty *EmptyPathError
	if !errors.As(err, &empty) || err.Error() != "../../examples/mysql/crd.yaml holds no GuardPolicy" {
		t.Errorf("err = %v, want an *EmptyPathError", err)
	}
}
