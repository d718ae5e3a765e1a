package policies

import (
	"errors"

	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/parser"
)

// celNoFindings is a boolean CEL expression that is true exactly when
// findings, a CEL expression of a list of findings, is empty, written so
// that it builds no list: literals become true or false, a concatenation
// a conjunction, a walk (x.map(v, f).flatten()) x.all(v, ...). The API
// server evaluates a validation's expression and its messageExpression on
// every request, each with its own variables; with the findings only in
// the message, a passing request never builds them.
//
// It rewrites the parsed expression, without macros so that what the
// generators wrote comes back as written; a form it does not know is
// tested with size() == 0, the same answer at the list's cost.
func celNoFindings(findings string) (string, error) {
	p, err := parser.NewParser(parser.EnableOptionalSyntax(true))
	if err != nil {
		return "", err
	}
	tree, errs := p.Parse(common.NewTextSource(findings))
	if errs != nil && len(errs.GetErrors()) > 0 {
		return "", errors.New(errs.ToDisplayString())
	}
	r := &noFindings{fac: ast.NewExprFactory(), id: maxExprID(tree.Expr())}
	return parser.Unparse(r.of(tree.Expr()), tree.SourceInfo(), parser.WrapOnOperators())
}

type noFindings struct {
	fac ast.ExprFactory
	id  int64 // the last expression ID given out
}

func (r *noFindings) nextID() int64 {
	r.id++
	return r.id
}

// of is the expression "e has no findings".
func (r *noFindings) of(e ast.Expr) ast.Expr {
	switch e.Kind() {
	case ast.ListKind:
		return r.fac.NewLiteral(r.nextID(), types.Bool(len(e.AsList().Elements()) == 0))
	case ast.CallKind:
		call := e.AsCall()
		args := call.Args()
		switch fn := call.FunctionName(); {
		case fn == "_?_:_" && len(args) == 3:
			return r.conditional(args[0], r.of(args[1]), r.of(args[2]))
		case fn == "_+_" && len(args) == 2:
			return r.and(r.of(args[0]), r.of(args[1]))
		case fn == "bind" && call.IsMemberFunction() && isIdent(call.Target(), "cel") && len(args) == 3 && args[0].Kind() == ast.IdentKind:
			body := r.of(args[2])
			if !references(body, args[0].AsIdent()) {
				return body // bound for a message only
			}
			return r.fac.NewMemberCall(r.nextID(), fn, call.Target(), args[0], args[1], body)
		case fn == "flatten" && call.IsMemberFunction() && len(args) == 0 && call.Target().Kind() == ast.CallKind:
			walk := call.Target().AsCall()
			vars := walk.Args()
			if walk.IsMemberFunction() && (walk.FunctionName() == "map" && len(vars) == 2 || walk.FunctionName() == "transformList" && len(vars) == 3) {
				last := len(vars) - 1
				allArgs := append(append([]ast.Expr{}, vars[:last]...), r.of(vars[last]))
				return r.fac.NewMemberCall(r.nextID(), "all", unsortedKeys(walk.Target()), allArgs...)
			}
		}
	}
	size := r.fac.NewCall(r.nextID(), "size", e)
	return r.fac.NewCall(r.nextID(), "_==_", size, r.fac.NewLiteral(r.nextID(), types.Int(0)))
}

// conditional is c ? a : b, without the conditional when a and b are
// literals: (c ? [] : [finding]) has no findings exactly when c holds.
func (r *noFindings) conditional(c, a, b ast.Expr) ast.Expr {
	switch av, bv := boolLiteral(a), boolLiteral(b); {
	case av == nil || bv == nil:
		return r.fac.NewCall(r.nextID(), "_?_:_", c, a, b)
	case *av == *bv:
		return a
	case *av:
		return c
	}
	return r.fac.NewCall(r.nextID(), "!_", c)
}

// and is a && b, without the conjunction when either is a literal.
func (r *noFindings) and(a, b ast.Expr) ast.Expr {
	if lit := boolLiteral(a); lit != nil {
		if *lit {
			return b
		}
		return a
	}
	if lit := boolLiteral(b); lit != nil {
		if *lit {
			return a
		}
		return b
	}
	return r.fac.NewCall(r.nextID(), "_&&_", a, b)
}

// boolLiteral is the value of a true or false literal, nil for any other
// expression.
func boolLiteral(e ast.Expr) *bool {
	if e.Kind() != ast.LiteralKind {
		return nil
	}
	b, ok := e.AsLiteral().(types.Bool)
	if !ok {
		return nil
	}
	v := bool(b)
	return &v
}

// unsortedKeys is m for m.map(k, k).sort(), the keys of a map in order:
// whether every key passes does not depend on their order, and all() over
// a map visits its keys.
func unsortedKeys(e ast.Expr) ast.Expr {
	if e.Kind() != ast.CallKind || e.AsCall().FunctionName() != "sort" || len(e.AsCall().Args()) != 0 || !e.AsCall().IsMemberFunction() {
		return e
	}
	keys := e.AsCall().Target()
	if keys.Kind() != ast.CallKind {
		return e
	}
	m := keys.AsCall()
	if args := m.Args(); m.FunctionName() != "map" || !m.IsMemberFunction() || len(args) != 2 || args[0].Kind() != ast.IdentKind || !isIdent(args[1], args[0].AsIdent()) {
		return e
	}
	return m.Target()
}

func isIdent(e ast.Expr, name string) bool {
	return e.Kind() == ast.IdentKind && e.AsIdent() == name
}

// references tells whether e uses the name.
func references(e ast.Expr, name string) bool {
	found := false
	ast.PostOrderVisit(e, ast.NewExprVisitor(func(e ast.Expr) {
		found = found || isIdent(e, name)
	}))
	return found
}

// maxExprID is the largest ID in e, so that new expressions get new ones.
func maxExprID(e ast.Expr) int64 {
	var id int64
	ast.PostOrderVisit(e, ast.NewExprVisitor(func(e ast.Expr) { id = max(id, e.ID()) }))
	return id
}
