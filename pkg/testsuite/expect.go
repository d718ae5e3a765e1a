package testsuite

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
	"github.com/crdguard/crdguard/pkg/report"
)

// schemaRules are the rules of the findings pkg/policies reports for a CRD
// schema, under policies.SchemaPolicy.
var schemaRules = map[string]bool{"validation": true, "unknown-field": true}

// levels are the enforcement each rule result stands for, in the order
// findings are summarised.
var levels = []struct {
	result      Result
	enforcement v1alpha1.Enforcement
}{{Denied, v1alpha1.Deny}, {Warned, v1alpha1.Warn}, {Audited, v1alpha1.Audit}}

func enforcementOf(r Result) v1alpha1.Enforcement {
	for _, l := range levels {
		if l.result == r {
			return l.enforcement
		}
	}
	return ""
}

// compare checks the expectation against the result and the findings the
// request got.
func (s *Suite) compare(e *Expectation, got Result, findings []report.Finding) ([]Check, []report.Finding) {
	checks := []Check{{Subject: "result", Want: string(e.Result), Got: string(got), OK: e.Result == got}}
	type level struct {
		policy, rule string
		enforcement  v1alpha1.Enforcement
	}
	listed := sets.New[level]()
	allowedRules := sets.New[string]()
	for _, r := range e.Rules {
		subject := r.Policy + "/" + r.Rule
		own := findingsOf(findings, r.Policy, r.Rule)
		check := Check{Subject: subject, Want: describe(r.Result, r.Fields), Got: summarise(own)}
		if r.Result == Allowed {
			allowedRules.Insert(subject)
			check.OK = len(own) == 0
		} else {
			enforcement := enforcementOf(r.Result)
			listed.Insert(level{r.Policy, r.Rule, enforcement})
			check.OK = sets.New(r.Fields...).Equal(sets.New(fieldsAt(own, enforcement)...))
		}
		if missing := s.missingRule(r.Policy, r.Rule); missing != "" {
			check.Got, check.OK = missing, false
		}
		checks = append(checks, check)
	}
	if e.AllowOtherFindings {
		return checks, nil
	}
	var unexpected []report.Finding
	for _, f := range findings {
		if !listed.Has(level{f.Policy, f.Rule, f.Enforcement}) && !allowedRules.Has(f.Policy+"/"+f.Rule) {
			unexpected = append(unexpected, f)
		}
	}
	return checks, unexpected
}

// missingRule says why policy/rule is none of the suite's, or "" when it is.
func (s *Suite) missingRule(policy, rule string) string {
	if policy == policies.SchemaPolicy {
		if !schemaRules[rule] {
			return fmt.Sprintf("nothing: the schema's findings are rules %s", strings.Join(sets.List(sets.KeySet(schemaRules)), ", "))
		}
		return ""
	}
	rules, ok := s.rules[policy]
	switch {
	case !ok:
		return fmt.Sprintf("nothing: no policy %s among the suite's (%s)", policy, strings.Join(sets.List(sets.KeySet(s.rules)), ", "))
	case !rules[rule]:
		return fmt.Sprintf("nothing: policy %s has no rule %s", policy, rule)
	}
	return ""
}

func findingsOf(findings []report.Finding, policy, rule string) []report.Finding {
	var out []report.Finding
	for _, f := range findings {
		if f.Policy == policy && f.Rule == rule {
			out = append(out, f)
		}
	}
	return out
}

// fieldsAt are the distinct fields of the findings at one enforcement, in
// the order found.
func fieldsAt(findings []report.Finding, enforcement v1alpha1.Enforcement) []string {
	var out []string
	for _, f := range findings {
		if f.Enforcement == enforcement && !slices.Contains(out, f.Field) {
			out = append(out, f.Field)
		}
	}
	return out
}

func describe(r Result, fields []string) string {
	if r == Allowed {
		return "allowed (no findings)"
	}
	return string(r) + " at [" + strings.Join(fields, ", ") + "]"
}

// summarise describes a rule's findings, level by level.
func summarise(findings []report.Finding) string {
	var parts []string
	for _, l := range levels {
		if fields := fieldsAt(findings, l.enforcement); len(fields) > 0 {
			parts = append(parts, describe(l.result, fields))
		}
	}
	if len(parts) == 0 {
		return "allowed (no findings)"
	}
	return strings.Join(parts, "; ")
}
