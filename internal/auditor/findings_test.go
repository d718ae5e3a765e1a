package auditor

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	openreportsv1alpha1 "github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
	"github.com/crdguard/crdguard/pkg/report"
)

func widget(namespace, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("example.io/v1")
	u.SetKind("Widget")
	u.SetNamespace(namespace)
	u.SetName(name)
	u.SetUID(types.UID("uid-" + name))
	return u
}

func TestFindingsGroupByPolicyAndRule(t *testing.T) {
	f := newFindings(10)
	now := metav1.Timestamp{Seconds: 100}
	f.add(widget("shop", "w"), policies.Result{Violations: []report.Finding{
		{Field: "spec.a", Message: "a is bad", Policy: "p", Rule: "r", Enforcement: v1alpha1.Warn},
		{Field: "spec.b", Message: "b is bad", Policy: "p", Rule: "r", Enforcement: v1alpha1.Deny},
		{Field: "", Message: "root is bad", Policy: "p", Rule: "q", Enforcement: v1alpha1.Audit},
	}}, nil, now)
	f.add(widget("shop", "broken"), policies.Result{}, errors.New("schema does not compile"), now)
	f.add(widget("shop", "clean"), policies.Result{}, nil, now)

	subject := func(name string) []corev1.ObjectReference {
		return []corev1.ObjectReference{{APIVersion: "example.io/v1", Kind: "Widget", Namespace: "shop", Name: name, UID: types.UID("uid-" + name)}}
	}
	want := []openreportsv1alpha1.ReportResult{{
		Source: "crdguard", Policy: "p", Rule: "r", Result: "fail", Timestamp: now, Subjects: subject("w"),
		Description: "spec.a: a is bad; spec.b: b is bad",
		Properties:  map[string]string{"fields": "spec.a, spec.b", "enforcement": "Deny"},
	}, {
		Source: "crdguard", Policy: "p", Rule: "q", Result: "warn", Timestamp: now, Subjects: subject("w"),
		Description: "<nil>: root is bad",
		Properties:  map[string]string{"fields": "<nil>", "enforcement": "Audit"},
	}, {
		Source: "crdguard", Policy: "crdguard", Rule: "evaluate", Result: "error", Timestamp: now, Subjects: subject("broken"),
		Description: "schema does not compile",
	}}
	if diff := cmp.Diff(want, f.byNamespace["shop"]); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if got := f.violationsOf("p"); got != 3 {
		t.Errorf("violations of p = %d, want 3", got)
	}
	if got := summarize(f.byNamespace["shop"]); got != (openreportsv1alpha1.ReportSummary{Fail: 1, Warn: 1, Error: 1}) {
		t.Errorf("summary = %+v", got)
	}
}

func TestFindingsBoundedPerReport(t *testing.T) {
	f := newFindings(2)
	for _, name := range []string{"a", "b", "c", "d"} {
		f.add(widget("shop", name), policies.Result{Violations: []report.Finding{{Field: "spec", Policy: "p", Rule: "r", Enforcement: v1alpha1.Deny}}}, nil, metav1.Timestamp{})
	}
	if len(f.byNamespace["shop"]) != 2 || f.dropped["shop"] != 2 || f.violationsOf("p") != 4 {
		t.Errorf("kept %d, dropped %d, counted %d; want 2, 2, 4", len(f.byNamespace["shop"]), f.dropped["shop"], f.violationsOf("p"))
	}
}
