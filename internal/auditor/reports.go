package auditor

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	openreportsv1alpha1 "github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ReportName is the name of every report crdguard writes: the Report of
// each namespace and the one ClusterReport.
const ReportName = "crdguard-audit"

// ManagedByLabel marks the reports crdguard writes. Only reports with it
// are updated or deleted; reports of other tools are never touched.
const ManagedByLabel = "app.kubernetes.io/managed-by"

// DroppedAnnotation on a report counts the results left out of it because
// the report already held MaxResultsPerReport.
const DroppedAnnotation = "crdguard.dev/results-dropped"

// reportWriter replaces the reports' contents with one run's findings.
// A report is updated in place, and only when its results changed; a
// namespace without findings has no report (one left from an earlier run
// is deleted), so every report crdguard owns lists something to fix.
type reportWriter struct {
	client client.Client
}

func (w *reportWriter) write(ctx context.Context, f *findings) error {
	var errs []error
	var reports openreportsv1alpha1.ReportList
	if err := w.client.List(ctx, &reports, client.MatchingLabels{ManagedByLabel: Source}); err != nil {
		return fmt.Errorf("listing Reports: %w", err)
	}
	for ns, results := range f.byNamespace {
		if ns == "" {
			continue
		}
		report := &openreportsv1alpha1.Report{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: ReportName}}
		errs = append(errs, w.upsert(ctx, report, results, f.dropped[ns]))
	}
	for i := range reports.Items {
		if r := &reports.Items[i]; r.Name == ReportName && len(f.byNamespace[r.Namespace]) == 0 {
			errs = append(errs, w.delete(ctx, r))
		}
	}

	if results := f.byNamespace[""]; len(results) > 0 {
		report := &openreportsv1alpha1.ClusterReport{ObjectMeta: metav1.ObjectMeta{Name: ReportName}}
		errs = append(errs, w.upsert(ctx, report, results, f.dropped[""]))
	} else {
		var clusterReports openreportsv1alpha1.ClusterReportList
		if err := w.client.List(ctx, &clusterReports, client.MatchingLabels{ManagedByLabel: Source}); err != nil {
			return errors.Join(append(errs, fmt.Errorf("listing ClusterReports: %w", err))...)
		}
		for i := range clusterReports.Items {
			if r := &clusterReports.Items[i]; r.Name == ReportName {
				errs = append(errs, w.delete(ctx, r))
			}
		}
	}
	return errors.Join(errs...)
}

// upsert creates report with results, or updates the existing one when
// its results changed. A result that was already there keeps its
// timestamp (when it was first found), so an unchanged report is not
// rewritten on every run.
func (w *reportWriter) upsert(ctx context.Context, report client.Object, results []openreportsv1alpha1.ReportResult, dropped int) error {
	err := w.client.Get(ctx, client.ObjectKeyFromObject(report), report)
	exists := err == nil
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("reading %s: %w", describe(report), err)
	}
	source, summary, stored := contents(report)
	keepTimestamps(results, *stored)
	sortResults(results)
	newSummary := summarize(results)
	annotations := report.GetAnnotations()
	droppedBefore := annotations[DroppedAnnotation]
	droppedNow := ""
	if dropped > 0 {
		droppedNow = strconv.Itoa(dropped)
	}
	if exists && report.GetLabels()[ManagedByLabel] != Source {
		return fmt.Errorf("%s exists and is not managed by %s; leaving it alone", describe(report), Source)
	}
	if exists && *source == Source && apiequality.Semantic.DeepEqual(*stored, results) && *summary == newSummary && droppedBefore == droppedNow {
		return nil
	}
	labels := report.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[ManagedByLabel] = Source
	report.SetLabels(labels)
	if droppedNow != "" {
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[DroppedAnnotation] = droppedNow
	} else {
		delete(annotations, DroppedAnnotation)
	}
	report.SetAnnotations(annotations)
	*source, *summary, *stored = Source, newSummary, results
	if exists {
		// A conflict means someone else wrote the report meanwhile; the
		// next run writes it again from fresh findings.
		err = w.client.Update(ctx, report)
	} else {
		err = w.client.Create(ctx, report)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", describe(report), err)
	}
	return nil
}

func (w *reportWriter) delete(ctx context.Context, report client.Object) error {
	if err := w.client.Delete(ctx, report); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting %s: %w", describe(report), err)
	}
	return nil
}

// contents are the fields Report and ClusterReport share.
func contents(report client.Object) (*string, *openreportsv1alpha1.ReportSummary, *[]openreportsv1alpha1.ReportResult) {
	switch r := report.(type) {
	case *openreportsv1alpha1.Report:
		return &r.Source, &r.Summary, &r.Results
	case *openreportsv1alpha1.ClusterReport:
		return &r.Source, &r.Summary, &r.Results
	}
	panic(fmt.Sprintf("not an OpenReports report: %T", report))
}

func describe(report client.Object) string {
	if report.GetNamespace() == "" {
		return "ClusterReport " + report.GetName()
	}
	return "Report " + report.GetNamespace() + "/" + report.GetName()
}

// keepTimestamps gives each result the timestamp of the same finding in
// stored, if it was there.
func keepTimestamps(results, stored []openreportsv1alpha1.ReportResult) {
	first := make(map[string]metav1.Timestamp, len(stored))
	for _, r := range stored {
		first[findingKey(r)] = r.Timestamp
	}
	for i := range results {
		if ts, ok := first[findingKey(results[i])]; ok {
			results[i].Timestamp = ts
		}
	}
}

// findingKey identifies a result by everything but its timestamp.
func findingKey(r openreportsv1alpha1.ReportResult) string {
	var subject string
	if len(r.Subjects) > 0 {
		s := r.Subjects[0]
		subject = strings.Join([]string{s.APIVersion, s.Kind, s.Namespace, s.Name, string(s.UID)}, "/")
	}
	return strings.Join([]string{subject, r.Policy, r.Rule, string(r.Result), r.Description, r.Properties[propertyFields], r.Properties[propertyEnforcement]}, "\x00")
}
