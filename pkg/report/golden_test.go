package report

import (
	"bytes"
	"testing"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// sampleResults covers every outcome and every marking in one report, so
// that each golden file shows how a format renders all of them side by side.
func sampleResults() []Result {
	return []Result{
		{
			Source: "deploy/mysql.yaml", Document: 0, Line: 12,
			APIVersion: "db.example.com/v1", Kind: "MySQLCluster", Namespace: "default", Name: "prod",
			Operation: "CREATE",
			Violations: []Finding{
				{Field: "spec.replicas", Type: "FieldValueInvalid", Message: "Invalid value: 10: spec.replicas in body should be less than or equal to 5", Policy: "schema", Rule: "maximum", Enforcement: v1alpha1.Deny, Line: 16, Column: 3},
				{Field: "spec.storageSize", Type: "FieldValueNotSupported", Message: `Unsupported value: "storageSize": unknown field`, Policy: "schema", Rule: "unknown-field", Enforcement: v1alpha1.Deny},
				{Field: "spec.backup.schedule", Type: "FieldValueRequired", Message: "Required value: production clusters must be backed up", Policy: "require-backup", Rule: "schedule", Enforcement: v1alpha1.Deny, Line: 18, Column: 3},
				{Field: "metadata.labels[team]", Type: "FieldValueRequired", Message: "Required value: every object needs an owning team", Policy: "labels", Rule: "team", Enforcement: v1alpha1.Warn, Line: 14, Column: 5},
				{Field: "spec.image", Type: "FieldValueInvalid", Message: `Invalid value: "mysql:latest": tags like "latest" & "stable" move; use a digest <sha256:...>`, Policy: "images", Rule: "pinned", Enforcement: v1alpha1.Audit},
			},
			Warnings: []string{"db.example.com/v1 MySQLCluster is deprecated; use db.example.com/v2 MySQLCluster"},
		},
		{
			Source: "deploy/mysql.yaml", Document: 1, Line: 40,
			APIVersion: "db.example.com/v1", Kind: "MySQLCluster", Namespace: "default", Name: "staging",
			Operation: "CREATE",
		},
		{
			Source: "cluster/issuer.yaml", Document: 0, Line: 1,
			APIVersion: "cert-manager.io/v1", Kind: "ClusterIssuer", Name: "letsencrypt",
			Operation: "UPDATE",
			Violations: []Finding{
				{Field: "spec.acme.email", Type: "FieldValueRequired", Message: "Required value: expiry notices go nowhere without it", Policy: "issuers", Rule: "contact", Enforcement: v1alpha1.Warn},
			},
			Warnings: []string{`metadata.finalizers: "cleanup": prefer a domain-qualified finalizer name`},
		},
		{
			Source: "deploy/app.yaml", Document: 0, Line: 1,
			APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "web",
			Operation: "CREATE",
			Skipped:   true, SkipReason: "no schema for apps/v1, Kind=Deployment",
		},
		{
			Source: "deploy/broken.yaml", Document: 2, Line: 7,
			Error: "yaml: line 9: mapping values are not allowed in this context",
		},
		{
			// A Go source, as crdguard lint reports: no documents.
			Source: "api/v1/widget_types.go", NotStream: true, Line: 20,
			APIVersion: "example.com/v1", Kind: "Widget", Name: "WidgetSpec.Replicas",
			Violations: []Finding{
				{Field: "spec.replicas", Type: "FieldValueInvalid", Message: "WidgetSpec.Replicas drops 0 on the wire (omitempty) and the default 3 replaces it: 0 can never be stored; fix: make it a pointer (*int32) so that 0 is sent", Policy: "gotypes", Rule: "zero-value-default", Enforcement: v1alpha1.Deny},
			},
		},
	}
}

func sampleReport() Report { return New(sampleResults()) }

func render(t *testing.T, f Format, rep Report, opts Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, f, rep, opts); err != nil {
		t.Fatalf("Write(%s): %v", f, err)
	}
	return buf.Bytes()
}
