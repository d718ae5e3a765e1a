package webhook

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// Routing tells which requests the ValidatingWebhookConfigurations send to
// /validate. A GuardPolicy is enforced only on what they send: one whose
// kinds no rule routes is stored and silently never applied, so crdguard
// names those kinds (a /validate-policy warning, a metric) instead.
//
// Rules are compared by group, version, resource, scope and operation;
// namespace and object selectors, which narrow a rule per request, are not.
type Routing struct {
	// Reader reads the configurations by name.
	Reader client.Reader
	// Mapper finds the resource of each kind a policy names.
	Mapper meta.RESTMapper
	// Configurations are the names of the configurations to read.
	Configurations []string
}

// allOperations are what a match without operations selects.
var allOperations = []v1alpha1.Operation{v1alpha1.Create, v1alpha1.Update, v1alpha1.Delete}

// Unrouted lists what match selects and no configuration sends to
// /validate, one entry per kind: "MySQLCluster.db.example.io v1 (DELETE)".
func (r *Routing) Unrouted(ctx context.Context, match v1alpha1.Match) ([]string, error) {
	rules, err := r.ValidateRules(ctx)
	if err != nil {
		return nil, err
	}
	return r.unrouted(rules, match)
}

// unrouted is Unrouted against rules read once.
func (r *Routing) unrouted(rules []admissionregistrationv1.RuleWithOperations, match v1alpha1.Match) ([]string, error) {
	kinds, err := unroutedKinds(r.Mapper, rules, match)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.String()
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// UnroutedResources lists what match selects and rules do not route, by
// group, version and resource, in match order, as a status condition
// names them: "db.example.io/v1/mysqlclusters (DELETE)".
func (r *Routing) UnroutedResources(rules []admissionregistrationv1.RuleWithOperations, match v1alpha1.Match) ([]string, error) {
	kinds, err := unroutedKinds(r.Mapper, rules, match)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.resourceString()
	}
	return out, nil
}

// unroutedKind is one kind, or one version of it, that some of a match's
// operations do not reach through a set of rules.
type unroutedKind struct {
	kind schema.GroupKind
	// every: the match names every kind of kind.Group.
	every bool
	// resource is what the kind is served as; zero when it is not served.
	resource schema.GroupVersionResource
	ops      []string
}

// String is the kind as the /validate-policy warning names it:
// "MySQLCluster.db.example.io v1 (DELETE)".
func (u unroutedKind) String() string {
	switch {
	case u.every:
		return fmt.Sprintf("every kind of group %q (%s)", u.kind.Group, strings.Join(u.ops, ", "))
	case u.resource.Resource == "":
		return fmt.Sprintf("%s (not served)", u.kind)
	}
	return fmt.Sprintf("%s %s (%s)", u.kind, u.resource.Version, strings.Join(u.ops, ", "))
}

// resourceString is the kind by group, version and resource, as a
// status condition names it: "db.example.io/v1/mysqlclusters (DELETE)".
func (u unroutedKind) resourceString() string {
	switch {
	case u.every:
		return fmt.Sprintf("%s/*/* (%s)", u.kind.Group, strings.Join(u.ops, ", "))
	case u.resource.Resource == "":
		return fmt.Sprintf("%s (no API serves it)", u.kind)
	}
	return fmt.Sprintf("%s/%s (%s)", u.resource.GroupVersion(), u.resource.Resource, strings.Join(u.ops, ", "))
}

// unroutedKinds lists what match selects and rules do not route, one
// entry per kind and version, in match order.
func unroutedKinds(mapper meta.RESTMapper, rules []admissionregistrationv1.RuleWithOperations, match v1alpha1.Match) ([]unroutedKind, error) {
	ops := match.Operations
	if len(ops) == 0 {
		ops = allOperations
	}
	var out []unroutedKind
	for _, rm := range match.Resources {
		for _, kind := range rm.Kinds {
			if kind == "*" || rm.Group == "*" {
				if missing := missingOps(rules, ops, rm.Group, "*", "*", ""); len(missing) > 0 {
					out = append(out, unroutedKind{kind: schema.GroupKind{Group: rm.Group, Kind: "*"}, every: true, ops: missing})
				}
				continue
			}
			gk := schema.GroupKind{Group: rm.Group, Kind: kind}
			var versions []string
			if !slices.Contains(rm.Versions, "*") {
				versions = rm.Versions
			}
			mappings, err := mapper.RESTMappings(gk, versions...)
			if meta.IsNoMatchError(err) || err == nil && len(mappings) == 0 {
				out = append(out, unroutedKind{kind: gk, ops: opStrings(ops)})
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("finding the resource of %s: %w", gk, err)
			}
			for _, m := range mappings {
				scope := admissionregistrationv1.ClusterScope
				if m.Scope.Name() == meta.RESTScopeNameNamespace {
					scope = admissionregistrationv1.NamespacedScope
				}
				if missing := missingOps(rules, ops, m.Resource.Group, m.Resource.Version, m.Resource.Resource, scope); len(missing) > 0 {
					out = append(out, unroutedKind{kind: gk, resource: m.Resource, ops: missing})
				}
			}
		}
	}
	return out, nil
}

func opStrings(ops []v1alpha1.Operation) []string {
	out := make([]string, len(ops))
	for i, op := range ops {
		out[i] = string(op)
	}
	return out
}

// ValidateRules are the rules of the webhooks that call /validate, read
// once so that many policies can be checked against them.
func (r *Routing) ValidateRules(ctx context.Context) ([]admissionregistrationv1.RuleWithOperations, error) {
	var rules []admissionregistrationv1.RuleWithOperations
	for _, name := range r.Configurations {
		var c admissionregistrationv1.ValidatingWebhookConfiguration
		if err := r.Reader.Get(ctx, client.ObjectKey{Name: name}, &c); err != nil {
			return nil, fmt.Errorf("reading ValidatingWebhookConfiguration %s: %w", name, err)
		}
		for _, w := range c.Webhooks {
			if callsValidate(w.ClientConfig) {
				rules = append(rules, w.Rules...)
			}
		}
	}
	return rules, nil
}

// callsValidate tells whether a webhook calls /validate.
func callsValidate(c admissionregistrationv1.WebhookClientConfig) bool {
	if c.Service != nil {
		return c.Service.Path != nil && *c.Service.Path == ValidatePath
	}
	if c.URL == nil {
		return false
	}
	u, err := url.Parse(*c.URL)
	return err == nil && u.Path == ValidatePath
}

// missingOps are the operations of ops no rule routes for the resource.
// resource "*" asks for a rule that routes every resource; scope "" for
// one of any scope.
func missingOps(rules []admissionregistrationv1.RuleWithOperations, ops []v1alpha1.Operation, group, version, resource string, scope admissionregistrationv1.ScopeType) []string {
	var missing []string
	for _, op := range ops {
		if !slices.ContainsFunc(rules, func(rule admissionregistrationv1.RuleWithOperations) bool {
			return routes(rule, op, group, version, resource, scope)
		}) {
			missing = append(missing, string(op))
		}
	}
	return missing
}

// routes tells whether rule sends op on the resource, as the API server
// matches a rule: "*" for every group, version or operation, and "*" or
// "*/*" for every resource.
func routes(rule admissionregistrationv1.RuleWithOperations, op v1alpha1.Operation, group, version, resource string, scope admissionregistrationv1.ScopeType) bool {
	has := func(list []string, v string) bool { return slices.Contains(list, "*") || slices.Contains(list, v) }
	if !slices.ContainsFunc(rule.Operations, func(o admissionregistrationv1.OperationType) bool {
		return o == admissionregistrationv1.OperationAll || string(o) == string(op)
	}) {
		return false
	}
	every := slices.Contains(rule.Resources, "*") || slices.Contains(rule.Resources, "*/*")
	if !has(rule.APIGroups, group) || !has(rule.APIVersions, version) || !(every || resource != "*" && slices.Contains(rule.Resources, resource)) {
		return false
	}
	ruleScope := admissionregistrationv1.AllScopes
	if rule.Scope != nil {
		ruleScope = *rule.Scope
	}
	return ruleScope == admissionregistrationv1.AllScopes || scope == "" || ruleScope == scope
}
