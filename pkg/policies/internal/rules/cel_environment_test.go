package rules

import (
	"context"
	"errors"
	"testing"

	"github.com/google/cel-go/cel"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// TestCELEnvironmentLibraries checks that the libraries the issue promises
// are in the environment, each with one expression that must be true.
func TestCELEnvironmentLibraries(t *testing.T) {
	req := &Request{Operation: v1alpha1.Create, Object: &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p"},
	}}}
	for _, expr := range []string{
		"quantity('1Gi').isGreaterThan(quantity('1G')) && quantity('1500m').asApproximateFloat() == 1.5", // quantity
		"isSemver('1.2.3') && semver('v1.2.3', true).major() == 1",                                       // semver, normalizing
		"[3, 1, 2].sum() == 6 && ![3, 1, 2].isSorted()",                                                  // Kubernetes lists
		"lists.range(3) == [0, 1, 2]",                                                                    // cel-go lists
		"sets.contains([1, 2, 3], [1, 3])",                                                               // sets
		"'mysql:8.0.36'.find('[0-9.]+') == '8.0.36' && 'a'.matches('^a$')",                               // regex
		"url('https://db.example.io:8443/x').getPort() == '8443'",                                        // urls
		"cidr('10.0.0.0/8').containsIP(ip('10.1.2.3'))",                                                  // ip, cidr
		"!format.dns1123Label().validate('prod').hasValue()",                                             // format
		"'%s-%d'.format(['db', 3]) == 'db-3' && 'a,b'.split(',').size() == 2",                            // strings
		"{'a': 1}.all(k, v, v > 0)",                                                                      // two-variable comprehensions
		"object.?spec.?replicas.orValue(1) == 1 && oldObject == null",                                    // optionals; null oldObject
	} {
		p, ferr := compileCEL(expr, cel.BoolType, nil)
		if ferr != nil {
			t.Errorf("%s: %v", expr, ferr)
			continue
		}
		got, err := p.evalBool(t.Context(), newCELActivation(req), celBudgetFrom(t.Context()))
		if err != nil || !got {
			t.Errorf("%s = %v, %v; want true", expr, got, err)
		}
	}
}

// TestCELBudget checks the runtime budget shared by a policy's expressions:
// the expression that overdraws it reaches no verdict, and so does every
// later one, without running.
func TestCELBudget(t *testing.T) {
	p, ferr := compileCEL("lists.range(100).all(i, i >= 0)", cel.BoolType, nil)
	if ferr != nil {
		t.Fatal(ferr)
	}
	act := newCELActivation(&Request{Operation: v1alpha1.Create, Object: &unstructured.Unstructured{Object: map[string]any{}}})

	budget := celBudgetFrom(WithCELBudget(t.Context()))
	if ok, err := p.evalBool(t.Context(), act, budget); !ok || err != nil {
		t.Fatalf("with the full budget: %v, %v", ok, err)
	}
	if spent := 10000000 - budget.remaining; spent <= 0 {
		t.Fatalf("the evaluation spent %d of the budget", spent)
	}

	budget.remaining = 10
	_, err := p.evalBool(t.Context(), act, budget)
	want := "rule could not be evaluated: expression 'lists.range(100).all(i, i >= 0)' ran out of the policy's CEL cost budget of 10000000 per request"
	if !errors.Is(err, errCELUnevaluable) || err.Error() != want {
		t.Errorf("overdrawn budget: got %v\nwant %s", err, want)
	}
	_, err = p.evalBool(t.Context(), act, budget)
	want = "rule could not be evaluated: the policy's CEL cost budget of 10000000 per request is spent; expression 'lists.range(100).all(i, i >= 0)' was not run"
	if !errors.Is(err, errCELUnevaluable) || err.Error() != want {
		t.Errorf("spent budget: got %v\nwant %s", err, want)
	}

	// Without an engine-provided budget each evaluation gets its own.
	if a, b := celBudgetFrom(t.Context()), celBudgetFrom(t.Context()); a == b {
		t.Error("budgets without a context budget are shared")
	}
	ctx := WithCELBudget(t.Context())
	if a, b := celBudgetFrom(ctx), celBudgetFrom(ctx); a != b {
		t.Error("the context budget is not shared")
	}
}

// TestCELCancelled checks that a cancelled request (the webhook's deadline)
// stops a long evaluation and reaches no verdict.
func TestCELCancelled(t *testing.T) {
	p, ferr := compileCEL("lists.range(1000).all(i, lists.range(1000).all(j, i + j >= 0))", cel.BoolType, nil)
	if ferr != nil {
		t.Fatal(ferr)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	act := newCELActivation(&Request{Operation: v1alpha1.Create, Object: &unstructured.Unstructured{Object: map[string]any{}}})
	_, err := p.evalBool(ctx, act, celBudgetFrom(ctx))
	want := "rule could not be evaluated: expression 'lists.range(1000).all(i, lists.range(1000).all(j, i + j >= 0))': operation interrupted: context canceled"
	if !errors.Is(err, errCELUnevaluable) || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

// TestCELEnvironmentOnce checks that the environment is built once.
func TestCELEnvironmentOnce(t *testing.T) {
	a, err := celEnvironment()
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := celEnvironment(); a != b {
		t.Error("celEnvironment built two environments")
	}
}

// TestCELProgramsShared checks that an expression compiled again, by
// another policy or another engine build, reuses the compiled program,
// and that the result type is part of what is reused.
func TestCELProgramsShared(t *testing.T) {
	const expr = "object.spec.replicas % 2 == 1"
	first, err := compileCEL(expr, cel.BoolType, nil)
	if err != nil {
		t.Fatal(err)
	}
	again, err := compileCEL(expr, cel.BoolType, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again != first {
		t.Errorf("compiling %q again made a new program", expr)
	}
	if _, err := compileCEL(expr, cel.StringType, nil); err == nil {
		t.Errorf("%q compiled as a string expression: the bool program was reused for another type", expr)
	}
}
