package app

import (
	"bytes"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/report"
	"github.com/crdguard/crdguard/pkg/schema/diff"
)

// Names of the finding that says a change needs a storage version
// migration.
const (
	migrationPolicy = "migration"
	migrationRule   = "storage-version-migration"
)

// outputMigrations is diff's -o value that prints the
// StorageVersionMigrations to apply instead of the report.
const outputMigrations = "migrations"

// addMigrationFindings adds to the result of each CRD pair whose change
// needs a storage version migration a warning that says which, and,
// with the cluster as OLD (runs is not nil), whether one ran there, or why
// that is unknown; it returns the migrations. runs lists the cluster's
// migrations, called only when a change needs one. The change itself is
// not broken by a missing migration: only dropping a stored version is,
// which the stored-version-removed check reports.
func addMigrationFindings(results []report.Result, pairs []diff.Pair, runs func() (migrationRuns, error)) []*diff.Migration {
	var migrations []*diff.Migration
	for i, pair := range pairs {
		m := diff.MigrationFor(pair.Old, pair.New)
		if m == nil {
			continue
		}
		migrations = append(migrations, m)
		msg := m.String() + " with a StorageVersionMigration of " + m.Resource.String() + " (--migrations FILE writes it)"
		if runs == nil {
			msg += "; whether one already ran only the cluster can tell (diff cluster: reads it)"
		} else if ran, err := runs(); err != nil {
			msg += fmt.Sprintf("; whether one already ran is unknown: %v", err)
		} else {
			msg += "; " + ran.status(m, pair.Old)
		}
		results[i].Violations = append(results[i].Violations, report.Finding{
			Field: field.NewPath("status", "storedVersions").String(), Type: string(diff.Warning), Message: msg,
			Policy: migrationPolicy, Rule: migrationRule, Enforcement: v1alpha1.Warn,
		})
	}
	return migrations
}

// checkMigrationsFile fails, as a usage error, when the --migrations file
// could not be written, before the run, so that its verdict is never lost
// to a mistyped path.
func checkMigrationsFile(path string) error {
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return usageError("--migrations %v", err)
	}
	return f.Close()
}

// writeMigrations writes the StorageVersionMigration objects to the
// --migrations file, emptied when none is needed so that an old one is
// never applied again, and to standard output with -o migrations.
func (o *diffOptions) writeMigrations(streams Streams, migrations []*diff.Migration) error {
	if o.migrations == "" && o.extraOutput != outputMigrations {
		return nil
	}
	docs := make([]any, len(migrations))
	for i, m := range migrations {
		obj, err := plainObject(m.Object())
		if err != nil {
			return &exitError{code: ExitInternal, err: err}
		}
		docs[i] = obj
	}
	var buf bytes.Buffer
	if err := writeYAML(&buf, docs...); err != nil {
		return err
	}
	if len(migrations) == 0 {
		fmt.Fprintln(streams.Err, "crdguard: note: no change needs a storage version migration")
	}
	if o.migrations != "" {
		if err := os.WriteFile(o.migrations, buf.Bytes(), 0o644); err != nil {
			return &exitError{code: ExitInternal, err: fmt.Errorf("--migrations: %w", err)}
		}
	}
	if o.extraOutput == outputMigrations {
		if _, err := streams.Out.Write(buf.Bytes()); err != nil {
			return outputError(err)
		}
	}
	return nil
}
