package localcluster

import (
	"path/filepath"
	"testing"
)

func TestReadObject(t *testing.T) {
	examples := filepath.Join("..", "..", "examples", "mysql")
	good, bad := filepath.Join(examples, "good.yaml"), filepath.Join(examples, "bad.yaml")
	for _, tc := range []struct {
		path, name string
		want       string // the object's name, or the error
	}{
		{good, "", "prod"},
		{bad, "staging", "staging"},
		// bad.yaml holds two objects: neither is "the" object.
		{bad, "", bad + " holds 2 objects, want 1"},
		{bad, "prod", bad + ` holds 0 objects named "prod", want 1`},
	} {
		obj, err := ReadObject(tc.path, tc.name)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = obj.GetName()
		}
		if got != tc.want {
			t.Errorf("ReadObject(%s, %q) = %s, want %s", tc.path, tc.name, got, tc.want)
		}
	}
}
