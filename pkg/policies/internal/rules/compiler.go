package rules

import (
	"encoding/json"
	"fmt"

	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/schema"
)

// Compiler compiles the GuardPolicies of one engine. Rules configured
// alike for the same kinds compile to one shared Rule: a thousand copies
// of a policy hold one copy of its rules, and the engine runs a shared
// rule once per request whatever the number of policies that have it.
// A Compiler is for one goroutine.
type Compiler struct {
	schemas *schema.Registry
	// rules are the compiled rules by ruleKey.
	rules map[string]Rule
}

// NewCompiler returns a compiler for policies checked against schemas,
// which may be nil.
func NewCompiler(schemas *schema.Registry) *Compiler {
	return &Compiler{schemas: schemas, rules: map[string]Rule{}}
}

// rule compiles spec as kind, or returns the rule compiled from the same
// configuration for the same kinds. Only what compiled is shared: errors
// name the path of the rule they are about.
func (c *Compiler) rule(kind ruleKind, spec *v1alpha1.Rule, path *field.Path, env *compileEnv) (Rule, field.ErrorList) {
	key, err := ruleKey(spec, env.kinds)
	if err != nil {
		return kind.compile(spec, path, env)
	}
	if r, ok := c.rules[key]; ok {
		return r, nil
	}
	r, errs := kind.compile(spec, path, env)
	if len(errs) == 0 {
		c.rules[key] = r
	}
	return r, errs
}

// ruleKey is what a compiled rule depends on: its configuration and the
// kinds whose schemas it was compiled against. The name and enforcement
// are the policy's business (Compiled holds them), not the check's.
func ruleKey(spec *v1alpha1.Rule, kinds []runtimeschema.GroupVersionKind) (string, error) {
	config := *spec
	config.Name, config.Enforcement = "", ""
	data, err := json.Marshal(config)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s %v", data, kinds), nil
}
