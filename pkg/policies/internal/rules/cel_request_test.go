package rules

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/cel-go/interpreter"
	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/crdguard/crdguard/internal/goldencase"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// TestCELRequestValue: request read field by field gives what the whole
// value as maps gives, for every field, presence test, equality, size,
// iteration and a missing key; selecting fields builds no whole value.
func TestCELRequestValue(t *testing.T) {
	req := &Request{
		Operation: v1alpha1.Update, Namespace: "shop", DryRun: true,
		Object: goldencase.Object(t, `{apiVersion: db.example.io/v1, kind: MySQLCluster, metadata: {name: c, namespace: shop}}`),
		UserInfo: authenticationv1.UserInfo{Username: "bob", UID: "42", Groups: []string{"admins"},
			Extra: map[string]authenticationv1.ExtraValue{"scopes": {"read"}}},
	}
	env, err := celEnvironment()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		expr string
		want any // the value, or the error's text
	}{
		{"request.operation", "UPDATE"},
		{"request.name", "c"},
		{"request.namespace", "shop"},
		{"request.dryRun", true},
		{"request.kind.group + '/' + request.kind.version + '/' + request.kind.kind", "db.example.io/v1/MySQLCluster"},
		{"request.userInfo.username + ' ' + request.userInfo.uid", "bob 42"},
		{"request.userInfo.groups", []string{"admins"}},
		{"request.userInfo.extra['scopes']", []string{"read"}},
		{"has(request.name) && has(request.userInfo.extra)", true},
		{"request == request", true},
		{"size(dyn(request))", int64(6)},
		{"'operation' in dyn(request) && !('foo' in dyn(request))", true},
		{"dyn(request).all(k, k in ['operation', 'kind', 'name', 'namespace', 'userInfo', 'dryRun'])", true},
		{"dyn(request)['foo']", "no such key: foo"},
	} {
		ast, issues := env.Compile(tt.expr)
		if issues.Err() != nil {
			t.Fatalf("%s: %v", tt.expr, issues.Err())
		}
		prog, err := env.Program(ast)
		if err != nil {
			t.Fatal(err)
		}
		act := newCELActivation(req)
		lazy := result(prog.Eval(act))
		if selectsOnly := !strings.Contains(tt.expr, "dyn(request)") && tt.expr != "request == request"; selectsOnly && act.request.whole != nil {
			t.Errorf("%s built the whole request value", tt.expr)
		}
		whole, err := interpreter.NewActivation(map[string]any{"object": req.Object.Object, "oldObject": nil, "request": (&celRequestValue{req: req}).mapper().Value()})
		if err != nil {
			t.Fatal(err)
		}
		if got := result(prog.Eval(whole)); !reflect.DeepEqual(lazy, got) {
			t.Errorf("%s: field by field %#v, as maps %#v", tt.expr, lazy, got)
		}
		if !reflect.DeepEqual(lazy, tt.want) {
			t.Errorf("%s = %#v, want %#v", tt.expr, lazy, tt.want)
		}
	}
}

// result is an evaluation's value as Go, or its error's text.
func result(out interface{ Value() any }, _ any, err error) any {
	if err != nil {
		return err.Error()
	}
	return out.Value()
}
