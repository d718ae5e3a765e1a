package policies

import (
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	crdschema "github.com/crdguard/crdguard/pkg/schema"
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

// TestFilesNameBothCopiesOfADuplicateCRD: a CRD given by two --crds paths is
// refused with both files, as one given twice in one path is.
func TestFilesNameBothCopiesOfADuplicateCRD(t *testing.T) {
	const crd = "../../examples/mysql/crd.yaml"
	_, _, err := Files{CRDs: []string{crd, crd}}.Load(t.Context())
	var dup *crdschema.DuplicateCRDError
	want := `CustomResourceDefinition "mysqlclusters.db.example.io" is given twice: ../../examples/mysql/crd.yaml:3 and ../../examples/mysql/crd.yaml:3; the same document is read twice: pass its path once (they are identical)`
	if !errors.As(err, &dup) || err.Error() != want {
		t.Errorf("err\n got: %v\nwant: %s", err, want)
	}
}
