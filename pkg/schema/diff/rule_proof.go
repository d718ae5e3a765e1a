package diff

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/parser"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiserver/pkg/cel/environment"
)

// A new or changed x-kubernetes-validations rule breaks the objects already
// stored only if one of them can fail it. ruleProof shows, where it can,
// that none can: it evaluates the rule's CEL AST over what every object
// valid under the old schema is known to hold, in three values (true, false,
// unknown), and tries to derive the rule from the old rules of the same
// node. What it knows is deliberately little, so that it is sound:
//
//   - a property the old schema did not declare (and did not keep as an
//     unknown field) was pruned from every stored object: it is absent, or,
//     when the new schema defaults it, equal to its default, which the API
//     server applies when it reads the object;
//   - a property the old schema required, or the new one defaults, is
//     present;
//   - a property with an old enum holds one of the old enum's values;
//   - the old rules of the node held when the object was written.
//
// CEL's && and || are commutative over errors (false && error is false), so
// a false operand decides && and a true one || whatever the others do. Any
// other expression is unknown, and a rule whose value is unknown stays
// breaking: only a replay of the stored objects (--objects) decides it.

// ruleEnv parses rules as the API server does: its stored-expressions
// environment, with the same macros and syntax. Parsing needs no type
// declarations, so the environment is shared by every schema.
var ruleEnv = sync.OnceValue(func() *cel.Env {
	return environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()).StoredExpressionsEnv()
})

// parsedRule is a rule's AST, or nil when it does not parse (the CRD was
// validated, so only a rule beyond this parser's version does not).
type parsedRule struct {
	text string
	ast  *ast.AST
}

func parseRule(text string) parsedRule {
	parsed, iss := ruleEnv().Parse(text)
	if iss != nil && iss.Err() != nil {
		return parsedRule{text: text}
	}
	return parsedRule{text: text, ast: parsed.NativeRep()}
}

// truth is a boolean expression's value on every object valid under the old
// schema.
type truth int8

const (
	unknown truth = iota
	alwaysTrue
	alwaysFalse
)

// verdict is a truth with the facts that decided it, for the message.
type verdict struct {
	truth truth
	why   []string
}

// ruleScope is the node a rule is attached to, as the old and the new
// schema declare it, and the rule's source, for printing sub-expressions.
type ruleScope struct {
	old, new *apiextensionsv1.JSONSchemaProps
	info     *ast.SourceInfo
}

// holdsOnStored tells whether rule is true on every object valid under the
// old schema, and why.
func holdsOnStored(node *Node, rule parsedRule) (bool, []string) {
	if rule.ast == nil {
		return false, nil
	}
	s := ruleScope{old: node.Old, new: node.New, info: rule.ast.SourceInfo()}
	v := s.eval(rule.ast.Expr())
	return v.truth == alwaysTrue, v.why
}

// impliedByOld tells whether the old rules of the node, which every stored
// object passed, imply rule: each old rule that reads only the object
// (not oldSelf, which a stored object was never checked against on create)
// is a premise.
func impliedByOld(node *Node, oldRules []apiextensionsv1.ValidationRule, rule parsedRule) bool {
	if rule.ast == nil {
		return false
	}
	var premises []premise
	for _, r := range oldRules {
		p := parseRule(r.Rule)
		if p.ast == nil || readsOldSelf(p.ast.Expr()) {
			continue
		}
		premises = append(premises, premise{p.ast.Expr(), p.ast.SourceInfo()})
	}
	s := ruleScope{old: node.Old, new: node.New, info: rule.ast.SourceInfo()}
	return s.implied(premises, rule.ast.Expr(), 0)
}

// premise is an expression known true, with its rule's source.
type premise struct {
	expr ast.Expr
	info *ast.SourceInfo
}

func (p premise) operands(function string) []premise {
	if p.expr.Kind() != ast.CallKind || p.expr.AsCall().FunctionName() != function {
		return nil
	}
	var out []premise
	for _, a := range p.expr.AsCall().Args() {
		out = append(out, premise{a, p.info})
	}
	return out
}

// maxImplicationDepth bounds the search: rules are short, and an
// implication not found within it is reported as not shown.
const maxImplicationDepth = 8

// implied tells whether goal follows from the premises, by a few sound
// steps: goal is a premise or true on every stored object anyway; a
// conjunction follows when both sides do, a disjunction when one side
// does; a premise a && b gives a and b, and from a premise a || b the goal
// must follow in both cases. So "a" implies "a || b", the way a rule is
// loosened.
func (s ruleScope) implied(premises []premise, goal ast.Expr, depth int) bool {
	if depth > maxImplicationDepth {
		return false
	}
	text := unparse(goal, s.info)
	for _, p := range premises {
		if unparse(p.expr, p.info) == text {
			return true
		}
	}
	if s.eval(goal).truth == alwaysTrue {
		return true
	}
	// The steps that lose nothing first: splitting a goal's && and a
	// premise's &&; then trying each side of a goal's ||; then the cases of
	// a premise's ||.
	if and := (premise{goal, s.info}).operands(operators.LogicalAnd); and != nil {
		for _, c := range and {
			if !s.implied(premises, c.expr, depth+1) {
				return false
			}
		}
		return true
	}
	for i, p := range premises {
		if and := p.operands(operators.LogicalAnd); and != nil {
			return s.implied(append(slices.Delete(slices.Clone(premises), i, i+1), and...), goal, depth+1)
		}
	}
	for _, c := range (premise{goal, s.info}).operands(operators.LogicalOr) {
		if s.implied(premises, c.expr, depth+1) {
			return true
		}
	}
	for i, p := range premises {
		if or := p.operands(operators.LogicalOr); or != nil {
			rest := slices.Delete(slices.Clone(premises), i, i+1)
			for _, c := range or {
				if !s.implied(append(slices.Clone(rest), c), goal, depth+1) {
					return false
				}
			}
			return true
		}
	}
	return false
}

func readsOldSelf(e ast.Expr) bool {
	found := false
	ast.PostOrderVisit(e, ast.NewExprVisitor(func(x ast.Expr) {
		if x.Kind() == ast.IdentKind && x.AsIdent() == "oldSelf" {
			found = true
		}
	}))
	return found
}

// unparse prints an expression as CEL text, the same for the same
// expression whatever its spacing or parentheses.
func unparse(e ast.Expr, info *ast.SourceInfo) string {
	text, err := parser.Unparse(e, info)
	if err != nil {
		return fmt.Sprintf("<%d>", e.ID()) // never equal to another expression
	}
	return text
}

// eval is e's truth on every object valid under the old schema.
func (s ruleScope) eval(e ast.Expr) verdict {
	switch e.Kind() {
	case ast.LiteralKind:
		if b, ok := e.AsLiteral().Value().(bool); ok {
			return verdict{truth: truthOf(b)}
		}
	case ast.SelectKind:
		if e.AsSelect().IsTestOnly() {
			return s.has(e)
		}
	case ast.CallKind:
		return s.evalCall(e)
	}
	return verdict{}
}

func truthOf(b bool) truth {
	if b {
		return alwaysTrue
	}
	return alwaysFalse
}

func (s ruleScope) evalCall(e ast.Expr) verdict {
	call := e.AsCall()
	args := call.Args()
	switch call.FunctionName() {
	case operators.LogicalNot:
		v := s.eval(args[0])
		switch v.truth {
		case alwaysTrue:
			v.truth = alwaysFalse
		case alwaysFalse:
			v.truth = alwaysTrue
		}
		return v
	case operators.LogicalAnd:
		return s.junction(args, alwaysFalse)
	case operators.LogicalOr:
		return s.junction(args, alwaysTrue)
	case operators.Conditional:
		cond := s.eval(args[0])
		switch cond.truth {
		case alwaysTrue:
			return s.eval(args[1]).after(cond.why)
		case alwaysFalse:
			return s.eval(args[2]).after(cond.why)
		}
	case operators.Equals, operators.NotEquals:
		return s.compare(e, call.FunctionName() == operators.Equals)
	}
	return verdict{}
}

func (v verdict) after(why []string) verdict {
	if v.truth == unknown {
		return v
	}
	v.why = append(slices.Clone(why), v.why...)
	return v
}

// junction evaluates && (decisive alwaysFalse) or || (decisive alwaysTrue):
// one decisive operand decides, whatever the others are, even errors.
func (s ruleScope) junction(args []ast.Expr, decisive truth) verdict {
	all := verdict{truth: alwaysTrue}
	if decisive == alwaysTrue {
		all.truth = alwaysFalse
	}
	for _, a := range args {
		v := s.eval(a)
		switch v.truth {
		case decisive:
			return v
		case unknown:
			all.truth = unknown
		}
		all.why = append(all.why, v.why...)
	}
	if all.truth == unknown {
		all.why = nil
	}
	return all
}

// has evaluates has(x.f).
func (s ruleScope) has(e ast.Expr) verdict {
	sel := e.AsSelect()
	parent := s.resolve(sel.Operand())
	if parent == nil || parent.state != fieldPresent || parent.old.Nullable {
		return verdict{}
	}
	f := s.child(parent, sel.Operand(), sel.FieldName())
	switch f.state {
	case fieldAbsent:
		return verdict{truth: alwaysFalse, why: []string{f.text + " is new: no stored object has it"}}
	case fieldDefaulted:
		return verdict{truth: alwaysTrue, why: []string{f.text + " is new and defaults to " + render(f.value, true)}}
	case fieldPresent:
		return verdict{truth: alwaysTrue}
	}
	return verdict{}
}

// compare evaluates x == literal or x != literal, either way round.
func (s ruleScope) compare(e ast.Expr, equals bool) verdict {
	args := e.AsCall().Args()
	ref, lit := args[0], args[1]
	if ref.Kind() == ast.LiteralKind {
		ref, lit = lit, ref
	}
	if lit.Kind() != ast.LiteralKind {
		return verdict{}
	}
	f := s.resolve(ref)
	if f == nil {
		return verdict{}
	}
	want := jsonValue(lit.AsLiteral().Value())
	eq := unknown
	var why string
	switch {
	case f.state == fieldDefaulted:
		eq = truthOf(render(f.value, true) == want)
		why = f.text + " is new and defaults to " + render(f.value, true)
	case f.state == fieldPresent && len(f.old.Enum) > 0 && !slices.Contains(enumValues(f.old), want):
		eq = alwaysFalse
		why = f.text + " cannot be " + want + ": the old enum lacks it"
	}
	switch {
	case eq == unknown:
		return verdict{}
	case !equals && eq == alwaysTrue:
		eq = alwaysFalse
	case !equals:
		eq = alwaysTrue
	}
	return verdict{truth: eq, why: []string{why}}
}

// jsonValue renders a CEL literal as schema values are rendered (compact
// JSON), so that it compares with enum values and defaults; numbers as
// JSON numbers whatever their CEL type.
func jsonValue(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var x any
	if err := json.Unmarshal(data, &x); err != nil {
		return string(data)
	}
	return render(x, true)
}

// fieldState is what every object valid under the old schema holds at a
// place the rule reads.
type fieldState int8

const (
	// fieldUnknown: it may be there or not.
	fieldUnknown fieldState = iota
	// fieldAbsent: the old schema pruned it, and the new one gives no default.
	fieldAbsent
	// fieldDefaulted: the old schema pruned it, and the new one defaults it.
	fieldDefaulted
	// fieldPresent: the old schema required it or the new one defaults it.
	fieldPresent
)

// fieldRef is a place a rule reads: self, oldSelf, or fields selected from
// them.
type fieldRef struct {
	state fieldState
	// old and new are the place's schemas; old is nil for a new field.
	old, new *apiextensionsv1.JSONSchemaProps
	// value is a defaulted field's default.
	value any
	// text is the place as the rule writes it ("self.spec.mode").
	text string
}

// resolve finds the place e reads, nil when e is not a chain of field
// selections from self or oldSelf, or passes a field that may be absent
// (selecting from an absent field is an error, whose outcome is unknown).
func (s ruleScope) resolve(e ast.Expr) *fieldRef {
	switch e.Kind() {
	case ast.IdentKind:
		if name := e.AsIdent(); name == "self" || name == "oldSelf" {
			return &fieldRef{state: fieldPresent, old: s.old, new: s.new, text: name}
		}
	case ast.SelectKind:
		sel := e.AsSelect()
		if sel.IsTestOnly() {
			return nil
		}
		parent := s.resolve(sel.Operand())
		if parent == nil || parent.state != fieldPresent || parent.old.Nullable {
			return nil
		}
		return s.child(parent, sel.Operand(), sel.FieldName())
	}
	return nil
}

// child is the property name of a present parent.
func (s ruleScope) child(parent *fieldRef, operand ast.Expr, name string) *fieldRef {
	text := unparse(operand, s.info) + "." + name
	newSchema, inNew := parent.new.Properties[name]
	if !inNew {
		return &fieldRef{state: fieldUnknown, text: text}
	}
	oldSchema, inOld := parent.old.Properties[name]
	switch {
	case !inOld && keepsUnknownFields(parent.old, name):
		return &fieldRef{state: fieldUnknown, text: text}
	case !inOld && newSchema.Default != nil:
		var value any
		if err := json.Unmarshal(newSchema.Default.Raw, &value); err != nil {
			return &fieldRef{state: fieldUnknown, text: text}
		}
		return &fieldRef{state: fieldDefaulted, new: &newSchema, value: value, text: text}
	case !inOld:
		return &fieldRef{state: fieldAbsent, new: &newSchema, text: text}
	case newSchema.Default != nil || slices.Contains(parent.old.Required, name):
		return &fieldRef{state: fieldPresent, old: &oldSchema, new: &newSchema, text: text}
	}
	return &fieldRef{state: fieldUnknown, old: &oldSchema, new: &newSchema, text: text}
}

// keepsUnknownFields tells whether the old schema stored a property it did
// not declare: it preserved unknown fields, took any key as a map, or is an
// embedded resource, whose apiVersion, kind and metadata are kept anyway.
func keepsUnknownFields(old *apiextensionsv1.JSONSchemaProps, name string) bool {
	if old.XPreserveUnknownFields != nil && *old.XPreserveUnknownFields {
		return true
	}
	if old.AdditionalProperties != nil && (old.AdditionalProperties.Allows || old.AdditionalProperties.Schema != nil) {
		return true
	}
	return old.XEmbeddedResource && slices.Contains([]string{"apiVersion", "kind", "metadata"}, name)
}

// whyText joins the facts of a proof for a message.
func whyText(why []string) string {
	var facts []string
	for _, w := range why {
		if !slices.Contains(facts, w) {
			facts = append(facts, w)
		}
	}
	return strings.Join(facts, "; ")
}
