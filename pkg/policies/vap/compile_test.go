package vap

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crdguard/crdguard/internal/goldencase"
	"github.com/crdguard/crdguard/internal/vapmessage"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
	"github.com/crdguard/crdguard/pkg/policies/internal/rules"
	"github.com/crdguard/crdguard/pkg/schema"
)

// vapCase is a golden case as both sides see it.
type vapCase struct {
	policies []*v1alpha1.GuardPolicy
	schemas  *schema.Registry
	req      policies.Request
}

func loadVAPCase(t *testing.T, dir string) vapCase {
	t.Helper()
	gc := goldencase.Read(t, dir)
	gps, err := policies.PoliciesFromDocuments(t.Context(), gc.PolicyDocs, gc.Schemas)
	if err != nil {
		t.Fatal(err)
	}
	return vapCase{policies: gps, schemas: gc.Schemas, req: policies.Request{
		Operation: gc.Operation, Object: gc.Object, OldObject: gc.OldObject, UserInfo: gc.UserInfo,
		Namespace: gc.Namespace, NamespaceLabels: gc.NamespaceLabels,
	}}
}

// admitted is the request as a ValidatingAdmissionPolicy sees it: decoded
// by the CRD schema (pruned, defaulted) and patched by the mutating
// webhook's defaults, which run before it.
func (c vapCase) admitted(t *testing.T, res policies.Result) policies.Request {
	t.Helper()
	req := c.req
	if c.schemas != nil {
		if v, err := c.schemas.Validator(requestSubject(&req).GroupVersionKind()); err == nil {
			if req.Object != nil {
				req.Object = v.Decode(req.Object)
			}
			if req.OldObject != nil {
				req.OldObject = v.Decode(req.OldObject)
			}
		}
	}
	if len(res.Patches) > 0 {
		patched, err := rules.ApplyPatches(req.Object, res.Patches)
		if err != nil {
			t.Fatal(err)
		}
		req.Object = patched
	}
	return req
}

// vapKnownDifferences are the golden cases where the compiled policy's
// findings differ from the engine's in their messages, with the exact
// findings of both sides: documented, not hidden. Paths and verdicts agree.
var vapKnownDifferences = map[string]struct{ engine, vap []string }{
	// The reference library names why a reference is invalid; the
	// compiled policy matches its grammar and says only that it is not.
	"imageVersion/invalid-reference": {
		engine: []string{`spec.images[0] [mysql-images/image-version] Deny: Invalid value: "MySQL:8.0.36": is not a valid image reference: invalid reference format: repository name (library/MySQL) must be lowercase`},
		vap:    []string{`spec.images[0] [mysql-images/image-version] Deny: Invalid value: "MySQL:8.0.36": is not a valid image reference: invalid reference format`},
	},
	// CEL has no JSON encoder: objects print as {…}.
	"transitions/immutable": {
		engine: []string{`spec.backup [mysql-safety/transitions] Deny: Invalid value: is immutable once set; was {"retain":7,"schedule":"0 2 * * *"}, now {"retain":7,"schedule":"0 3 * * *"}`},
		vap:    []string{`spec.backup [mysql-safety/transitions] Deny: Invalid value: is immutable once set; was {…}, now {…}`},
	},
}

// unevaluableRE is the engine's finding for a CEL expression that failed
// on the object. The API server has no such finding: the validation
// errors, and failurePolicy Fail denies the request with the error.
var unevaluableRE = regexp.MustCompile(`rule could not be evaluated on this object: expression '.*' resulted in error: (.*?)(?:; object is null on DELETE.*)?$`)

// messageExpressionNoteRE is the engine's note on a messageExpression that
// failed or said nothing; the API server falls back to the message
// without a note (it only logs the failure).
var messageExpressionNoteRE = regexp.MustCompile(` \(messageExpression (?:failed: .*|evaluated to .*)\)$`)

// matchEvaluationErrors pairs each engine finding about an expression
// that failed with the compiled policy's evaluation error of the same
// cause, and returns the findings left to compare.
func matchEvaluationErrors(t *testing.T, engine []enforcedFinding, errs []string) []enforcedFinding {
	t.Helper()
	var out []enforcedFinding
	unpaired := slices.Clone(errs)
	for _, f := range engine {
		m := unevaluableRE.FindStringSubmatch(f.Message)
		if m == nil {
			f.Message = messageExpressionNoteRE.ReplaceAllString(f.Message, "")
			out = append(out, f)
			continue
		}
		i := slices.IndexFunc(unpaired, func(e string) bool {
			return strings.HasSuffix(e, "resulted in error: "+m[1]) || strings.HasSuffix(e, "fails to evaluate: "+m[1])
		})
		if i < 0 {
			t.Errorf("engine finding %s has no evaluation error of the compiled policy with cause %q; errors: %q", f, m[1], unpaired)
			continue
		}
		unpaired = slices.Delete(unpaired, i, i+1)
	}
	if len(unpaired) > 0 {
		t.Errorf("compiled policy failed to evaluate where the engine reported no such finding: %q", unpaired)
	}
	return out
}

// TestVAPParityGolden compiles the policy of every golden case and of the
// example, evaluates it in-process with the API server's validating
// admission policy code, and compares each finding (field path, message,
// enforcement) with the engine's for the rules that compiled; with
// static messages, which rules fail, and with what enforcement.
func TestVAPParityGolden(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(goldenCases, "*", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no golden cases (%v)", err)
	}
	for _, dir := range dirs {
		name := filepath.Base(filepath.Dir(dir)) + "/" + filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			c := loadVAPCase(t, dir)
			engine, err := policies.NewEngine(c.schemas, c.policies...)
			if err != nil {
				t.Fatal(err)
			}
			res, evalErr := engine.Evaluate(t.Context(), c.req)
			// The API server always knows a namespace's labels: a case
			// without them has nothing to compare a compiled policy with.
			if unknown := (*policies.UnknownNamespaceError)(nil); errors.As(evalErr, &unknown) {
				return
			}
			for _, gp := range c.policies {
				if !slices.Contains(res.Policies, gp.Name) && evalErr == nil {
					continue // matchConstraints decide: the e2e parity test covers them on kube-apiserver
				}
				for _, form := range messageForms {
					compiled, err := Compile(gp, c.schemas, form.messages)
					if err != nil {
						t.Fatal(err)
					}
					got := evaluateVAP(t, t.Context(), compiled, ptr(c.admitted(t, res)))
					if evalErr != nil {
						if len(got.errors) == 0 {
							t.Errorf("%s: engine could not evaluate (%v), the compiled policy did", form.name, evalErr)
						}
						continue
					}
					engineSide := matchEvaluationErrors(t, engineFindings(res, compiled), got.errors)
					if form.messages == Summaries {
						if want, have := failingRules(engineSide), failingRules(got.findings); !slices.Equal(want, have) {
							t.Errorf("%s: failing rules differ\n--- engine\n%s\n--- vap\n%s", form.name, strings.Join(want, "\n"), strings.Join(have, "\n"))
						}
						continue
					}
					want, have := sortedStrings(engineSide), sortedStrings(got.findings)
					if known, ok := vapKnownDifferences[name]; ok {
						want, have = compareKnown(t, want, have, known.engine, known.vap)
					}
					if !slices.Equal(want, have) {
						t.Errorf("%s: findings differ\n--- engine\n%s\n--- vap\n%s", form.name, strings.Join(want, "\n"), strings.Join(have, "\n"))
					}
				}
			}
		})
	}
}

// failingRules are the rules of findings, with their enforcement, once
// each and sorted: what a static message tells.
func failingRules(findings []enforcedFinding) []string {
	var out []string
	for _, f := range findings {
		out = append(out, fmt.Sprintf("[%s/%s] %s", f.Policy, f.Rule, f.enforcement))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// compareKnown checks that each side has exactly its documented findings
// in place of the other's, and returns both sides without them.
func compareKnown(t *testing.T, want, have, engineOnly, vapOnly []string) ([]string, []string) {
	t.Helper()
	remove := func(side string, list, drop []string) []string {
		for _, d := range drop {
			i := slices.Index(list, d)
			if i < 0 {
				t.Errorf("documented %s finding is gone: %s", side, d)
				continue
			}
			list = slices.Delete(slices.Clone(list), i, i+1)
		}
		return list
	}
	return remove("engine", want, engineOnly), remove("vap", have, vapOnly)
}

func ptr[T any](v T) *T { return &v }

// TestVAPGate checks where the compiled validations go: a policy whose
// rules all have a boolean form that fits, or that is a lone cel rule,
// gets a gate, a match condition that lets through only a request that
// fails one of them, and validations and messages that read each check's
// findings from its variable; one with a cel rule among others or with
// forms too large to write out has none, and each message tests its
// validation.
func TestVAPGate(t *testing.T) {
	gate := func(vap *admissionregistrationv1.ValidatingAdmissionPolicy) string {
		for _, c := range vap.Spec.MatchConditions {
			if c.Name == gateCondition {
				return c.Expression
			}
		}
		return ""
	}
	example := compileExample(t, example, Findings)
	deny, warn := example.Policies[0], example.Policies[1]
	if g := gate(deny); g == "" || strings.Contains(g, "variables.") || strings.Count(g, nothingWritten) != 1 {
		t.Errorf("%s: gate %q; want the written-out boolean forms, and the approval checks' test once", deny.Name, g)
	}
	for _, v := range deny.Spec.Validations {
		name := strings.TrimSuffix(strings.TrimPrefix(v.Expression, "size(variables."), ") == 0")
		if !slices.ContainsFunc(deny.Spec.Variables, func(v admissionregistrationv1.Variable) bool { return v.Name == name }) {
			t.Errorf("%s: validation %q; want size(variables.<check>) == 0", deny.Name, v.Expression)
		}
		if !strings.HasPrefix(v.MessageExpression, `"[mysql-safety/`) || !strings.HasSuffix(v.MessageExpression, " + variables."+name+`.join("; ")`) {
			t.Errorf("%s: message %q; want the findings of variable %s alone", deny.Name, v.MessageExpression, name)
		}
	}
	// The warn policy holds the cel rule alone, with the approval check,
	// whose gate cannot fail: if the rule fails to evaluate, the gate's
	// error quotes only them.
	if got, want := gate(warn), "!(("+warn.Spec.Validations[0].Expression+") && ("+nothingWritten+"))"; got != want {
		t.Errorf("%s: gate %q; want %q", warn.Name, got, want)
	}
	// A cel rule among others would quote them all in its error; the
	// preset's walks are too large to write out.
	mixed := parsePolicy(t, `
metadata: {name: mixed}
spec:
  match: {resources: [{group: db.example.io, kinds: [MySQLCluster]}]}
  rules:
  - {name: replicas, cel: {expression: "object.spec.replicas >= 1"}}
  - {name: requests, resources: {paths: [spec.resources], requireRequests: [cpu]}}
`)
	compiledMixed, err := Compile(mixed, nil, Findings)
	if err != nil {
		t.Fatal(err)
	}
	preset := compileExample(t, goldenCases+"/resources/ratio-boundaries", Findings).Policies[0]
	for _, vap := range []*admissionregistrationv1.ValidatingAdmissionPolicy{compiledMixed.Policies[0], preset} {
		if g := gate(vap); g != "" {
			t.Errorf("%s: gate %q; want none", vap.Name, g)
		}
		for _, v := range vap.Spec.Validations {
			if !strings.HasPrefix(v.MessageExpression, "("+v.Expression+`) ? "" : "[`) {
				t.Errorf("%s: message %q does not test its validation first", vap.Name, v.MessageExpression)
			}
		}
	}
	if !strings.Contains(preset.Spec.Validations[0].Expression, "variables.places") {
		t.Errorf("%s: validation %q; want the preset's places read from their variables", preset.Name, preset.Spec.Validations[0].Expression)
	}
}

// TestVAPExampleMessages checks the example's compiled checks: static
// messages that name the field and what is allowed, alone by default;
// with findings, one variable each, named after the rule and the check,
// whose static message the API server prints when the findings are over
// 5 KiB.
func TestVAPExampleMessages(t *testing.T) {
	want := []struct{ variable, message string }{
		{"resources", "[mysql-safety/resources] spec.resources: Invalid value: requests required for cpu, memory; limits required for memory; limits.cpu over requests.cpu allowed more than 1.5× and less than 4×; limits.memory over requests.memory allowed more than 1.5× and less than 4×"},
		{"image_version", "[mysql-safety/image-version] spec.image: Invalid value: the image tag must match spec.version (compare: TagPrefix), which must be set when an image is"},
		{"safe_updates_replicas_no_decrease", "[mysql-safety/safe-updates] spec.replicas: Invalid value: may not decrease (check: NoDecrease)"},
		{"safe_updates_storage_size_no_decrease", "[mysql-safety/safe-updates] spec.storage.size: Invalid value: may not decrease (check: NoDecrease)"},
		{"safe_updates_storage_storage_class_name_immutable", "[mysql-safety/safe-updates] spec.storage.storageClassName: Invalid value: is immutable once set (check: Immutable)"},
		{"safe_updates_version_max_minor_skip", "[mysql-safety/safe-updates] spec.version: Invalid value: an upgrade may skip at most 0 minor versions (check: MaxMinorSkip)"},
		{"safe_updates_users_no_removal", "[mysql-safety/safe-updates] spec.users: Invalid value: no item or key may be removed (check: NoRemoval)"},
		{"protect_data", "[mysql-safety/protect-data] <nil>: Forbidden: deleting this cluster deletes its volumes (reclaimPolicy Delete); a dba approves it"},
	}
	// Each rule has an approval check after its own: without approvers,
	// nobody may write one.
	for i := len(want) - 1; i >= 0; i-- {
		rule := want[i].message[len("[mysql-safety/"):strings.Index(want[i].message, "]")]
		if i+1 < len(want) && strings.HasPrefix(want[i+1].message, "[mysql-safety/"+rule+"]") {
			continue
		}
		want = slices.Insert(want, i+1, struct{ variable, message string }{celIdentifier(rule) + "_approval",
			"[mysql-safety/" + rule + "] metadata.annotations[crdguard.dev/approve]: Forbidden: only an approver may approve mysql-safety/" + rule + ", and only crdguard writes its crdguard.dev/last-approval record, for that approver"})
	}
	for _, form := range messageForms {
		messages := form.messages
		deny := compileExample(t, example, messages).Policies[0]
		if len(deny.Spec.Validations) != len(want) {
			t.Fatalf("%s: %d validations, want %d", form.name, len(deny.Spec.Validations), len(want))
		}
		variables := map[string]bool{}
		for _, v := range deny.Spec.Variables {
			variables[v.Name] = true
		}
		for i, w := range want {
			v := deny.Spec.Validations[i]
			switch reads := variables[w.variable] && strings.Contains(v.Expression, "variables."+w.variable+")"); {
			case messages == Findings && !reads:
				t.Errorf("validations[%d] = %q; want it to read variable %s", i, v.Expression, w.variable)
			case messages == Summaries && (variables[w.variable] || v.MessageExpression != ""):
				t.Errorf("validations[%d] = %q, message %q; want the check's boolean form and the static message alone", i, v.Expression, v.MessageExpression)
			}
			if v.Message != w.message {
				t.Errorf("validations[%d].message = %q\nwant %q", i, v.Message, w.message)
			}
			if _, ok := vapmessage.Parse(v.Message); !ok {
				t.Errorf("validations[%d].message %q is not in the compiled findings' form", i, v.Message)
			}
		}
	}
}

// TestVAPMatch checks how a GuardPolicy's match becomes the policy's
// matchConstraints and matchConditions: kinds by their plurals where the
// CRDs give them, else by a condition; excluded namespaces by a namespace
// selector, unless the policy may match Namespace objects.
func TestVAPMatch(t *testing.T) {
	schemas, err := schema.RegistryFromFiles(t.Context(), example+"/crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	names := func(conditions []admissionregistrationv1.MatchCondition) []string {
		var out []string
		for _, c := range conditions {
			out = append(out, c.Name)
		}
		return out
	}
	mysql := v1alpha1.ResourceMatch{Group: "db.example.io", Kinds: []string{"MySQLCluster"}}
	excluded := []string{"kube-system"}
	notExcluded := metav1.LabelSelectorRequirement{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: excluded}
	for _, tc := range []struct {
		name       string
		match      v1alpha1.Match
		schemas    *schema.Registry
		resources  []string
		selector   *metav1.LabelSelector
		conditions []string
	}{
		{"plural", v1alpha1.Match{Resources: []v1alpha1.ResourceMatch{mysql}, ExcludedNamespaces: excluded}, schemas,
			[]string{"mysqlclusters"}, &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{notExcluded}}, nil},
		{"no CRDs", v1alpha1.Match{Resources: []v1alpha1.ResourceMatch{mysql}}, nil,
			[]string{"*"}, nil, []string{"kinds"}},
		{"selector kept", v1alpha1.Match{Resources: []v1alpha1.ResourceMatch{mysql}, ExcludedNamespaces: excluded, NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "db"}}}, schemas,
			[]string{"mysqlclusters"}, &metav1.LabelSelector{MatchLabels: map[string]string{"team": "db"}, MatchExpressions: []metav1.LabelSelectorRequirement{notExcluded}}, []string{"namespaced"}},
		{"namespaces", v1alpha1.Match{Resources: []v1alpha1.ResourceMatch{{Group: "", Kinds: []string{"Namespace"}}}, ExcludedNamespaces: excluded}, schemas,
			[]string{"*"}, nil, []string{"kinds", "excluded-namespaces"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			constraints, conditions := matchResources(&tc.match, tc.schemas)
			if got := constraints.ResourceRules[0].Resources; !slices.Equal(got, tc.resources) {
				t.Errorf("resources = %v, want %v", got, tc.resources)
			}
			if got := constraints.NamespaceSelector; !reflect.DeepEqual(got, tc.selector) {
				t.Errorf("namespaceSelector = %v, want %v", got, tc.selector)
			}
			if got := names(conditions); !slices.Equal(got, tc.conditions) {
				t.Errorf("conditions = %v, want %v", got, tc.conditions)
			}
		})
	}
}

// TestVAPSummaryVariables checks that a policy compiled with static
// messages keeps only the variables its validations read: the approval's,
// which every check reads when it fails. The messages' own variables
// (what an approval could not lift) and the walks the checks write out
// are left out.
func TestVAPSummaryVariables(t *testing.T) {
	schemas, err := schema.RegistryFromFiles(t.Context(), example+"/crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	gps, err := policies.PoliciesFromDocuments(t.Context(), goldencase.Documents(t, example+"/policy.yaml"), schemas)
	if err != nil {
		t.Fatal(err)
	}
	for _, form := range messageForms {
		compiled, err := Compile(gps[0], schemas, form.messages)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, v := range compiled.Policies[0].Spec.Variables {
			got = append(got, v.Name)
		}
		want := []string{"approval_by_approver", "approval_names", "approval_record", "resources_approved", "image_version_approved", "safe_updates_approved"}
		if form.messages == Findings {
			// The findings' variables, and what they read, stay.
			if !slices.Contains(got, "resources_not_approved") || !slices.Contains(got, "safe_updates_users_no_removal") {
				t.Errorf("%s: variables %q; want the findings and their notes", form.name, got)
			}
			continue
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: variables %q, want %q", form.name, got, want)
		}
	}
}
