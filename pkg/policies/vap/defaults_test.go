package vap

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"gopkg.in/inf.v0"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies/internal/rules"
	"github.com/crdguard/crdguard/pkg/policies/vap/internal/celrewrite"
)

// TestCompiledDefaultLimit evaluates the compiled default limit with the
// API server's CEL environment on requests of every quantity format and
// compares it with the engine's mutation, byte for byte.
func TestCompiledDefaultLimit(t *testing.T) {
	env, err := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()).Env(environment.NewExpressions)
	if err != nil {
		t.Fatal(err)
	}
	if env, err = env.Extend(cel.Variable("lim", cel.DynType), cel.Variable("req", cel.DynType)); err != nil {
		t.Fatal(err)
	}
	requests := []any{
		"1", "2", "1Gi", "250m", "100M", "1n", "1e3", "1.5", "0.5", "1023", "1024", "1536", "4Ei", "7Ei", "100E",
		"1.5Gi", "0.5Ki", "3.5e-3", "1E", "12e6", "-1", "-1.5Gi", "-250m", "0", "0Gi", "0.0000000001", "999999999.999999999",
		"4611686018427387904", "4611686018427387905", "4611686018427387903.5", "3074457345618258602", "abc", "1.2.3", "",
		int64(2), int64(0), int64(-3), 1.5, 0.25, 1e21, 1e-7,
	}
	rng := rand.New(rand.NewPCG(1, 2))
	suffixes := []string{"", "", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "e3", "e-3", "E6", "e-9", "e12", "e0"}
	for range 1500 {
		s := fmt.Sprint(rng.Int64N(1 << rng.IntN(40)))
		if rng.IntN(3) == 0 {
			fraction := fmt.Sprint(rng.Int64N(1 << 40))
			s += "." + fraction[:1+rng.IntN(len(fraction))]
		}
		if rng.IntN(20) == 0 {
			s = "-" + s
		}
		requests = append(requests, s+suffixes[rng.IntN(len(suffixes))])
	}
	compared, set := 0, 0
	for _, name := range []string{"cpu", "memory", "example.com/gpu"} {
		for _, multiplier := range []string{"1", "1.5", "2", "1.3", "1.25", "3.333333333", "1.000000001", "7", "1024.5"} {
			d := defaultsRule(t, name, multiplier)
			l, err := newDefaultCEL(d.Limits[0])
			if err != nil {
				t.Fatal(err)
			}
			expr, err := celrewrite.LowerBinds(inlineHelpers(l.limit(&celNames{}, "lim", "req"), quantityFormat))
			if err != nil {
				t.Fatal(err)
			}
			ast, iss := env.Compile(expr)
			if iss.Err() != nil {
				t.Fatalf("%s × %s: %v\n%s", name, multiplier, iss.Err(), expr)
			}
			prg, err := env.Program(ast)
			if err != nil {
				t.Fatal(err)
			}
			for _, request := range requests {
				want := engineLimit(t, d, name, request)
				if beyondCompiledDefaults(request, multiplier) {
					want = ""
				}
				out, _, err := prg.Eval(map[string]any{"lim": types.NullValue, "req": map[string]any{name: request}})
				if err != nil {
					t.Errorf("%s %#v × %s: %v", name, request, multiplier, err)
					continue
				}
				if got := out.Value(); got != want {
					t.Errorf("%s %#v × %s: compiled %q, engine %q", name, request, multiplier, got, want)
				}
				compared++
				if want != "" {
					set++
				}
			}
			// A limit already there is never overwritten.
			out, _, err := prg.Eval(map[string]any{"lim": map[string]any{name: "5"}, "req": map[string]any{name: "1"}})
			if err != nil || out.Value() != "" {
				t.Errorf("%s × %s with a limit: %v, %v; want \"\"", name, multiplier, out, err)
			}
		}
	}
	t.Logf("%d requests compared, %d limits set", compared, set)
	if set < compared/2 {
		t.Errorf("only %d of %d requests got a limit: the cases test too little", set, compared)
	}
}

// beyondCompiledDefaults tells whether request is a quantity over 2⁶² in
// magnitude, or whose product with multiplier is over 2⁶³-1: it gets no
// compiled default. The engine sets none either for a positive request
// whose product is that large.
func beyondCompiledDefaults(request any, multiplier string) bool {
	q, err := resource.ParseQuantity(fmt.Sprint(request))
	if err != nil {
		return false
	}
	if q.Sign() < 0 {
		q.Neg()
	}
	m := resource.MustParse(multiplier)
	product := new(inf.Dec).Mul(q.AsDec(), m.AsDec())
	return q.Cmp(*resource.NewQuantity(1<<62, resource.DecimalSI)) > 0 || product.Cmp(inf.NewDec(math.MaxInt64, 0)) > 0
}

// defaultsRule is a defaults rule setting name's limit at multiplier ×
// its request.
func defaultsRule(t *testing.T, name, multiplier string) *rules.Defaults {
	t.Helper()
	gp := &v1alpha1.GuardPolicy{Spec: v1alpha1.GuardPolicySpec{
		Match: v1alpha1.Match{Resources: []v1alpha1.ResourceMatch{{Group: "example.com", Kinds: []string{"Example"}}}},
		Rules: []v1alpha1.Rule{{Name: "defaults", Defaults: &v1alpha1.DefaultsRule{
			Paths:  []string{"spec.resources"},
			Limits: []v1alpha1.LimitDefault{{Resource: name, RequestMultiplier: resource.MustParse(multiplier)}},
		}}},
	}}
	gp.Name = "defaults"
	compiled, errs := rules.CompilePolicy(gp, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return compiled.Rules[0].Rule.(*rules.Defaults)
}

// engineLimit is the limit the engine's mutation sets for the request,
// "" when it sets none.
func engineLimit(t *testing.T, d *rules.Defaults, name string, request any) string {
	t.Helper()
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Example",
		"spec": map[string]any{"resources": map[string]any{"requests": map[string]any{name: request}}},
	}}
	ops := d.Mutate(t.Context(), &rules.Request{Operation: v1alpha1.Create, Object: obj})
	switch {
	case len(ops) == 0:
		return ""
	case len(ops) > 1:
		t.Fatalf("%d patches", len(ops))
	}
	limits, ok := ops[0].Value.(map[string]any)
	if !ok {
		t.Fatalf("patch value %#v", ops[0].Value)
	}
	return limits[name].(string)
}
