package auditor

import (
	"cmp"
	"slices"
	"strings"

	openreportsv1alpha1 "github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
)

// Source names crdguard in reports and their results.
const Source = "crdguard"

// OpenReports result values.
const (
	resultFail  openreportsv1alpha1.Result = "fail"
	resultWarn  openreportsv1alpha1.Result = "warn"
	resultError openreportsv1alpha1.Result = "error"
)

// Properties of a result.
const (
	// propertyFields are the field paths of the rule's findings on the
	// object, comma-separated, as the API server prints them.
	propertyFields = "fields"
	// propertyEnforcement is the strictest enforcement among them.
	propertyEnforcement = "enforcement"
)

// evaluationErrorPolicy is the policy of a result for an object crdguard
// could not evaluate.
const evaluationErrorPolicy = "crdguard"

// findings collects one run's results by namespace ("" for cluster-scoped
// objects) and counts violations by policy and rule. Only objects with
// findings cost memory: an object is evaluated and dropped.
type findings struct {
	// maxPerReport bounds the results kept for one report; the rest are
	// counted in dropped, so one noisy namespace cannot grow a report past
	// etcd's object size limit nor this process's memory.
	maxPerReport int
	byNamespace  map[string][]openreportsv1alpha1.ReportResult
	dropped      map[string]int
	// violations counts findings (one per object, rule and field) by
	// policy and rule, for the metric and the GuardPolicy status.
	violations map[policyRule]int
}

type policyRule struct{ policy, rule string }

func newFindings(maxPerReport int) *findings {
	return &findings{
		maxPerReport: maxPerReport,
		byNamespace:  map[string][]openreportsv1alpha1.ReportResult{},
		dropped:      map[string]int{},
		violations:   map[policyRule]int{},
	}
}

// add records obj's outcome: one result per policy and rule with
// findings, failing when any of them is Deny and warning otherwise (Warn
// and Audit findings never block), or one error result when obj could not
// be evaluated.
func (f *findings) add(obj *unstructured.Unstructured, res policies.Result, evalErr error, now metav1.Timestamp) {
	subject := corev1.ObjectReference{
		APIVersion: obj.GetAPIVersion(), Kind: obj.GetKind(),
		Namespace: obj.GetNamespace(), Name: obj.GetName(), UID: obj.GetUID(),
	}
	if evalErr != nil {
		f.keep(obj.GetNamespace(), openreportsv1alpha1.ReportResult{
			Source: Source, Policy: evaluationErrorPolicy, Rule: "evaluate", Result: resultError,
			Timestamp: now, Subjects: []corev1.ObjectReference{subject}, Description: evalErr.Error(),
		})
		return
	}
	type group struct {
		key      policyRule
		fields   []string
		messages []string
		result   openreportsv1alpha1.Result
		strict   v1alpha1.Enforcement
	}
	var groups []*group
	for _, v := range res.Violations {
		key := policyRule{v.Policy, v.Rule}
		f.violations[key]++
		i := slices.IndexFunc(groups, func(g *group) bool { return g.key == key })
		if i < 0 {
			groups = append(groups, &group{key: key, result: resultWarn, strict: v.Enforcement})
			i = len(groups) - 1
		}
		g := groups[i]
		g.fields = append(g.fields, cmp.Or(v.Field, "<nil>"))
		g.messages = append(g.messages, cmp.Or(v.Field, "<nil>")+": "+v.Message)
		if v.Enforcement == v1alpha1.Deny {
			g.result, g.strict = resultFail, v1alpha1.Deny
		} else if g.strict != v1alpha1.Deny && v.Enforcement == v1alpha1.Warn {
			g.strict = v1alpha1.Warn
		}
	}
	for _, g := range groups {
		f.keep(obj.GetNamespace(), openreportsv1alpha1.ReportResult{
			Source: Source, Policy: g.key.policy, Rule: g.key.rule, Result: g.result,
			Timestamp: now, Subjects: []corev1.ObjectReference{subject},
			Description: strings.Join(g.messages, "; "),
			Properties: map[string]string{
				propertyFields:      strings.Join(g.fields, ", "),
				propertyEnforcement: string(g.strict),
			},
		})
	}
}

func (f *findings) keep(namespace string, r openreportsv1alpha1.ReportResult) {
	if len(f.byNamespace[namespace]) >= f.maxPerReport {
		f.dropped[namespace]++
		return
	}
	f.byNamespace[namespace] = append(f.byNamespace[namespace], r)
}

// violationsOf is the number of policy's findings.
func (f *findings) violationsOf(policy string) int {
	n := 0
	for k, c := range f.violations {
		if k.policy == policy {
			n += c
		}
	}
	return n
}

// summarize counts results by their value.
func summarize(results []openreportsv1alpha1.ReportResult) openreportsv1alpha1.ReportSummary {
	var s openreportsv1alpha1.ReportSummary
	for _, r := range results {
		switch r.Result {
		case resultFail:
			s.Fail++
		case resultWarn:
			s.Warn++
		case resultError:
			s.Error++
		}
	}
	return s
}

// sortResults orders results by object, policy and rule, so a report whose
// findings did not change is written identically and not rewritten.
func sortResults(results []openreportsv1alpha1.ReportResult) {
	key := func(r openreportsv1alpha1.ReportResult) string {
		s := r.Subjects[0]
		return strings.Join([]string{s.APIVersion, s.Kind, s.Name, string(s.UID), r.Policy, r.Rule}, "\x00")
	}
	slices.SortFunc(results, func(a, b openreportsv1alpha1.ReportResult) int { return strings.Compare(key(a), key(b)) })
}
