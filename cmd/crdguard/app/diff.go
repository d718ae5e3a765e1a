package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/crdguard/crdguard/internal/version"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/manifest"
	"github.com/crdguard/crdguard/pkg/report"
	"github.com/crdguard/crdguard/pkg/schema"
	"github.com/crdguard/crdguard/pkg/schema/diff"
	"github.com/crdguard/crdguard/pkg/schema/gotypes"
)

// Policy names of the diff command's findings, as in "diff/field-removed".
const (
	diffPolicy   = "diff"
	replayPolicy = "replay"
)

type diffOptions struct {
	config     string
	objects    []string
	allowEmpty bool
	// objectsLimit bounds the stored objects --objects cluster replays per
	// kind and version.
	objectsLimit int
	// migrations is the --migrations file, "" for none.
	migrations string
	// cluster is what cluster: and --objects cluster read; nil connects
	// through --kubeconfig and --context.
	cluster *kubeCluster
	// minSeverity is the lowest severity of the CRD findings text and
	// markdown list; default info, every finding.
	minSeverity     string
	minSeverityFlag *choiceFlag
	reportOptions
	// now is the day waiver expiry is judged against; tests pin it.
	now func() time.Time
}

func newDiffCommand(streams Streams) *cobra.Command {
	return newDiffCommandOn(streams, newKubeCluster())
}

// newDiffCommandOn is the diff command reading the cluster through
// cluster, whose kubeconfig and context are its flags.
func newDiffCommandOn(streams Streams, cluster *kubeCluster) *cobra.Command {
	o := &diffOptions{now: time.Now, minSeverity: string(gotypes.Info), objectsLimit: defaultObjectsLimit, cluster: cluster}
	cmd := &cobra.Command{
		Use:   "diff [flags] OLD NEW",
		Short: "Classify every change between two versions of a set of CRDs",
		Long: `Compare the CRDs in OLD with those in NEW, matched by name, version by version,
and classify every difference as breaking, warning or info, with its JSON path,
the old and new values and what it does to stored objects and clients. A
difference no check explains is reported as "unclassified" (breaking).
Text and markdown name a schema node by its place in the object, with the
version beside it (v1: ^.spec.rules[*].filters[*]/x-kubernetes-validations[2]:
"^" is the object, "[*]" any list item or map value, "/" the keyword that
changed); JSON, SARIF and JUnit keep the full path in the CRD.
--min-severity warning lists only breaking changes (severity error) and warnings.

OLD and NEW are each a file, a directory (walked for .yaml, .yml and .json),
"-" for stdin, or git:REF:PATH to read PATH at REF through the git CLI (PATH is
relative to the repository root, or to the current directory when it starts
with "./"). A side without CRDs exits 2, so a wrong path never passes as
"every CRD was added"; --allow-empty compares it as an empty set. What is not
a CRD is skipped with a note on stderr: other objects, a kustomization's
patches (diff the output of kustomize build to include them), a chart's Helm
templates (render them with helm template); a file with Helm template actions
elsewhere is an error that says so. A document of kind CustomResourceDefinition
that the API server would refuse is an error.

With --objects, the objects there (for example kubectl get -o yaml output) are
validated against the NEW CRDs as an UPDATE of themselves and as a CREATE, as
the webhook's /validate-crd replays stored objects. Each finding fails the run:
rejected-on-update (the next write fails), ratchet-tolerated (only a write that
leaves the value unchanged passes; a change or a re-create fails) and pruned
(the new schema does not declare the field: the next write drops it).

Checks:
` + diffCheckList(),
		Example: `  crdguard diff git:main:config/crd/bases config/crd/bases
  crdguard diff old/crds.yaml new/crds.yaml -o markdown > comment.md
  crdguard diff --config crdguard-diff.yaml --objects backup/ old/ new/`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), args[0], args[1], streams)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.config, "config", "", "YAML file with per-check enforcement (Deny|Warn|Audit), enumValueAdded and waivers")
	f.StringArrayVar(&o.objects, "objects", nil, `file or directory of existing objects to validate against the new CRDs (repeatable); "cluster" lists the stored objects of every changed CRD from the cluster (OLD must be cluster:)`)
	f.IntVar(&o.objectsLimit, "objects-limit", o.objectsLimit, "--objects cluster: most stored objects of one kind and version to replay; more is an error (exit 2), never a partial answer")
	f.StringVar(&o.migrations, "migrations", "", "write the StorageVersionMigration objects the change needs to FILE (emptied when it needs none)")
	f.StringVar(&o.cluster.kubeconfig, "kubeconfig", "", "cluster: and --objects cluster: path to the kubeconfig file (default: $KUBECONFIG or ~/.kube/config)")
	f.StringVar(&o.cluster.context, "context", "", "cluster: and --objects cluster: the kubeconfig context to use (default: the current one)")
	f.BoolVar(&o.allowEmpty, "allow-empty", false, "accept an OLD or NEW without CRDs, as when the first release adds them (default: exit 2)")
	o.minSeverityFlag = newChoiceFlag(&o.minSeverity, string(gotypes.Error), string(gotypes.Warning), string(gotypes.Info)).
		withDeprecated(string(diff.Breaking), string(gotypes.Error))
	f.Var(o.minSeverityFlag, "min-severity",
		`text and markdown output: list only CRD findings at this severity or above, "error" (breaking changes), "warning" or "info"; the counts include every finding, and the other formats list them all`)
	o.addReportFlags(f, streams, "text output: print only CRDs and objects with findings", outputMigrations)
	return cmd
}

func diffCheckList() string {
	var b strings.Builder
	for _, c := range diff.Checks() {
		fmt.Fprintf(&b, "  %-32s %s\n", c.Name, c.Doc)
	}
	return b.String()
}

func (o *diffOptions) run(ctx context.Context, oldArg, newArg string, streams Streams) error {
	// Each side is parsed once: readGit reads it, and the report names
	// its sources relative to it.
	oldSide, newSide := newDiffSide("OLD", oldArg), newDiffSide("NEW", newArg)
	for _, side := range []diffSide{oldSide, newSide} {
		if side.err != nil {
			return usageError("%s %v", side.name, side.err)
		}
	}
	if newSide.cluster {
		return usageError("NEW %s: the cluster holds what is installed, NEW what is to be installed: give a file, a directory, - or git:REF:PATH (the cluster is OLD)", newArg)
	}
	objectPaths, objectsCluster := splitObjects(o.objects)
	if objectsCluster && !oldSide.cluster {
		return inputError(errNoCluster)
	}
	if objectsCluster && o.objectsLimit <= 0 {
		return usageError("--objects-limit %d: want a positive bound on the stored objects of a kind", o.objectsLimit)
	}
	if err := stdinOnce(pathFlag{"OLD", []string{oldArg}}, pathFlag{"NEW", []string{newArg}}, pathFlag{"--objects", objectPaths}); err != nil {
		return err
	}
	if err := checkMigrationsFile(o.migrations); err != nil {
		return err
	}
	if w := o.minSeverityFlag.deprecationWarning("min-severity"); w != "" {
		fmt.Fprintf(streams.Err, "crdguard: warning: %s\n", w)
	}
	var config *diff.Config
	if o.config != "" {
		var err error
		if config, err = diff.LoadConfig(o.config); err != nil {
			return usageError("--config %v", err)
		}
		for _, d := range config.Deprecated {
			fmt.Fprintf(streams.Err, "crdguard: warning: --config %s: %s\n", o.config, d)
		}
	}
	oldCRDs, newCRDs, err := o.loadSides(ctx, streams, oldSide, newSide)
	if err != nil {
		return err
	}
	// Fail closed: a wrong path must not pass as "every CRD was added".
	for _, side := range []struct {
		side diffSide
		crds []schema.LocatedCRD
	}{{oldSide, oldCRDs}, {newSide, newCRDs}} {
		if len(side.crds) == 0 && !o.allowEmpty {
			return usageError("%s %s holds no CustomResourceDefinition (--allow-empty compares it as an empty set)", side.side.name, side.side.arg)
		}
	}
	results, pairs, err := o.diffResults(config, oldCRDs, newCRDs)
	if err != nil {
		return &exitError{code: ExitInternal, err: err}
	}
	var runs func() (migrationRuns, error)
	if oldSide.cluster {
		client, err := o.kube().Client()
		if err != nil {
			return err
		}
		runs = sync.OnceValues(func() (migrationRuns, error) { return listMigrationRuns(ctx, client) })
	}
	migrations := addMigrationFindings(results, pairs, runs)
	layout := &report.DiffLayout{
		Old: oldSide.origin(), New: newSide.origin(), CRDs: len(results),
		MinEnforcement: enforcement(gotypes.Severity(o.minSeverity)), ShortPath: diff.ShortPath,
	}
	if len(objectPaths) > 0 {
		replayed, err := replay(ctx, streams, newCRDs, objectPaths)
		if err != nil {
			return err
		}
		results = append(results, replayed...)
	}
	if objectsCluster {
		client, err := o.kube().Client()
		if err != nil {
			return err
		}
		replayed, err := replayCluster(ctx, streams, client, pairs, newCRDs, o.objectsLimit)
		if err != nil {
			return err
		}
		results = append(results, replayed...)
	}
	if o.objects != nil {
		layout.Objects = make([]report.Origin, len(o.objects))
		for i, arg := range o.objects {
			layout.Objects[i] = pathOrigin(arg)
			if arg == objectsFromCluster {
				layout.Objects[i] = report.Origin{Arg: arg, Name: arg, EntryPrefix: clusterPrefix}
			}
		}
	}
	rep := report.New(results)
	if err := o.writeMigrations(streams, migrations); err != nil {
		return err
	}
	err = o.writeReports(streams, func(w io.Writer, format report.Format) error {
		return report.Write(w, format, rep, report.Options{Quiet: o.quiet, ToolVersion: version.Get(), Command: "diff", Diff: layout})
	})
	if err != nil {
		return err
	}
	return verdictExit(rep.Summary)
}

// kube is the cluster of --kubeconfig and --context.
func (o *diffOptions) kube() *kubeCluster {
	if o.cluster == nil {
		o.cluster = newKubeCluster()
	}
	return o.cluster
}

// splitObjects separates the --objects paths from "cluster".
func splitObjects(objects []string) (paths []string, cluster bool) {
	for _, arg := range objects {
		if arg == objectsFromCluster {
			cluster = true
			continue
		}
		paths = append(paths, arg)
	}
	return paths, cluster
}

// loadSides reads the CRDs of both sides. With the cluster as OLD, NEW is
// read first: cluster: reads the cluster's copy of each CRD NEW holds, so
// that the cluster's other CRDs are not reported as removed, and both
// sides get the defaults the API server stores a CRD with.
func (o *diffOptions) loadSides(ctx context.Context, streams Streams, oldSide, newSide diffSide) (oldCRDs, newCRDs []schema.LocatedCRD, err error) {
	if !oldSide.cluster {
		if oldCRDs, err = oldSide.load(ctx, streams); err != nil {
			return nil, nil, inputError(fmt.Errorf("OLD: %w", err))
		}
	}
	if newCRDs, err = newSide.load(ctx, streams); err != nil {
		return nil, nil, inputError(fmt.Errorf("NEW: %w", err))
	}
	if !oldSide.cluster {
		return oldCRDs, newCRDs, nil
	}
	client, err := o.kube().Client()
	if err != nil {
		return nil, nil, err
	}
	names, mustExist := oldSide.clusterNames, true
	if names == nil {
		names, mustExist = crdNames(newCRDs), false
	}
	if oldCRDs, err = liveCRDs(ctx, client, names, mustExist); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil, usageError("OLD: %v", err)
		}
		return nil, nil, unreadableCluster(fmt.Errorf("OLD: %w", err))
	}
	return oldCRDs, defaulted(newCRDs), nil
}

// diffResults turns the changes into one report result per CRD, located at
// the CRD's document in the new input (the old one for a removed CRD), and
// each finding at the line of its node there.
func (o *diffOptions) diffResults(config *diff.Config, oldCRDs, newCRDs []schema.LocatedCRD) ([]report.Result, []diff.Pair, error) {
	docs := map[string]manifest.Document{}
	var oldList, newList []*apiextensionsv1.CustomResourceDefinition
	for _, c := range oldCRDs {
		docs[c.CRD.Name] = c.Doc
		oldList = append(oldList, c.CRD)
	}
	for _, c := range newCRDs {
		docs[c.CRD.Name] = c.Doc // the new location wins
		newList = append(newList, c.CRD)
	}
	now := o.now()
	var results []report.Result
	pairs := diff.MatchCRDs(oldList, newList)
	for _, pair := range pairs {
		changes, err := pair.Compare()
		if err != nil {
			return nil, nil, err
		}
		doc := docs[pair.Name]
		// Parsed once per CRD that has findings, and only here: reading
		// does not keep a position tree for every document.
		var lines *diff.LineIndex
		if len(changes) > 0 {
			lines = diff.NewLineIndex(doc)
		}
		res := report.Result{
			Source: doc.Source, Document: doc.Index, Line: doc.Line,
			APIVersion: apiextensionsv1.SchemeGroupVersion.String(), Kind: "CustomResourceDefinition", Name: pair.Name,
			Operation: "UPDATE",
		}
		switch {
		case pair.New == nil:
			res.Operation = "DELETE"
		case pair.Old == nil:
			res.Operation = "CREATE"
		}
		for _, ch := range changes {
			f := changeFinding(ch, config.Decide(ch, now))
			f.Line = lines.Line(ch.Path, ch.Version)
			res.Violations = append(res.Violations, f)
		}
		results = append(results, res)
	}
	return results, pairs, nil
}

// changeFinding renders a change as a report finding. The finding's type is
// the change's impact: the classification, which enforcement may
// override.
func changeFinding(ch diff.Change, d diff.Decision) report.Finding {
	msg := ch.Values() + ": " + ch.Message
	if ch.Version != "" {
		msg = ch.Version + ": " + msg
	}
	f := report.Finding{Field: ch.Path, Type: string(ch.Impact), Policy: diffPolicy, Rule: ch.Check, Enforcement: d.Enforcement}
	switch {
	case d.Expired:
		// An expired waiver fails the run whatever the check's enforcement,
		// so that it is revisited rather than forgotten.
		f.Enforcement = v1alpha1.Deny
		msg += fmt.Sprintf(" (waiver expired on %s: %s)", d.Waiver.Expires, d.Waiver.Reason)
	case d.Waiver != nil:
		msg += " (waived: " + d.Waiver.Reason + ")"
	}
	f.Message = msg
	return f
}

// replay validates existing objects against the new CRDs through
// diff.Replay, the replay /validate-crd runs on stored objects. Every
// finding is Deny: each is an object the upgrade leaves unable to be
// written as it is.
func replay(ctx context.Context, streams Streams, newCRDs []schema.LocatedCRD, paths []string) ([]report.Result, error) {
	crds := make([]*apiextensionsv1.CustomResourceDefinition, len(newCRDs))
	for i, c := range newCRDs {
		crds[i] = c.CRD
	}
	registry, err := schema.NewRegistry(crds...)
	if err != nil {
		return nil, inputError(err)
	}
	// Each object is replayed as it is read and dropped: memory holds the
	// results, not the objects.
	var results []report.Result
	err = manifest.EachDocument(streams.In, paths, func(doc manifest.Document) error {
		results = append(results, replayDocument(ctx, registry, doc))
		return nil
	})
	if err != nil {
		return nil, inputError(err)
	}
	return results, nil
}

// replayDocument is the result of replaying one document.
func replayDocument(ctx context.Context, registry *schema.Registry, doc manifest.Document) report.Result {
	res := report.Result{Source: doc.Source, Document: doc.Index, Line: doc.Line, Operation: "UPDATE"}
	if doc.Err != nil {
		res.Error = doc.Err.Error()
		return res
	}
	obj := doc.Object
	res.APIVersion, res.Kind, res.Namespace, res.Name = obj.GetAPIVersion(), obj.GetKind(), registry.Namespace(obj), obj.GetName()
	findings, err := diff.Replay(ctx, registry, obj)
	var noSchema *schema.NoSchemaError
	switch {
	case errors.As(err, &noSchema):
		res.Skipped, res.SkipReason = true, "no new CustomResourceDefinition defines "+obj.GroupVersionKind().String()
	case err != nil:
		res.Error = err.Error()
	}
	for _, f := range findings {
		res.Violations = append(res.Violations, report.Finding{
			Field: f.Error.Field, Type: string(f.Error.Type), Message: f.Message(),
			Policy: replayPolicy, Rule: string(f.Class), Enforcement: v1alpha1.Deny,
		})
	}
	return res
}
