package rules

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/version"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

// The variables of every CEL expression in a GuardPolicy, named as in a
// ValidatingAdmissionPolicy so expressions move between the two unchanged.
const (
	celObject    = "object"
	celOldObject = "oldObject"
	celRequest   = "request"
)

// celEnvironment is the Kubernetes CEL environment (the libraries the API
// server offers: quantity, lists, sets, regex, urls, ip, cidr, format,
// semver, strings) plus object, oldObject and request. Building it costs
// milliseconds, so it is built once, on first use, and shared by every
// policy: a cel.Env is safe for concurrent use.
//
// It is the NewExpressions environment of the default compatibility
// version (the API server's n-1): an expression crdguard accepts is one a
// ValidatingAdmissionPolicy on a cluster one minor version older accepts
// too, and the same expression compiles the same in the CLI and the webhook.
var celEnvironment = sync.OnceValues(func() (*cel.Env, error) {
	requestType := celRequestType()
	set, err := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()).Extend(
		environment.VersionedOptions{
			IntroducedVersion: version.MajorMinor(1, 0),
			EnvOptions: []cel.EnvOption{
				// object and oldObject are dyn: a policy applies to any kind,
				// and a CRD's schema is not known when the policy compiles.
				cel.Variable(celObject, cel.DynType),
				cel.Variable(celOldObject, cel.DynType),
				cel.Variable(celRequest, requestType.CelType()),
			},
			DeclTypes: []*apiservercel.DeclType{requestType},
		},
		environment.StrictCostOpt,
	)
	if err != nil {
		return nil, err
	}
	return set.NewExpressionsEnv(), nil
})

// celRequestType is the type of "request": a typed object rather than a map,
// so a misspelt field ("request.operaton") fails to compile instead of
// failing every request. Its fields are those of the API server's
// kubernetes.AdmissionRequest that a Request carries.
func celRequestType() *apiservercel.DeclType {
	fields := func(fs ...*apiservercel.DeclField) map[string]*apiservercel.DeclField {
		m := make(map[string]*apiservercel.DeclField, len(fs))
		for _, f := range fs {
			m[f.Name] = f
		}
		return m
	}
	declField := func(name string, t *apiservercel.DeclType) *apiservercel.DeclField {
		return apiservercel.NewDeclField(name, t, true, nil, nil)
	}
	stringList := apiservercel.NewListType(apiservercel.StringType, -1)
	userInfo := apiservercel.NewObjectType("crdguard.UserInfo", fields(
		declField("username", apiservercel.StringType),
		declField("uid", apiservercel.StringType),
		declField("groups", stringList),
		declField("extra", apiservercel.NewMapType(apiservercel.StringType, stringList, -1)),
	))
	gvk := apiservercel.NewObjectType("crdguard.GroupVersionKind", fields(
		declField("group", apiservercel.StringType),
		declField("version", apiservercel.StringType),
		declField("kind", apiservercel.StringType),
	))
	return apiservercel.NewObjectType("crdguard.Request", fields(
		declField("operation", apiservercel.StringType),
		declField("kind", gvk),
		declField("name", apiservercel.StringType),
		declField("namespace", apiservercel.StringType),
		declField("userInfo", userInfo),
		declField("dryRun", apiservercel.BoolType),
	))
}

// celProgram is one compiled expression.
type celProgram struct {
	Expression string
	program    cel.Program
}

// compileCEL compiles expr, which must evaluate to want, reporting problems
// at path. The program carries the API server's per-call cost limit
// (PerCallLimit) from the base environment. There is no static cost check:
// object is dyn, so every comprehension's estimate is unbounded, and like a
// ValidatingAdmissionPolicy the cost is limited at runtime instead.
func compileCEL(expr string, want *cel.Type, path *field.Path) (*celProgram, *field.Error) {
	key := newCELProgramKey(expr, want)
	if p, ok := celPrograms.Get(key); ok {
		return p.(*celProgram), nil
	}
	env, err := celEnvironment()
	if err != nil {
		return nil, field.InternalError(path, fmt.Errorf("CEL environment: %w", err))
	}
	ast, issues := env.Compile(expr)
	if issues.Err() != nil {
		return nil, field.Invalid(path, expr, "compilation failed: "+compileErrors(issues))
	}
	if !ast.OutputType().IsExactType(want) {
		return nil, field.Invalid(path, expr, fmt.Sprintf("must evaluate to %s but got %s", want, ast.OutputType()))
	}
	// InterruptCheckFrequency makes comprehensions notice a cancelled
	// context (the webhook's deadline) every CheckFrequency iterations.
	prog, err := env.Program(ast, cel.InterruptCheckFrequency(celconfig.CheckFrequency))
	if err != nil {
		return nil, field.InternalError(path, fmt.Errorf("CEL program: %w", err))
	}
	p := &celProgram{Expression: expr, program: prog}
	celPrograms.Add(key, p)
	return p, nil
}

// compileErrors renders compile issues on one line each, without cel-go's
// source snippet: the expression is already the error's value, and a
// finding's message must stay on one line for kubectl and the CLI.
func compileErrors(issues *cel.Issues) string {
	var msgs []string
	for _, e := range issues.Errors() {
		msgs = append(msgs, fmt.Sprintf("ERROR: <input>:%d:%d: %s", e.Location.Line(), e.Location.Column()+1, e.Message))
	}
	return strings.Join(msgs, "; ")
}

// celActivation binds the variables for one evaluation. It resolves names
// directly instead of through a map.
type celActivation struct {
	object, oldObject any
	request           celRequestValue
}

func (a *celActivation) ResolveName(name string) (any, bool) {
	switch name {
	case celObject:
		return a.object, true
	case celOldObject:
		return a.oldObject, true
	case celRequest:
		return &a.request, true
	}
	return nil, false
}

func (a *celActivation) Parent() interpreter.Activation { return nil }

// newCELActivation binds object and oldObject as they are in the request
// (null when absent, as in a ValidatingAdmissionPolicy: object on DELETE,
// oldObject on CREATE) and request.
func newCELActivation(req *Request) *celActivation {
	a := &celActivation{object: types.NullValue, oldObject: types.NullValue, request: celRequestValue{req: req}}
	if req.Object != nil {
		a.object = req.Object.Object
	}
	if req.OldObject != nil {
		a.oldObject = req.OldObject.Object
	}
	return a
}

// celBudget is the runtime cost all CEL expressions of one policy may spend
// on one request, like the API server's RuntimeCELCostBudget per
// ValidatingAdmissionPolicy binding: each call is limited to PerCallLimit,
// and the budget stops a policy of many expensive rules from holding a
// webhook request for seconds.
type celBudget struct{ remaining int64 }

type celBudgetKey struct{}

// WithCELBudget gives the rules evaluated with ctx one shared budget. The
// engine calls it once per policy and request.
func WithCELBudget(ctx context.Context) context.Context {
	return context.WithValue(ctx, celBudgetKey{}, &celBudget{remaining: celconfig.RuntimeCELCostBudget})
}

// celBudgetFrom returns the budget in ctx, or a fresh one for this rule
// alone when the caller set none.
func celBudgetFrom(ctx context.Context) *celBudget {
	if b, ok := ctx.Value(celBudgetKey{}).(*celBudget); ok {
		return b
	}
	return &celBudget{remaining: celconfig.RuntimeCELCostBudget}
}

// CELBudgetLeft is what is left of the budget in ctx (see WithCELBudget).
func CELBudgetLeft(ctx context.Context) int64 { return celBudgetFrom(ctx).remaining }

// SpendCELBudget takes cost from the budget in ctx: what a rule whose
// findings are reused from another policy would have spent running.
func SpendCELBudget(ctx context.Context, cost int64) { celBudgetFrom(ctx).remaining -= cost }

// errCELUnevaluable marks an evaluation that reached no verdict: a cost
// limit or the budget ran out, or the request was cancelled. It is not a
// finding about the object: the webhook must answer it as an error, so its
// failurePolicy decides.
var errCELUnevaluable = errors.New("rule could not be evaluated")

// eval runs the program. An error wrapping errCELUnevaluable means no
// verdict; any other error is the expression failing on this object ("no
// such key"), which the rule reports as a finding.
func (p *celProgram) eval(ctx context.Context, act *celActivation, budget *celBudget) (ref.Val, error) {
	if budget.remaining < 0 {
		return nil, fmt.Errorf("%w: the policy's CEL cost budget of %d per request is spent; expression '%s' was not run", errCELUnevaluable, celconfig.RuntimeCELCostBudget, p.Expression)
	}
	out, details, err := p.program.ContextEval(ctx, act)
	if details != nil {
		if cost := details.ActualCost(); cost != nil {
			if *cost > math.MaxInt64 || int64(*cost) > budget.remaining {
				budget.remaining = -1
				return nil, fmt.Errorf("%w: expression '%s' ran out of the policy's CEL cost budget of %d per request", errCELUnevaluable, p.Expression, celconfig.RuntimeCELCostBudget)
			}
			budget.remaining -= int64(*cost)
		}
	}
	var cancelled interpreter.EvalCancelledError
	switch {
	case err == nil:
		return out, nil
	case errors.As(err, &cancelled) && cancelled.Cause == interpreter.CostLimitExceeded:
		return nil, fmt.Errorf("%w: expression '%s' exceeded the CEL cost limit of %d per expression", errCELUnevaluable, p.Expression, celconfig.PerCallLimit)
	case errors.As(err, &cancelled), errors.Is(err, interpreter.InterruptError{}), ctx.Err() != nil:
		return nil, fmt.Errorf("%w: expression '%s': %w", errCELUnevaluable, p.Expression, err)
	default:
		return nil, fmt.Errorf("expression '%s' resulted in error: %w", p.Expression, err)
	}
}

// evalBool runs a program compiled to return bool.
func (p *celProgram) evalBool(ctx context.Context, act *celActivation, budget *celBudget) (bool, error) {
	out, err := p.eval(ctx, act, budget)
	if err != nil {
		return false, err
	}
	b, ok := out.Value().(bool)
	if !ok {
		return false, fmt.Errorf("expression '%s' returned %s, not bool", p.Expression, out.Type().TypeName())
	}
	return b, nil
}

// Program is a CEL expression compiled in the rules' environment, with
// their cost limits, for a caller to evaluate outside any rule: the
// benchmark that measures the engine against one CEL program.
type Program struct{ program *celProgram }

// CompileProgram compiles expr, which must evaluate to want.
func CompileProgram(expr string, want *cel.Type) (*Program, error) {
	p, err := compileCEL(expr, want, nil)
	if err != nil {
		return nil, err
	}
	return &Program{program: p}, nil
}

// Eval evaluates the program on req within the budget of ctx (see
// WithCELBudget).
func (p *Program) Eval(ctx context.Context, req *Request) (ref.Val, error) {
	return p.program.eval(ctx, newCELActivation(req), celBudgetFrom(ctx))
}
