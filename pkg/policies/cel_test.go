package policies

import (
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/crdguard/crdguard/internal/goldencase"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

func TestCEL(t *testing.T) { runCases(t, "cel") }

func celRuleSpec(name string, c v1alpha1.CELRule) v1alpha1.Rule {
	return v1alpha1.Rule{Name: name, CEL: &c}
}

// TestCELCompileErrors checks that a CEL rule that does not compile
// rejects the policy, with the error at the exact field.
func TestCELCompileErrors(t *testing.T) {
	ok := celRuleSpec("ok", v1alpha1.CELRule{Expression: "true"})
	tests := []struct {
		name string
		rule v1alpha1.CELRule
		want []string
	}{{
		name: "undefined request field",
		rule: v1alpha1.CELRule{Expression: "request.foo == 'x'"},
		want: []string{`spec.rules[2].cel.expression: Invalid value: "request.foo == 'x'": compilation failed: ERROR: <input>:1:8: undefined field 'foo'`},
	}, {
		name: "syntax error",
		rule: v1alpha1.CELRule{Expression: "object.spec.replicas >"},
		want: []string{`spec.rules[2].cel.expression: Invalid value: "object.spec.replicas >": compilation failed: ERROR: <input>:1:23: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}`},
	}, {
		name: "unknown function and unknown variable, both reported",
		rule: v1alpha1.CELRule{Expression: "frobnicate(object) && self.x"},
		want: []string{`spec.rules[2].cel.expression: Invalid value: "frobnicate(object) && self.x": compilation failed: ERROR: <input>:1:11: undeclared reference to 'frobnicate' (in container ''); ERROR: <input>:1:23: undeclared reference to 'self' (in container '')`},
	}, {
		name: "regex literal checked at compile time",
		rule: v1alpha1.CELRule{Expression: "object.spec.image.matches('[')"},
		want: []string{"spec.rules[2].cel.expression: Invalid value: \"object.spec.image.matches('[')\": compilation failed: ERROR: <input>:1:27: invalid matches argument"},
	}, {
		name: "dyn is not bool",
		rule: v1alpha1.CELRule{Expression: "object.spec.enabled"},
		want: []string{`spec.rules[2].cel.expression: Invalid value: "object.spec.enabled": must evaluate to bool but got dyn`},
	}, {
		name: "empty expression",
		rule: v1alpha1.CELRule{Expression: " "},
		want: []string{`spec.rules[2].cel.expression: Required value: a CEL expression that is true when the request passes`},
	}, {
		name: "messageExpression, message and fieldPath",
		rule: v1alpha1.CELRule{Expression: "true", MessageExpression: "object.spec.replicas + 1", Message: "two\nlines", FieldPath: "spec.users[*].name"},
		want: []string{
			`spec.rules[2].cel.messageExpression: Invalid value: "object.spec.replicas + 1": must evaluate to string but got int`,
			`spec.rules[2].cel.message: Invalid value: "two\nlines": must not contain line breaks`,
			`spec.rules[2].cel.fieldPath: Invalid value: "spec.users[*].name": must name one field: [*] is not allowed`,
		},
	}, {
		name: "fieldPath that does not parse",
		rule: v1alpha1.CELRule{Expression: "true", FieldPath: ".spec.replicas"},
		want: []string{`spec.rules[2].cel.fieldPath: Invalid value: ".spec.replicas": empty field name at ".spec.replicas"`},
	}, {
		name: "messageExpression does not compile",
		rule: v1alpha1.CELRule{Expression: "true", MessageExpression: "'a' + request.userInfo.name"},
		want: []string{`spec.rules[2].cel.messageExpression: Invalid value: "'a' + request.userInfo.name": compilation failed: ERROR: <input>:1:23: undefined field 'name'`},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mysqlPolicy(ok, celRuleSpec("ok2", v1alpha1.CELRule{Expression: "true"}), celRuleSpec("bad", tt.rule))
			assertPolicyErrors(t, p, nil, tt.want)
			// The engine refuses the policy with the same errors.
			if _, err := NewEngine(nil, p); err == nil {
				t.Error("NewEngine accepted a policy ValidateGuardPolicy rejects")
			}
		})
	}
}

// TestCELRequestUserInfoExtra: request.userInfo.extra is always a map,
// empty for a user without extra values, and holds a user's extra values
// as lists of strings.
func TestCELRequestUserInfoExtra(t *testing.T) {
	engine, err := NewEngine(nil, mysqlPolicy(celRuleSpec("extra", v1alpha1.CELRule{
		Expression:        "size(request.userInfo.extra) == 0 || request.userInfo.extra['scopes'] == ['read', 'write']",
		MessageExpression: "'extra: ' + request.userInfo.extra.map(k, k + '=' + request.userInfo.extra[k].join(',')).join(' ')",
	})))
	if err != nil {
		t.Fatal(err)
	}
	obj := goldencase.Object(t, `{apiVersion: db.example.io/v1, kind: MySQLCluster, metadata: {name: c, namespace: shop}}`)
	for _, tt := range []struct {
		extra map[string]authenticationv1.ExtraValue
		want  string // the violation's message, "" for none
	}{
		{nil, ""},
		{map[string]authenticationv1.ExtraValue{"scopes": {"read", "write"}}, ""},
		{map[string]authenticationv1.ExtraValue{"scopes": {"admin"}}, "Invalid value: extra: scopes=admin"},
	} {
		res, err := engine.Evaluate(t.Context(), Request{Operation: v1alpha1.Create, Namespace: "shop", Object: obj,
			UserInfo: authenticationv1.UserInfo{Username: "bob", Extra: tt.extra}})
		if err != nil {
			t.Fatal(err)
		}
		var got string
		for _, v := range res.Violations {
			got += v.Message
		}
		if got != tt.want {
			t.Errorf("extra %v: violations %q, want %q", tt.extra, got, tt.want)
		}
	}
}
