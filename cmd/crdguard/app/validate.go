package app

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/manifest"
	"github.com/crdguard/crdguard/pkg/policies"
	"github.com/crdguard/crdguard/pkg/report"
	"github.com/crdguard/crdguard/pkg/schema"
)

// Values of --missing-schemas.
const (
	missingSkip  = "skip"
	missingError = "error"
)

// fieldValidations are the values of --field-validation: the server's
// modes, which it too takes in any letter case.
func fieldValidations() []string {
	modes := schema.FieldValidations()
	names := make([]string, len(modes))
	for i, m := range modes {
		names[i] = string(m)
	}
	return names
}

type validateOptions struct {
	// filenames are inputs given as kubectl takes them (-f), read after
	// the positional ones.
	filenames       []string
	crds            []string
	policies        []string
	old             []string
	unpaired        string
	delete          bool
	user            string
	groups          []string
	missingSchemas  string
	namespaceLabels []string
	allowEmpty      bool
	exclude         []string
	skipKinds       []string
	reportOptions
	showPatches bool
	// warningsAsErrors turns every warning into a Deny finding.
	warningsAsErrors bool
	// fieldValidation is the server's fieldValidation each request is
	// validated with; Strict by default, as kubectl's --validate.
	fieldValidation string
	// showStored adds to each accepted object's result the object as the
	// server would store it.
	showStored bool
}

func newValidateCommand(streams Streams) *cobra.Command {
	o := &validateOptions{missingSchemas: missingSkip, unpaired: unpairedError, fieldValidation: string(schema.FieldValidationStrict)}
	cmd := &cobra.Command{
		Use:   "validate [flags] [PATH...]",
		Short: "Validate objects against CRD schemas as kube-apiserver would",
		Long: `Validate custom resources in files, directories (walked for .yaml, .yml and .json)
or stdin ("-", or no PATH) against the CRDs given with --crds. Every object gets the verdict
kube-apiserver would give it on create, or on update when --old holds its
previous version (transition rules and ratcheting apply), plus the unknown
fields the server would reject under strict field validation or silently drop.

A run that checks nothing exits 2, naming the path: a --crds or --policies
path without CRDs or GuardPolicies, inputs without objects, or inputs whose
every object no CRD or policy covers. --allow-empty accepts such a run.
Standard input ("-") may be given to one flag or the inputs, not two.

A file that cannot be read is an error result and the others are still
validated. Walks skip, with a note on stderr, what is not a manifest:
named pipes, sockets and devices, kustomization files, a Helm chart's
Chart.yaml, values.yaml and templates, and .github directories.`,
		Example: `  crdguard validate --crds config/crd/bases config/samples
  crdguard validate --crds crds/ --old main/objects/ objects/ -o json
  kubectl get widgets -A -o yaml | crdguard validate --crds crds/ -
  crdguard validate --crds crds/ -f widget.yaml -f samples/`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), append(args, o.filenames...), streams)
		},
	}
	f := cmd.Flags()
	f.StringArrayVarP(&o.filenames, "filename", "f", nil, `an input PATH, as kubectl's -f (repeatable; read after the PATH arguments); not comma-separated, not a URL, and a directory is walked whole, as with -R`)
	f.StringArrayVar(&o.crds, "crds", nil, "CRD file or directory (repeatable)")
	f.StringArrayVar(&o.policies, "policies", nil, "GuardPolicy file or directory (repeatable)")
	f.BoolVar(&o.delete, "delete", false, "evaluate every object as a DELETE of that object")
	f.StringVar(&o.user, "user", "", "the requesting user, for approvals and CEL rules")
	f.StringSliceVar(&o.groups, "groups", nil, "the requesting user's groups (comma-separated or repeated)")
	f.BoolVar(&o.showPatches, "show-patches", false, "show the JSON patches the mutating webhook would apply")
	f.Var(newChoiceFlag(&o.fieldValidation, fieldValidations()...), "field-validation", `what unknown fields are, as the server's fieldValidation: "Strict" (errors), "Warn" (dropped, with a warning each) or "Ignore" (dropped in silence); the object's other errors are reported in every mode`)
	f.BoolVar(&o.showStored, "show-stored", false, "show each accepted object as kube-apiserver would store it: pruned, defaulted, metadata filled; without what only the server assigns (uid, creationTimestamp on create, resourceVersion, managedFields)")
	f.BoolVar(&o.warningsAsErrors, "warnings-as-errors", false, `deny an object the server would warn about: each warning becomes a finding of rule schema/warning (exit 1)`)
	f.StringArrayVar(&o.old, "old", nil, "file or directory with previous versions of the objects (repeatable); an object with the same apiVersion, kind, namespace and name there is validated as an UPDATE")
	f.Var(newChoiceFlag(&o.unpaired, unpairedError, unpairedCreate), "unpaired", `with --old: what an input without a previous version there (renamed, moved, new) is, and an old object no input pairs with: "error" (an error result each) or "create" (validate the input as a CREATE, with a note on stderr for each)`)
	f.Var(newChoiceFlag(&o.missingSchemas, missingSkip, missingError), "missing-schemas", `what to do with objects no CRD defines: "skip" (warn on stderr) or "error" (deny them)`)
	f.StringArrayVar(&o.namespaceLabels, "namespace-labels", nil, `labels of a namespace, for policies with a namespaceSelector: "NAMESPACE=KEY=VALUE,..." ("NAMESPACE=" for none; repeatable). Namespace objects among the inputs give them too; an object in a namespace with unknown labels is an error`)
	f.StringArrayVar(&o.exclude, "exclude", nil, `do not read paths matching GLOB (repeatable): a GLOB without "/" matches a file or directory name, one with "/" the path relative to the walked PATH; path.Match syntax, no "**"`)
	f.StringSliceVar(&o.skipKinds, "skip-kinds", nil, `kinds not to validate, each KIND or APIVERSION/KIND (apps/v1/Deployment, v1/Secret); comma-separated or repeated; such objects are reported as skipped`)
	f.BoolVar(&o.allowEmpty, "allow-empty", false, "accept a run that checks nothing: a --crds or --policies path without CRDs or GuardPolicies, inputs without objects, or objects no CRD or policy covers (default: exit 2)")
	o.addReportFlags(f, "text output: print only objects with findings")
	return cmd
}

func (o *validateOptions) run(ctx context.Context, paths []string, streams Streams) error {
	if o.delete && len(o.old) > 0 {
		return usageError("--delete and --old do not go together: a DELETE has no new object")
	}
	for _, p := range o.exclude {
		if err := manifest.ValidateExclude(p); err != nil {
			return usageError("--exclude: %v", err)
		}
	}
	paths, err := inputPaths(streams, paths, "crdguard validate", pathFlag{"--crds", o.crds}, pathFlag{"--policies", o.policies}, pathFlag{"--old", o.old})
	if err != nil {
		return err
	}
	if err := stdinOnce(pathFlag{"--crds", o.crds}, pathFlag{"--policies", o.policies}, pathFlag{"--old", o.old}, pathFlag{"the inputs", paths}); err != nil {
		return err
	}
	engine, _, err := policies.Files{CRDs: o.crds, Policies: o.policies, Stdin: streams.In, AllowEmpty: o.allowEmpty}.Engine(ctx)
	if err != nil {
		return emptyOrInputError(err)
	}
	defer paceCollector(checkGCPercent)()
	registry := engine.Schemas()
	olds, err := loadOldObjects(streams, registry, o.old)
	if err != nil {
		return err
	}
	sources, err := newSourceSet(streams, paths, manifest.WalkOptions{Exclude: o.exclude, SkipRepositoryFiles: true})
	if err != nil {
		return inputError(err)
	}
	run := &validationRun{registry: registry, engine: engine, olds: olds}
	if run.namespaceLabels, err = parseNamespaceLabels(o.namespaceLabels); err != nil {
		return err
	}
	if engine.UsesNamespaceSelector() {
		if err := sources.addNamespaceLabels(ctx, run.namespaceLabels); err != nil {
			return err
		}
	}

	// Each worker reads, decodes and validates whole files, so parsing runs
	// in parallel and a file's objects are garbage once its results exist;
	// output writes each result once those of the files before it are
	// written.
	output := newResultStream(streams, o.reportOptions)
	var outputErr atomic.Pointer[error]
	var validated, read atomic.Int64
	progress := startProgress(streams.Err, func(time.Duration) string {
		return fmt.Sprintf("validated %d objects from %d/%d files", validated.Load(), read.Load(), len(sources.paths))
	})
	var next atomic.Int64
	var crashed atomic.Pointer[error]
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			// A panic here would bypass Run's recover: it runs on this goroutine.
			defer func() {
				if r := recover(); r != nil {
					err := fmt.Errorf("internal error: %v", r)
					crashed.Store(&err)
				}
			}()
			for ctx.Err() == nil && crashed.Load() == nil && outputErr.Load() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(sources.paths) {
					return
				}
				docs, err := sources.read(ctx, i)
				if err != nil {
					// One bad file is one error result; the others are still checked.
					err = output.result(i, unreadableSource(sources.paths[i], err))
				}
				for j := 0; j < len(docs) && err == nil; j++ {
					err = output.result(i, o.evaluate(ctx, run, i, docs[j]))
					// A checked object is garbage: the heap holds one
					// object per worker, not a whole file of them.
					docs[j] = manifest.Document{}
					validated.Add(1)
				}
				read.Add(1)
				if err == nil {
					err = output.done(i)
				}
				if err != nil {
					err = &exitError{code: ExitInternal, err: err}
					outputErr.Store(&err)
				}
			}
		})
	}
	wg.Wait()
	progress.stop()
	if err := crashed.Load(); err != nil {
		return &exitError{code: ExitInternal, err: *err}
	}
	if err := outputErr.Load(); err != nil {
		return *err
	}
	if ctx.Err() != nil {
		return &exitError{code: ExitInternal, err: context.Cause(ctx)}
	}
	run.createNotes.print(streams)
	// The old objects nothing paired with come after every input, from
	// the --old files: only now is it known that no input pairs with them.
	for _, r := range olds.unpairedOld(streams, o.unpaired) {
		if err := output.result(len(sources.paths), r); err != nil {
			return &exitError{code: ExitInternal, err: err}
		}
	}
	summary, err := output.close(o.allowEmpty, paths)
	if err != nil {
		return err
	}
	return verdictExit(summary)
}

// emptyOrInputError is a loading error as the CLI reports it: a path
// without what it was given for says how to accept that.
func emptyOrInputError(err error) error {
	var empty *policies.EmptyPathError
	if errors.As(err, &empty) {
		return usageError("%v: nothing there to check with (--allow-empty accepts it)", err)
	}
	return inputError(err)
}

// validationRun is what every object of one run is evaluated with.
type validationRun struct {
	registry *schema.Registry
	engine   *policies.Engine
	olds     *oldObjects
	// createNotes tell which inputs were validated as a CREATE for want
	// of a previous version (--unpaired=create).
	createNotes createNotes
	// namespaceLabels are the labels of namespaces, from
	// --namespace-labels and the Namespaces among the inputs, for policies
	// with a namespaceSelector.
	namespaceLabels map[string]map[string]string
}

// sourceSet is the inputs of a run. Standard input can be read only once,
// so its documents are kept; files are read when needed.
type sourceSet struct {
	paths []string
	// errs are why a source could not be listed (an unreadable
	// directory), by index.
	errs      map[int]error
	stdinDocs []manifest.Document
	stdinErr  error
}

func newSourceSet(streams Streams, paths []string, opts manifest.WalkOptions) (*sourceSet, error) {
	walked, err := manifest.Walk(paths, opts)
	if err != nil {
		return nil, err
	}
	s := &sourceSet{errs: map[int]error{}}
	for _, src := range walked {
		switch {
		case src.Skip != "":
			fmt.Fprintf(streams.Err, "crdguard: note: skipped %s: %s\n", src.Path, src.Skip)
		case src.Err != nil:
			s.errs[len(s.paths)] = src.Err
			s.paths = append(s.paths, src.Path)
		case src.Path == "-":
			s.paths = append(s.paths, src.Path)
			s.stdinDocs, s.stdinErr = manifest.Read(streams.In, "-")
		default:
			s.paths = append(s.paths, src.Path)
		}
	}
	return s, nil
}

func (s *sourceSet) read(ctx context.Context, i int) ([]manifest.Document, error) {
	switch {
	case s.errs[i] != nil:
		return nil, s.errs[i]
	case s.paths[i] == "-":
		return slices.Clone(s.stdinDocs), s.stdinErr // the caller may clear its copy
	}
	return manifest.ReadFileContext(ctx, s.paths[i])
}

// unreadableSource is the result of a source that could not be read: an
// error for the whole file, which fails the run as a broken document does.
func unreadableSource(source string, err error) report.Result {
	reason := err
	var srcErr *manifest.SourceError
	if errors.As(err, &srcErr) {
		reason = srcErr.Err // the result names the source
	}
	return report.Result{Source: source, NotStream: true, Error: reason.Error()}
}

// addNamespaceLabels adds the labels of the Namespace objects among the
// inputs, for policies with a namespaceSelector. It reads every file once
// more: only runs with such policies pay for it.
func (s *sourceSet) addNamespaceLabels(ctx context.Context, known map[string]map[string]string) error {
	for i := range s.paths {
		docs, err := s.read(ctx, i)
		if ctx.Err() != nil {
			return &exitError{code: ExitInternal, err: context.Cause(ctx)}
		}
		if err != nil {
			continue // the run reports it
		}
		for _, d := range docs {
			if d.Object != nil && d.Object.GetAPIVersion() == "v1" && d.Object.GetKind() == "Namespace" {
				known[d.Object.GetName()] = d.Object.GetLabels()
				if known[d.Object.GetName()] == nil {
					known[d.Object.GetName()] = map[string]string{}
				}
			}
		}
	}
	return nil
}

// parseNamespaceLabels reads --namespace-labels values, "NAMESPACE=KEY=VALUE,...".
func parseNamespaceLabels(values []string) (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	for _, v := range values {
		ns, list, ok := strings.Cut(v, "=")
		if !ok || ns == "" {
			return nil, usageError("--namespace-labels %q: want NAMESPACE=KEY=VALUE,... (NAMESPACE= for none)", v)
		}
		set, err := labels.ConvertSelectorToLabelsMap(list)
		if err != nil {
			return nil, usageError("--namespace-labels %q: %v", v, err)
		}
		out[ns] = set
	}
	return out, nil
}

// evaluate gives document doc of source i its verdict, through the same
// engine the webhook uses.
func (o *validateOptions) evaluate(ctx context.Context, run *validationRun, i int, doc manifest.Document) report.Result {
	res := report.Result{Source: doc.Source, Document: doc.Index, Line: doc.Line}
	if doc.InList {
		res.Item = &doc.Item
	}
	if doc.Err != nil {
		res.Error = doc.Err.Error()
		return res
	}
	obj := doc.Object
	res.APIVersion, res.Kind, res.Namespace, res.Name = obj.GetAPIVersion(), obj.GetKind(), run.registry.Namespace(obj), obj.GetName()
	if res.Name == "" {
		res.Name = obj.GetGenerateName()
	}
	// Paired before anything is skipped: an old object whose input is
	// skipped still has its input.
	key := keyOf(run.registry, obj)
	old := run.olds.pair(key)
	if reason := o.skipReason(obj); reason != "" {
		res.Skipped, res.SkipReason = true, reason
		return res
	}
	req := policies.Request{
		Operation:       v1alpha1.Create,
		Object:          obj,
		Namespace:       res.Namespace,
		NamespaceLabels: run.namespaceLabels[res.Namespace],
		UserInfo:        authenticationv1.UserInfo{Username: o.user, Groups: o.groups},
		FieldValidation: schema.FieldValidation(o.fieldValidation),
		ShowStored:      o.showStored,
	}
	if old != nil {
		req.Operation, req.OldObject = v1alpha1.Update, old
	}
	if o.delete {
		req.Operation, req.Object, req.OldObject = v1alpha1.Delete, nil, obj
	}
	res.Operation = string(req.Operation)

	out, err := run.engine.Evaluate(ctx, req)
	if err != nil {
		res.Error = err.Error()
		if unknown := (*policies.UnknownNamespaceError)(nil); errors.As(err, &unknown) {
			res.Error += fmt.Sprintf(": give them with a Namespace manifest among the inputs or --namespace-labels %s=KEY=VALUE,...", unknown.Namespace)
		}
		return res
	}
	noSchema := !out.SchemaValidated && req.Operation != v1alpha1.Delete
	switch {
	case noSchema && o.missingSchemas == missingError:
		res.Violations = append(res.Violations, report.Finding{
			Field: "kind", Type: "FieldValueNotFound", Policy: policies.SchemaPolicy, Rule: "missing-schema", Enforcement: v1alpha1.Deny,
			Message: fmt.Sprintf("Not found: no CustomResourceDefinition defines %s; pass the CRD with --crds", obj.GroupVersionKind()),
		})
	case noSchema && len(out.Policies) == 0:
		res.Skipped, res.SkipReason = true, noCRDReason+obj.GroupVersionKind().String()
		return res
	}
	// An object nothing checks is skipped whatever --old holds; one that
	// is checked is checked as what it is, an UPDATE, or not at all.
	if old == nil && run.olds.given() {
		if o.unpaired == unpairedError {
			return report.Result{Source: res.Source, Document: res.Document, Line: res.Line,
				APIVersion: res.APIVersion, Kind: res.Kind, Namespace: res.Namespace, Name: res.Name,
				Error: run.olds.unpairedInput(key)}
		}
		run.createNotes.add(i, doc, key)
	}
	res.Violations = append(res.Violations, out.Violations...)
	locateFindings(doc, res.Violations)
	// crdguard's own notes follow the server's.
	res.Warnings = append(out.ServerWarnings, out.Warnings...)
	if o.warningsAsErrors {
		res.Violations = append(res.Violations, warningFindings(res.Warnings)...)
		res.Warnings = nil
	}
	// The server stores only what it accepts, webhooks included.
	if res.Decide(); out.Stored != nil && res.Allowed {
		res.Stored = out.Stored.Object
	}
	if o.showPatches {
		for _, p := range out.Patches {
			res.Patches = append(res.Patches, report.Patch{Op: p.Operation, Path: p.Path, Value: p.Value})
		}
	}
	return res
}

// warningFindings are warnings as Deny findings, for --warnings-as-errors.
// A warning's text is the server's and names no field of its own: the
// findings are at "<nil>", where the server puts errors without a path.
func warningFindings(warnings []string) []report.Finding {
	findings := make([]report.Finding, len(warnings))
	for i, w := range warnings {
		findings[i] = report.Finding{
			Field: "<nil>", Type: "Warning", Message: w,
			Policy: policies.SchemaPolicy, Rule: "warning", Enforcement: v1alpha1.Deny,
		}
	}
	return findings
}

// locateFindings points each finding at its field in the document's text.
// Only a document with findings is parsed for positions, and the parse is
// dropped with it, so a run never holds more than one document's node tree
// per worker.
func locateFindings(doc manifest.Document, findings []report.Finding) {
	if len(findings) == 0 {
		return
	}
	positions := doc.FieldPositions()
	for i := range findings {
		pos := positions.Of(findings[i].Field)
		findings[i].Line, findings[i].Column = pos.Line, pos.Column
	}
}

// noCRDReason starts the skip reason of an object no CRD defines.
const noCRDReason = "no CustomResourceDefinition defines "

// skipReason says why obj is not validated at all: kustomize's own
// configuration, which never reaches an API server, or a kind
// --skip-kinds names, by kind or by apiVersion/kind as kubeconform's -skip.
func (o *validateOptions) skipReason(obj *unstructured.Unstructured) string {
	if manifest.IsKustomizeConfig(obj) {
		return "kustomize configuration, never sent to an API server"
	}
	for _, k := range o.skipKinds {
		if k == obj.GetKind() || k == obj.GetAPIVersion()+"/"+obj.GetKind() {
			return "--skip-kinds " + k
		}
	}
	return ""
}
