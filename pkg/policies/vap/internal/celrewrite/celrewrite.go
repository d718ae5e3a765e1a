// Package celrewrite rewrites the CEL that package vap generates into
// cheaper equivalents: a list of findings tested for emptiness becomes a
// boolean that builds no list, decided tests are folded away, and binds are
// lowered to what the API server's CEL has.
package celrewrite

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/parser"
)

// NoFindings is a boolean CEL expression that is true exactly when
// findings, a CEL expression of a list of findings, is empty, written so
// that it builds no list: literals become true or false, a concatenation
// a conjunction, a walk (x.map(v, f).flatten()) x.all(v, ...), or, over
// the few places a path reaches, the conjunction for each place with its
// fields read where they are known. Tests already decided where they are
// evaluated are folded away, and binds are lowered to what the API
// server's CEL has. Each of these costs kube-apiserver a few hundred
// nanoseconds less per node on every request.
//
// It rewrites the parsed expression, without macros so that what the
// generators wrote comes back as written; a form it does not know is
// tested with size() == 0, the same answer at the list's cost.
func NoFindings(findings string) (string, error) {
	return rewriteBoolean(findings, (*rewriter).of)
}

// Boolean is the boolean CEL expression expr with walks over few
// places written out, decided tests folded away and binds lowered, as
// NoFindings writes the form it builds.
func Boolean(expr string) (string, error) {
	return rewriteBoolean(expr, func(_ *rewriter, e ast.Expr) ast.Expr { return e })
}

// LowerBinds is expr, of any type, with its binds lowered (see
// lowerBinds).
func LowerBinds(expr string) (string, error) {
	return rewrite(expr, func(r *rewriter, e ast.Expr) ast.Expr { return r.lowerBinds(e, false) })
}

// rewriteBoolean parses expr, turns it into a boolean with form and
// optimises that. It folds twice: a bind lowered to the selection it
// names makes a test inside it the same text as one outside, decided.
func rewriteBoolean(expr string, form func(*rewriter, ast.Expr) ast.Expr) (string, error) {
	return rewrite(expr, func(r *rewriter, e ast.Expr) ast.Expr {
		lowered := r.lowerBinds(r.fold(form(r, e), map[string]bool{}), true)
		return r.lowerBinds(r.fold(lowered, map[string]bool{}), true)
	})
}

// rewrite parses expr, without macros so that what the generators wrote
// comes back as written, rewrites it and prints the result.
func rewrite(expr string, with func(*rewriter, ast.Expr) ast.Expr) (string, error) {
	p, err := parser.NewParser(parser.EnableOptionalSyntax(true))
	if err != nil {
		return "", err
	}
	tree, errs := p.Parse(common.NewTextSource(expr))
	if errs != nil && len(errs.GetErrors()) > 0 {
		return "", errors.New(errs.ToDisplayString())
	}
	r := &rewriter{fac: ast.NewExprFactory(), id: maxExprID(tree.Expr()), info: tree.SourceInfo()}
	return parser.Unparse(with(r, tree.Expr()), tree.SourceInfo(), parser.WrapOnOperators())
}

type rewriter struct {
	fac  ast.ExprFactory
	id   int64 // the last expression ID given out
	info *ast.SourceInfo
}

func (r *rewriter) nextID() int64 {
	r.id++
	return r.id
}

// of is the expression "e has no findings".
func (r *rewriter) of(e ast.Expr) ast.Expr {
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
		case isBind(call):
			return r.bind(args[0].AsIdent(), args[1], r.of(args[2]))
		case fn == "flatten" && call.IsMemberFunction() && len(args) == 0 && call.Target().Kind() == ast.CallKind:
			walk := call.Target().AsCall()
			vars := walk.Args()
			switch {
			case walk.IsMemberFunction() && walk.FunctionName() == "map" && len(vars) == 2 && vars[0].Kind() == ast.IdentKind:
				return r.all(unsortedKeys(walk.Target()), vars[0].AsIdent(), r.of(vars[1]))
			case walk.IsMemberFunction() && walk.FunctionName() == "transformList" && len(vars) == 3:
				return r.fac.NewMemberCall(r.nextID(), "all", walk.Target(), vars[0], vars[1], r.of(vars[2]))
			}
		}
	}
	size := r.fac.NewCall(r.nextID(), "size", e)
	return r.fac.NewCall(r.nextID(), "_==_", size, r.fac.NewLiteral(r.nextID(), types.Int(0)))
}

// bind is cel.bind(name, value, body), or body alone when it does not
// use name: a value bound for a message only.
func (r *rewriter) bind(name string, value, body ast.Expr) ast.Expr {
	if !references(body, name) {
		return body
	}
	return r.fac.NewMemberCall(r.nextID(), "bind", r.fac.NewIdent(r.nextID(), "cel"), r.fac.NewIdent(r.nextID(), name), value, body)
}

func isBind(call ast.CallExpr) bool {
	args := call.Args()
	return call.FunctionName() == "bind" && call.IsMemberFunction() && isIdent(call.Target(), "cel") && len(args) == 3 && args[0].Kind() == ast.IdentKind
}

// maxRepeatedLookups is how many more map lookups than a bind's one
// writing a selection in place of its name may cost: a one-item
// comprehension, the other way to bind, costs about as much as six.
const maxRepeatedLookups = 6

// lowerBinds rewrites every cel.bind(name, value, body) in e, as the API
// server's CEL environment has no ext.Bindings: a value that only selects
// (a name, then fields and [key]s: a map lookup each), is written in place
// of name unless that repeats more than maxRepeatedLookups lookups, as is
// a body that is name itself; any other binds as a one-item comprehension,
// [value].all(name, body) where body is a boolean (isBool tells whether e
// is one), else [value].map(name, body)[0].
func (r *rewriter) lowerBinds(e ast.Expr, isBool bool) ast.Expr {
	if e.Kind() != ast.CallKind {
		return r.children(e, func(child ast.Expr) ast.Expr { return r.lowerBinds(child, false) })
	}
	call := e.AsCall()
	args := call.Args()
	if !isBind(call) {
		// Which arguments are booleans, for the binds in them.
		boolArg := func(i int) bool {
			switch call.FunctionName() {
			case "_&&_", "_||_", "!_":
				return true
			case "_?_:_":
				return i == 0 || isBool
			case "all", "exists":
				return call.IsMemberFunction() && i == len(args)-1
			}
			return false
		}
		lowered := make([]ast.Expr, len(args))
		for i, a := range args {
			lowered[i] = r.lowerBinds(a, boolArg(i))
		}
		if call.IsMemberFunction() {
			return r.fac.NewMemberCall(r.nextID(), call.FunctionName(), r.lowerBinds(call.Target(), false), lowered...)
		}
		return r.fac.NewCall(r.nextID(), call.FunctionName(), lowered...)
	}
	name, value, body := args[0].AsIdent(), r.lowerBinds(args[1], false), r.lowerBinds(args[2], isBool)
	if isIdent(body, name) {
		return value
	}
	if lookups, ok := selectionLookups(value); ok && lookups*(uses(body, name)-1) <= maxRepeatedLookups {
		return r.replace(body, func(e ast.Expr) (ast.Expr, bool) {
			if isIdent(e, name) {
				return r.fac.CopyExpr(value), true
			}
			return nil, false
		})
	}
	list := r.fac.NewList(r.nextID(), []ast.Expr{value}, nil)
	if isBool {
		return r.fac.NewMemberCall(r.nextID(), "all", list, r.fac.NewIdent(r.nextID(), name), body)
	}
	mapped := r.fac.NewMemberCall(r.nextID(), "map", list, r.fac.NewIdent(r.nextID(), name), body)
	return r.fac.NewCall(r.nextID(), "_[_]", mapped, r.fac.NewLiteral(r.nextID(), types.Int(0)))
}

// selectionLookups counts the lookups of an expression that only selects:
// a name, then fields and indexes by string literals or names.
func selectionLookups(e ast.Expr) (int, bool) {
	switch e.Kind() {
	case ast.IdentKind:
		return 0, true
	case ast.SelectKind:
		if e.AsSelect().IsTestOnly() {
			return 0, false
		}
		n, ok := selectionLookups(e.AsSelect().Operand())
		return n + 1, ok
	case ast.CallKind:
		call := e.AsCall()
		if call.FunctionName() != "_[_]" || len(call.Args()) != 2 {
			return 0, false
		}
		if _, isString := literalString(call.Args()[1]); !isString && call.Args()[1].Kind() != ast.IdentKind {
			return 0, false
		}
		n, ok := selectionLookups(call.Args()[0])
		return n + 1, ok
	}
	return 0, false
}

// maxWrittenOut is how many items of a list built in the expression all
// writes out: each copies the body.
const maxWrittenOut = 2

// all is list.all(name, body). A list the expression builds, as a walk
// builds the places a path reaches, is written out when it has few items:
// a conditional or a bind chooses among lists, a literal list is the
// conjunction of body for each item, a concatenation that of its parts.
// No list is built, and an item's fields are read where they are known.
func (r *rewriter) all(list ast.Expr, name string, body ast.Expr) ast.Expr {
	if items := listItems(list); items < 0 || items > maxWrittenOut {
		return r.fac.NewMemberCall(r.nextID(), "all", list, r.fac.NewIdent(r.nextID(), name), body)
	}
	return r.writeOut(list, name, body)
}

func (r *rewriter) writeOut(list ast.Expr, name string, body ast.Expr) ast.Expr {
	if list.Kind() == ast.ListKind {
		out := r.fac.NewLiteral(r.nextID(), types.True)
		for _, item := range list.AsList().Elements() {
			out = r.and(out, r.forItem(name, item, body))
		}
		return out
	}
	call := list.AsCall()
	args := call.Args()
	switch {
	case isBind(call):
		return r.bind(args[0].AsIdent(), args[1], r.writeOut(args[2], name, body))
	case call.FunctionName() == "_+_":
		return r.and(r.writeOut(args[0], name, body), r.writeOut(args[1], name, body))
	}
	return r.conditional(args[0], r.writeOut(args[1], name, body), r.writeOut(args[2], name, body))
}

// listItems counts the items of a list built of literal lists,
// conditionals, binds and concatenations; -1 for any other.
func listItems(e ast.Expr) int {
	if e.Kind() == ast.ListKind {
		return len(e.AsList().Elements())
	}
	if e.Kind() != ast.CallKind {
		return -1
	}
	call := e.AsCall()
	args := call.Args()
	var parts []ast.Expr
	switch {
	case isBind(call):
		parts = args[2:]
	case call.FunctionName() == "_+_" && len(args) == 2:
		parts = args
	case call.FunctionName() == "_?_:_" && len(args) == 3:
		parts = args[1:]
	default:
		return -1
	}
	n := 0
	for _, p := range parts {
		items := listItems(p)
		if items < 0 {
			return -1
		}
		n += items
	}
	return n
}

// forItem is body with name bound to item. An item that is a map literal
// with string keys, as a walk's place {'p': path, 'v': value, 'f':
// found}, is not built: name.key reads a literal value as written and
// any other through a bind of its own.
func (r *rewriter) forItem(name string, item, body ast.Expr) ast.Expr {
	if item.Kind() != ast.MapKind {
		return r.bind(name, item, body)
	}
	fields := map[string]ast.Expr{}
	for _, entry := range item.AsMap().Entries() {
		field := entry.AsMapEntry()
		key, ok := literalString(field.Key())
		if !ok || field.IsOptional() {
			return r.bind(name, item, body)
		}
		fields[key] = undyn(field.Value())
	}
	var keys []string // read through a bind, in order
	bound := map[string]string{}
	body = r.replace(body, func(e ast.Expr) (ast.Expr, bool) {
		if e.Kind() != ast.SelectKind || e.AsSelect().IsTestOnly() || !isIdent(e.AsSelect().Operand(), name) {
			return nil, false
		}
		key := e.AsSelect().FieldName()
		value, ok := fields[key]
		switch {
		case !ok:
			return nil, false
		case value.Kind() == ast.LiteralKind:
			return r.fac.CopyExpr(value), true
		case bound[key] == "":
			keys = append(keys, key)
			bound[key] = fmt.Sprintf("%s_%s%d", name, key, r.nextID())
		}
		return r.fac.NewIdent(r.nextID(), bound[key]), true
	})
	body = r.fold(body, map[string]bool{})
	for _, key := range keys {
		body = r.bind(bound[key], fields[key], body)
	}
	return r.bind(name, item, body)
}

// undyn is e without a dyn() around it, which only the type checker reads.
func undyn(e ast.Expr) ast.Expr {
	if e.Kind() == ast.CallKind && e.AsCall().FunctionName() == "dyn" && len(e.AsCall().Args()) == 1 && !e.AsCall().IsMemberFunction() {
		return e.AsCall().Args()[0]
	}
	return e
}

func literalString(e ast.Expr) (string, bool) {
	if e.Kind() != ast.LiteralKind {
		return "", false
	}
	s, ok := e.AsLiteral().(types.String)
	return string(s), ok
}

// conditional is c ? a : b, without the conditional when a and b are
// literals: (c ? [] : [finding]) has no findings exactly when c holds.
func (r *rewriter) conditional(c, a, b ast.Expr) ast.Expr {
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
func (r *rewriter) and(a, b ast.Expr) ast.Expr {
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

// replace rebuilds e with each expression for which with gives a
// replacement replaced, looking into those it does not replace.
func (r *rewriter) replace(e ast.Expr, with func(ast.Expr) (ast.Expr, bool)) ast.Expr {
	if out, ok := with(e); ok {
		return out
	}
	each := func(es []ast.Expr) []ast.Expr {
		out := make([]ast.Expr, len(es))
		for i, e := range es {
			out[i] = r.replace(e, with)
		}
		return out
	}
	switch e.Kind() {
	case ast.CallKind:
		call := e.AsCall()
		if call.IsMemberFunction() {
			return r.fac.NewMemberCall(r.nextID(), call.FunctionName(), r.replace(call.Target(), with), each(call.Args())...)
		}
		return r.fac.NewCall(r.nextID(), call.FunctionName(), each(call.Args())...)
	case ast.ListKind:
		return r.fac.NewList(r.nextID(), each(e.AsList().Elements()), e.AsList().OptionalIndices())
	case ast.MapKind:
		entries := e.AsMap().Entries()
		out := make([]ast.EntryExpr, len(entries))
		for i, entry := range entries {
			field := entry.AsMapEntry()
			out[i] = r.fac.NewMapEntry(r.nextID(), r.replace(field.Key(), with), r.replace(field.Value(), with), field.IsOptional())
		}
		return r.fac.NewMap(r.nextID(), out)
	case ast.SelectKind:
		sel := e.AsSelect()
		if sel.IsTestOnly() {
			return r.fac.NewPresenceTest(r.nextID(), r.replace(sel.Operand(), with), sel.FieldName())
		}
		return r.fac.NewSelect(r.nextID(), r.replace(sel.Operand(), with), sel.FieldName())
	}
	return e
}

// children rebuilds e with each of its children rewritten by with.
func (r *rewriter) children(e ast.Expr, with func(ast.Expr) ast.Expr) ast.Expr {
	return r.replace(e, func(child ast.Expr) (ast.Expr, bool) {
		if child == e {
			return nil, false
		}
		return with(child), true
	})
}

// fold simplifies e where its value is known: operators on true and
// false, and every test that facts, the conditions e is evaluated under,
// already decided. A conjunction's later parts are evaluated under its
// earlier ones, a conditional's branch under its condition: the
// requirements of a rule test a value, and its ratio tests it again.
// Generated names are never reused, so a test means the same wherever it
// is written.
func (r *rewriter) fold(e ast.Expr, facts map[string]bool) ast.Expr {
	if len(facts) > 0 && facts[r.text(e)] {
		return r.fac.NewLiteral(r.nextID(), types.True)
	}
	if e.Kind() != ast.CallKind {
		return r.children(e, func(child ast.Expr) ast.Expr { return r.fold(child, facts) })
	}
	call := e.AsCall()
	args := call.Args()
	switch call.FunctionName() {
	case "_&&_":
		known := maps.Clone(facts)
		out := r.fac.NewLiteral(r.nextID(), types.True)
		for _, c := range conjuncts(e) {
			c = r.fold(c, known)
			known[r.text(c)] = true
			out = r.and(out, c)
		}
		return out
	case "_||_":
		a, b := r.fold(args[0], facts), r.fold(args[1], facts)
		if lit := boolLiteral(a); lit != nil {
			return map[bool]ast.Expr{true: a, false: b}[*lit]
		}
		if lit := boolLiteral(b); lit != nil {
			return map[bool]ast.Expr{true: b, false: a}[*lit]
		}
		return r.fac.NewCall(r.nextID(), "_||_", a, b)
	case "_?_:_":
		c := r.fold(args[0], facts)
		if lit := boolLiteral(c); lit != nil {
			return r.fold(args[map[bool]int{true: 1, false: 2}[*lit]], facts)
		}
		then := maps.Clone(facts)
		then[r.text(c)] = true
		return r.conditional(c, r.fold(args[1], then), r.fold(args[2], facts))
	case "all":
		if list, name := call.Target(), args[0]; call.IsMemberFunction() && len(args) == 2 && name.Kind() == ast.IdentKind {
			if items := listItems(list); items >= 0 && items <= maxWrittenOut {
				return r.fold(r.writeOut(list, name.AsIdent(), args[1]), facts)
			}
		}
	case "!_":
		a := r.fold(args[0], facts)
		if lit := boolLiteral(a); lit != nil {
			return r.fac.NewLiteral(r.nextID(), types.Bool(!*lit))
		}
		if a.Kind() == ast.CallKind && a.AsCall().FunctionName() == "!_" {
			return a.AsCall().Args()[0]
		}
		return r.fac.NewCall(r.nextID(), "!_", a)
	}
	return r.children(e, func(child ast.Expr) ast.Expr { return r.fold(child, facts) })
}

// conjuncts are the operands of a chain of &&.
func conjuncts(e ast.Expr) []ast.Expr {
	if e.Kind() != ast.CallKind || e.AsCall().FunctionName() != "_&&_" {
		return []ast.Expr{e}
	}
	return slices.Concat(conjuncts(e.AsCall().Args()[0]), conjuncts(e.AsCall().Args()[1]))
}

// text is e as CEL source, which identifies an expression.
func (r *rewriter) text(e ast.Expr) string {
	s, err := parser.Unparse(e, r.info)
	if err != nil {
		return fmt.Sprintf("unprintable %d", e.ID()) // never equal to another
	}
	return s
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
func references(e ast.Expr, name string) bool { return uses(e, name) > 0 }

// uses counts where e uses the name.
func uses(e ast.Expr, name string) int {
	n := 0
	ast.PostOrderVisit(e, ast.NewExprVisitor(func(e ast.Expr) {
		if isIdent(e, name) {
			n++
		}
	}))
	return n
}

// maxExprID is the largest ID in e, so that new expressions get new ones.
func maxExprID(e ast.Expr) int64 {
	var id int64
	ast.PostOrderVisit(e, ast.NewExprVisitor(func(e ast.Expr) { id = max(id, e.ID()) }))
	return id
}
