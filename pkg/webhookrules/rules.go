package webhookrules

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
)

// Rules are the admission rules of crdguard's two policy webhooks.
type Rules struct {
	// Validate are the rules of validate.crdguard.dev (/validate).
	Validate []admissionregistrationv1.RuleWithOperations `json:"validate"`
	// Mutate are the rules of mutate.crdguard.dev (/mutate).
	Mutate []admissionregistrationv1.RuleWithOperations `json:"mutate"`
}

// neverRouted are the resources no rule may send to the webhook: the API
// server and every controller write them all the time (node heartbeats,
// leader election, crdguard's own among them), so a webhook that is slow
// or down must never stand in their way.
var neverRouted = []schema.GroupResource{
	{Group: "coordination.k8s.io", Resource: "leases"},
	{Group: "", Resource: "events"},
	{Group: "events.k8s.io", Resource: "events"},
}

// Compute returns the rules that send every request the routes need to the
// webhooks, mapping kinds to resources through mapper.
//
// Every resource rule has scope "*": a resource is of one scope, so its
// name already pins it, and the rules do not depend on whether the mapper
// knows scopes (OfflineMapper does not, for built-in kinds).
//
// An error names every kind that has no resource, and every match that
// would route a resource of neverRouted (kind "*" of the core,
// coordination.k8s.io or events.k8s.io group, or group "*"): leaving any
// of them out would leave a guarded kind unguarded without a word.
func Compute(routes []policies.Route, mapper meta.RESTMapper) (Rules, error) {
	validate, mutate := merger{}, merger{}
	var errs []error
	for _, r := range routes {
		for _, rm := range r.Resources {
			resources, kindErrs := resourcesOf(rm, mapper)
			for _, err := range kindErrs {
				errs = append(errs, fmt.Errorf("GuardPolicy %s: %w", r.Policy, err))
			}
			if len(kindErrs) > 0 {
				continue
			}
			versions := versionsOf(rm)
			validate.add(rm.Group, versions, resources, r.Validate)
			mutate.add(rm.Group, versions, resources, r.Mutate)
		}
	}
	if len(errs) > 0 {
		return Rules{}, errors.Join(errs...)
	}
	return Rules{Validate: validate.rules(), Mutate: mutate.rules()}, nil
}

// resourcesOf are the resources of rm's kinds, sorted, or what keeps
// them from being routed.
func resourcesOf(rm v1alpha1.ResourceMatch, mapper meta.RESTMapper) ([]string, []error) {
	if rm.Group == "*" {
		return nil, []error{fmt.Errorf(`group "*" cannot be routed: webhook rules name resources within a group, and every kind of every group includes %s; name the groups`, neverRoutedList())}
	}
	var out []string
	var errs []error
	for _, kind := range rm.Kinds {
		if kind == "*" {
			if slices.ContainsFunc(neverRouted, func(gr schema.GroupResource) bool { return gr.Group == rm.Group }) {
				errs = append(errs, fmt.Errorf(`kind "*" of group %q cannot be routed: it includes %s; name the kinds`, rm.Group, neverRoutedList()))
				continue
			}
			out = append(out, "*")
			continue
		}
		gk := schema.GroupKind{Group: rm.Group, Kind: kind}
		mappings, err := mapper.RESTMappings(gk)
		if meta.IsNoMatchError(err) || err == nil && len(mappings) == 0 {
			errs = append(errs, fmt.Errorf("kind %s has no resource: no CRD or built-in API serves it", gk))
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("finding the resource of kind %s: %w", gk, err))
			continue
		}
		for _, m := range mappings {
			gr := m.Resource.GroupResource()
			if slices.Contains(neverRouted, gr) {
				errs = append(errs, fmt.Errorf("kind %s cannot be routed: crdguard never guards %s", gk, neverRoutedList()))
				break
			}
			out = append(out, m.Resource.Resource)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), errs
}

// versionsOf are rm's versions, sorted; none or "*" is every version.
func versionsOf(rm v1alpha1.ResourceMatch) []string {
	if len(rm.Versions) == 0 || slices.Contains(rm.Versions, "*") {
		return []string{"*"}
	}
	out := slices.Clone(rm.Versions)
	slices.Sort(out)
	return slices.Compact(out)
}

func neverRoutedList() string {
	names := make([]string, len(neverRouted))
	for i, gr := range neverRouted {
		names[i] = gr.String()
	}
	return strings.Join(names, ", ")
}

// groupVersions is the key of resources that share a rule's apiGroups and
// apiVersions.
type groupVersions struct {
	group    string
	versions string // joined by ","
}

// merger unions the operations each resource needs, per group and versions.
type merger map[groupVersions]map[string][]v1alpha1.Operation

func (m merger) add(group string, versions, resources []string, ops []v1alpha1.Operation) {
	if len(ops) == 0 {
		return
	}
	key := groupVersions{group: group, versions: strings.Join(versions, ",")}
	if m[key] == nil {
		m[key] = map[string][]v1alpha1.Operation{}
	}
	for _, r := range resources {
		m[key][r] = append(m[key][r], ops...)
	}
}

// rules are one rule per group, versions and set of operations, naming
// every resource that needs exactly those operations, sorted by group,
// versions, operations and resources.
func (m merger) rules() []admissionregistrationv1.RuleWithOperations {
	all := admissionregistrationv1.AllScopes
	out := []admissionregistrationv1.RuleWithOperations{}
	for key, resources := range m {
		byOps := map[string]*admissionregistrationv1.RuleWithOperations{}
		for resource, ops := range resources {
			operations := operationsOf(ops)
			sig := fmt.Sprint(operations)
			rule, ok := byOps[sig]
			if !ok {
				rule = &admissionregistrationv1.RuleWithOperations{
					Operations: operations,
					Rule: admissionregistrationv1.Rule{
						APIGroups:   []string{key.group},
						APIVersions: strings.Split(key.versions, ","),
						Scope:       &all,
					},
				}
				byOps[sig] = rule
			}
			rule.Resources = append(rule.Resources, resource)
		}
		for _, rule := range byOps {
			slices.Sort(rule.Resources)
			out = append(out, *rule)
		}
	}
	slices.SortFunc(out, compareRules)
	return out
}

// operationsOf are ops without repeats, in CREATE, UPDATE, DELETE order.
func operationsOf(ops []v1alpha1.Operation) []admissionregistrationv1.OperationType {
	var out []admissionregistrationv1.OperationType
	for _, op := range []v1alpha1.Operation{v1alpha1.Create, v1alpha1.Update, v1alpha1.Delete} {
		if slices.Contains(ops, op) {
			out = append(out, admissionregistrationv1.OperationType(op))
		}
	}
	return out
}

func compareRules(a, b admissionregistrationv1.RuleWithOperations) int {
	return cmp.Or(
		slices.Compare(a.APIGroups, b.APIGroups),
		slices.Compare(a.APIVersions, b.APIVersions),
		slices.Compare(a.Resources, b.Resources),
		slices.Compare(a.Operations, b.Operations),
	)
}
