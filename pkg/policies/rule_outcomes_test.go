package policies

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/crdguard/crdguard/internal/goldencase"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies/internal/rules"
)

// TestSharedRules: policies with the same rule under other names and
// enforcements share one compiled rule, and each still reports its
// findings under its own policy, rule name and enforcement.
func TestSharedRules(t *testing.T) {
	odd := v1alpha1.CELRule{Expression: "object.spec.replicas >= 3", Message: "at least 3 replicas", FieldPath: "spec.replicas"}
	deny := mysqlPolicy(celRuleSpec("odd", odd))
	deny.Name = "deny"
	warn := mysqlPolicy(celRuleSpec("odd-replicas", odd))
	warn.Name, warn.Spec.Enforcement = "warn", v1alpha1.Warn
	other := mysqlPolicy(celRuleSpec("odd", v1alpha1.CELRule{Expression: odd.Expression, Message: "another message", FieldPath: "spec.replicas"}))
	other.Name = "other"
	engine, err := NewEngine(nil, warn, other, deny)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]rules.Rule{}
	for _, p := range engine.policies {
		byName[p.Name] = p.Rules[0].Rule
	}
	if byName["deny"] != byName["warn"] {
		t.Error("the same rule in two policies compiled twice")
	}
	if byName["deny"] == byName["other"] {
		t.Error("rules with different messages share one compiled rule")
	}

	obj := goldencase.Object(t, `{apiVersion: db.example.io/v1, kind: MySQLCluster, metadata: {name: c, namespace: shop}, spec: {replicas: 2}}`)
	res, err := engine.Evaluate(t.Context(), Request{Operation: v1alpha1.Create, Namespace: "shop", Object: obj})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range res.Violations {
		got = append(got, fmt.Sprintf("%s/%s %s %s: %s", v.Policy, v.Rule, v.Enforcement, v.Field, v.Message))
	}
	want := []string{
		"deny/odd Deny spec.replicas: Invalid value: 2: at least 3 replicas",
		"other/odd Deny spec.replicas: Invalid value: 2: another message",
		"warn/odd-replicas Warn spec.replicas: Invalid value: 2: at least 3 replicas",
	}
	if !slices.Equal(got, want) {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestRuleOutcomesBudget: a rule's findings reused by another policy are
// charged to that policy's CEL budget as if the rule ran again, and a
// policy whose budget cannot cover them runs out of it exactly as it would
// running the rule itself.
func TestRuleOutcomesBudget(t *testing.T) {
	const expr = "lists.range(10).all(i, i >= 0)"
	compiled, errs := rules.CompilePolicy(mysqlPolicy(celRuleSpec("ranges", v1alpha1.CELRule{Expression: expr})), nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	rule := compiled.Rules[0].Rule
	in := &rules.Request{Operation: v1alpha1.Create, Object: goldencase.Object(t, `{apiVersion: db.example.io/v1, kind: MySQLCluster, metadata: {name: c}}`)}
	outcomes := ruleOutcomes{}

	first := rules.WithCELBudget(t.Context())
	full := rules.CELBudgetLeft(first)
	if _, err := outcomes.check(first, rule, in); err != nil {
		t.Fatal(err)
	}
	cost := full - rules.CELBudgetLeft(first)
	if cost <= 0 {
		t.Fatalf("the first run spent %d of the budget", cost)
	}

	reused := rules.WithCELBudget(t.Context())
	if _, err := outcomes.check(reused, rule, in); err != nil {
		t.Fatal(err)
	}
	if spent := full - rules.CELBudgetLeft(reused); spent != cost {
		t.Errorf("the reused findings cost the policy %d of its budget, want the run's %d", spent, cost)
	}

	short := rules.WithCELBudget(t.Context())
	rules.SpendCELBudget(short, full-cost+1)
	_, err := outcomes.check(short, rule, in)
	want := "rule could not be evaluated: expression '" + expr + "' ran out of the policy's CEL cost budget of 10000000 per request"
	if err == nil || err.Error() != want {
		t.Errorf("with %d of the budget left: got %v\nwant %s", cost-1, err, want)
	}
}

// TestCheckStopsWhenCancelled: a request whose context has ended gets no
// verdict, even from rules that never look at the context.
func TestCheckStopsWhenCancelled(t *testing.T) {
	engine, err := NewEngine(nil, mysqlPolicy(v1alpha1.Rule{Name: "version", Transitions: []v1alpha1.FieldTransition{{Path: "spec.version", Check: v1alpha1.Immutable}}}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	obj := goldencase.Object(t, `{apiVersion: db.example.io/v1, kind: MySQLCluster, metadata: {name: c, namespace: shop}, spec: {version: "8.0"}}`)
	_, err = engine.Evaluate(ctx, Request{Operation: v1alpha1.Update, Namespace: "shop", Object: obj, OldObject: obj})
	if want := "policy p: context canceled"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
