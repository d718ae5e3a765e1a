package schema

import (
	"context"
	"math"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	apiextensionscel "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/utils/ptr"
)

// celCheck is the fast accept path for x-kubernetes-validations: the
// programs upstream's cel.Compile makes of each schema node's rules,
// compiled once per node as upstream's cel.NewValidator compiles them, and
// evaluated on the object the strategy validates, with CEL values built on
// celSchema rather than on upstream's adapter. It may only ever say
// "valid": every rule upstream would evaluate returned true, without an
// error, within the same per-call cost limit and runtime budget, so
// upstream's CEL validator would report nothing and record no warning.
// Any other outcome (a false rule, an error, a cost overrun, an update
// reaching a rule that reads oldSelf) goes to upstream for its errors,
// messageExpressions and ratcheting warnings.
type celCheck struct {
	root *celNode
}

// celNode is a schema node with rules at or below it, in the shape of
// upstream's cel.Validator tree: nodes without rules below are nil.
type celNode struct {
	// self adapts the node's schema for its CEL values: at a resource root
	// (the object's, or an embedded resource's) with apiVersion, kind and
	// metadata.name/generateName added, as upstream evaluates it.
	self  common.Schema
	rules []celRule
	// compileFailed says that the node's rules did not all compile;
	// upstream reports that as an error wherever the node has a value.
	compileFailed bool
	// readsOldSelf says that one of rules reads oldSelf.
	readsOldSelf bool

	items, additionalProperties *celNode
	properties                  map[string]*celNode
}

// celRule is one compiled rule; program is nil for an empty rule, which
// upstream skips.
type celRule struct {
	program                       celgo.Program
	readsOldSelf, optionalOldSelf bool
}

// compileCELCheck compiles the rules of s, the root of a custom resource's
// schema. It returns nil when s has no rules, and when it has rules the
// check does not walk: rules inside allOf, which upstream evaluates at the
// node that holds the allOf; objects of such a schema always go to
// upstream.
func compileCELCheck(s *structuralschema.Structural) *celCheck {
	if !hasRules(s) || hasNestedRules(s) {
		return nil
	}
	return &celCheck{root: compileCELNode(s, true, model.SchemaDeclType(s, true))}
}

// compileCELNode mirrors how cel.NewValidator builds its tree: the same
// declaration types per node (a property's from its parent's fields, by
// its escaped name, or from its own schema when the name cannot be
// escaped), the same per-call limit and environment.
func compileCELNode(s *structuralschema.Structural, isResourceRoot bool, declType *apiservercel.DeclType) *celNode {
	n := &celNode{}
	results, err := apiextensionscel.Compile(s, declType, celconfig.PerCallLimit,
		environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()), apiextensionscel.StoredExpressionsEnvLoader())
	n.compileFailed = err != nil
	for i, result := range results {
		if result.Error != nil {
			n.compileFailed = true
		}
		n.readsOldSelf = n.readsOldSelf || result.UsesOldSelf
		n.rules = append(n.rules, celRule{
			program:         result.Program,
			readsOldSelf:    result.UsesOldSelf,
			optionalOldSelf: ptr.Deref(s.XValidations[i].OptionalOldSelf, false),
		})
	}
	var elemType *apiservercel.DeclType
	if declType != nil {
		elemType = declType.ElemType
	}
	if s.Items != nil && hasRules(s.Items) {
		n.items = compileCELNode(s.Items, s.Items.XEmbeddedResource, elemType)
	}
	for name, prop := range s.Properties {
		if !hasRules(&prop) {
			continue
		}
		var propType *apiservercel.DeclType
		if escaped, ok := apiservercel.Escape(name); ok {
			if declType == nil || declType.Fields[escaped] == nil {
				continue // upstream leaves fields without a CEL type out
			}
			propType = declType.Fields[escaped].Type
		} else if propType = model.SchemaDeclType(&prop, prop.XEmbeddedResource); propType == nil {
			continue
		}
		if n.properties == nil {
			n.properties = map[string]*celNode{}
		}
		n.properties[name] = compileCELNode(&prop, prop.XEmbeddedResource, propType)
	}
	if ap := s.AdditionalProperties; ap != nil && ap.Structural != nil && hasRules(ap.Structural) {
		n.additionalProperties = compileCELNode(ap.Structural, ap.Structural.XEmbeddedResource, elemType)
	}
	self := s
	if isResourceRoot {
		self = model.WithTypeAndObjectMeta(s)
	}
	n.self = newCELSchema(self)
	return n
}

// accepts tells whether upstream's CEL validator certainly reports
// nothing for obj, the object the strategy validates (update: for an
// update, where rules reading oldSelf send obj to upstream).
func (c *celCheck) accepts(ctx context.Context, obj any, update bool) bool {
	w := &celWalk{ctx: ctx, update: update, budget: celconfig.RuntimeCELCostBudget}
	return w.accepts(c.root, obj)
}

// celWalk is one evaluation of a celCheck: what it was asked, the cost
// budget left, and the activations of the node being evaluated, reused
// from node to node (cel-go keeps none once an evaluation returns).
type celWalk struct {
	ctx    context.Context
	update bool
	budget int64

	activation, optionalActivation celActivation
}

// accepts walks obj as upstream's validator does: the node's rules, then
// the array's items or the map's additionalProperties and properties. A
// null has no rules evaluated, at any depth.
func (w *celWalk) accepts(n *celNode, obj any) bool {
	if n == nil || obj == nil {
		return true
	}
	if !w.evaluate(n, obj) {
		return false
	}
	switch obj := obj.(type) {
	case []any:
		if n.items != nil {
			for _, item := range obj {
				if !w.accepts(n.items, item) {
					return false
				}
			}
		}
	case map[string]any:
		if n.additionalProperties != nil {
			for _, value := range obj {
				if !w.accepts(n.additionalProperties, value) {
					return false
				}
			}
		}
		for name, prop := range n.properties {
			if !w.accepts(prop, obj[name]) {
				return false
			}
		}
	}
	return true
}

// evaluate runs the node's rules on obj, and tells whether all are true.
// It charges the budget with their actual costs and refuses before the
// budget is spent: the total of all rules stays below upstream's budget,
// whatever order upstream's map iteration takes them in, so upstream
// never runs out of it.
func (w *celWalk) evaluate(n *celNode, obj any) bool {
	if n.compileFailed || (w.update && n.readsOldSelf) {
		// A rule reading oldSelf compares with the stored object through
		// upstream's correlation of old and new values: left to upstream.
		return false
	}
	if len(n.rules) == 0 {
		return true
	}
	w.activation = celActivation{self: common.UnstructuredToVal(obj, n.self)}
	w.optionalActivation = celActivation{self: w.activation.self, oldSelf: types.OptionalNone}
	for _, rule := range n.rules {
		if rule.program == nil {
			continue
		}
		activation := &w.activation
		if rule.readsOldSelf || rule.optionalOldSelf {
			// On a create there is no old value: upstream skips a
			// transition rule, and gives a rule with optionalOldSelf
			// (CRDValidationRatcheting is locked on) an empty oldSelf.
			if !rule.optionalOldSelf {
				continue
			}
			activation = &w.optionalActivation
		}
		result, details, err := rule.program.ContextEval(w.ctx, activation)
		if details == nil {
			return false
		}
		cost := details.ActualCost()
		if cost == nil || *cost > math.MaxInt64 || int64(*cost) >= w.budget {
			return false
		}
		w.budget -= int64(*cost)
		if err != nil || result != types.True {
			return false
		}
	}
	return true
}

// celActivation resolves self, and oldSelf when it is set, as upstream's
// activations do.
type celActivation struct {
	self, oldSelf ref.Val
}

func (a *celActivation) ResolveName(name string) (any, bool) {
	switch name {
	case apiextensionscel.ScopedVarName:
		return a.self, true
	case apiextensionscel.OldScopedVarName:
		return a.oldSelf, a.oldSelf != nil
	}
	return nil, false
}

func (a *celActivation) Parent() interpreter.Activation { return nil }

// hasRules tells whether s or a schema below it (items, properties,
// additionalProperties) holds x-kubernetes-validations: what upstream's
// cel.NewValidator looks for.
func hasRules(s *structuralschema.Structural) bool {
	if s == nil {
		return false
	}
	if len(s.XValidations) > 0 || hasRules(s.Items) {
		return true
	}
	if s.AdditionalProperties != nil && hasRules(s.AdditionalProperties.Structural) {
		return true
	}
	for _, prop := range s.Properties {
		if hasRules(&prop) {
			return true
		}
	}
	return false
}

// hasNestedRules tells whether an allOf, anyOf, oneOf or not anywhere in s
// holds x-kubernetes-validations.
func hasNestedRules(s *structuralschema.Structural) bool {
	if s == nil {
		return false
	}
	if s.ValueValidation != nil && valueValidationHasRules(s.ValueValidation) {
		return true
	}
	if hasNestedRules(s.Items) {
		return true
	}
	if s.AdditionalProperties != nil && hasNestedRules(s.AdditionalProperties.Structural) {
		return true
	}
	for _, prop := range s.Properties {
		if hasNestedRules(&prop) {
			return true
		}
	}
	return false
}

func valueValidationHasRules(v *structuralschema.ValueValidation) bool {
	nested := append(append(append([]structuralschema.NestedValueValidation{}, v.AllOf...), v.AnyOf...), v.OneOf...)
	if v.Not != nil {
		nested = append(nested, *v.Not)
	}
	for i := range nested {
		if nestedHasRules(&nested[i]) {
			return true
		}
	}
	return false
}

func nestedHasRules(n *structuralschema.NestedValueValidation) bool {
	if n == nil {
		return false
	}
	if len(n.ValidationExtensions.XValidations) > 0 || valueValidationHasRules(&n.ValueValidation) || nestedHasRules(n.Items) {
		return true
	}
	for _, prop := range n.Properties {
		if nestedHasRules(&prop) {
			return true
		}
	}
	return nestedHasRules(n.AdditionalProperties)
}

// withoutRules returns s without any x-kubernetes-validations on its
// structural spine, so that a strategy built on it runs no CEL. Nodes
// without rules below are shared with s, not copied.
func withoutRules(s *structuralschema.Structural) *structuralschema.Structural {
	if !hasRules(s) {
		return s
	}
	out := *s
	out.XValidations = nil
	out.Items = withoutRules(s.Items)
	if s.AdditionalProperties != nil {
		ap := *s.AdditionalProperties
		ap.Structural = withoutRules(ap.Structural)
		out.AdditionalProperties = &ap
	}
	if s.Properties != nil {
		out.Properties = make(map[string]structuralschema.Structural, len(s.Properties))
		for name, prop := range s.Properties {
			out.Properties[name] = *withoutRules(&prop)
		}
	}
	return &out
}
