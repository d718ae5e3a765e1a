package auditor

import (
	"testing"

	openreportsv1alpha1 "github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
	"github.com/crdguard/crdguard/pkg/report"
)

func denied(namespace, name string, at int64) *findings {
	f := newFindings(10)
	f.add(widget(namespace, name), policies.Result{Violations: []report.Finding{
		{Field: "spec.size", Message: "too big", Policy: "p", Rule: "size", Enforcement: v1alpha1.Deny},
	}}, nil, metav1.Timestamp{Seconds: at})
	return f
}

func TestReportWriter(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := openreportsv1alpha1.Install(scheme); err != nil {
		t.Fatal(err)
	}
	// Another tool's report under crdguard's name: never touched.
	foreign := &openreportsv1alpha1.Report{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: ReportName}, Source: "kyverno"}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(foreign).Build()
	w := &reportWriter{client: c}
	ctx := t.Context()

	f := denied("shop", "w", 100)
	f.add(widget("", "cluster-widget"), policies.Result{Violations: []report.Finding{
		{Field: "spec", Message: "bad", Policy: "p", Rule: "size", Enforcement: v1alpha1.Warn},
	}}, nil, metav1.Timestamp{Seconds: 100})
	if err := w.write(ctx, f); err != nil {
		t.Fatal(err)
	}
	report := &openreportsv1alpha1.Report{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "shop", Name: ReportName}, report); err != nil {
		t.Fatal(err)
	}
	if report.Labels[ManagedByLabel] != "crdguard" || report.Source != "crdguard" || report.Summary != (openreportsv1alpha1.ReportSummary{Fail: 1}) ||
		len(report.Results) != 1 || report.Results[0].Subjects[0].Name != "w" || report.Results[0].Description != "spec.size: too big" {
		t.Errorf("report shop: %+v", report)
	}
	clusterReport := &openreportsv1alpha1.ClusterReport{}
	if err := c.Get(ctx, client.ObjectKey{Name: ReportName}, clusterReport); err != nil {
		t.Fatal(err)
	}
	if clusterReport.Summary != (openreportsv1alpha1.ReportSummary{Warn: 1}) || clusterReport.Results[0].Subjects[0].Name != "cluster-widget" {
		t.Errorf("cluster report: %+v", clusterReport)
	}

	// The same finding later: the report is not rewritten and keeps the
	// time the finding was first seen.
	if err := w.write(ctx, denied("shop", "w", 200)); err != nil {
		t.Fatal(err)
	}
	again := &openreportsv1alpha1.Report{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(report), again); err != nil {
		t.Fatal(err)
	}
	if again.ResourceVersion != report.ResourceVersion || again.Results[0].Timestamp.Seconds != 100 {
		t.Errorf("unchanged findings rewrote the report: resourceVersion %s -> %s, timestamp %d", report.ResourceVersion, again.ResourceVersion, again.Results[0].Timestamp.Seconds)
	}
	if err := c.Get(ctx, client.ObjectKey{Name: ReportName}, &openreportsv1alpha1.ClusterReport{}); !apierrors.IsNotFound(err) {
		t.Errorf("cluster report without results: %v, want it deleted", err)
	}

	// A new finding updates the report in place (same UID).
	if err := w.write(ctx, denied("shop", "v", 300)); err != nil {
		t.Fatal(err)
	}
	updated := &openreportsv1alpha1.Report{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(report), updated); err != nil {
		t.Fatal(err)
	}
	if updated.UID != report.UID || len(updated.Results) != 1 || updated.Results[0].Subjects[0].Name != "v" || updated.Results[0].Timestamp.Seconds != 300 {
		t.Errorf("updated report: %+v", updated)
	}

	// No findings: crdguard's reports go, the foreign one stays.
	if err := w.write(ctx, newFindings(10)); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(report), &openreportsv1alpha1.Report{}); !apierrors.IsNotFound(err) {
		t.Errorf("report without results: %v, want it deleted", err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(foreign), &openreportsv1alpha1.Report{}); err != nil {
		t.Errorf("foreign report: %v", err)
	}
	// Findings where the foreign report sits: an error, not an overwrite.
	if err := w.write(ctx, denied("other", "w", 400)); err == nil {
		t.Error("writing over another tool's report: no error")
	}
}

func TestReportWriterDropped(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := openreportsv1alpha1.Install(scheme); err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(scheme).Build()
	f := newFindings(1)
	for _, name := range []string{"a", "b", "c"} {
		f.add(widget("shop", name), policies.Result{Violations: []report.Finding{{Field: "spec", Policy: "p", Rule: "r", Enforcement: v1alpha1.Deny}}}, nil, metav1.Timestamp{})
	}
	if err := (&reportWriter{client: c}).write(t.Context(), f); err != nil {
		t.Fatal(err)
	}
	report := &openreportsv1alpha1.Report{}
	if err := c.Get(t.Context(), client.ObjectKey{Namespace: "shop", Name: ReportName}, report); err != nil {
		t.Fatal(err)
	}
	if len(report.Results) != 1 || report.Annotations[DroppedAnnotation] != "2" {
		t.Errorf("results %d, %s=%q; want 1 and 2", len(report.Results), DroppedAnnotation, report.Annotations[DroppedAnnotation])
	}
}
