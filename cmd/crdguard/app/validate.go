package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
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
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"

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
	// allowNoCustomResources passes inputs none of whose objects a CRD or
	// policy covers, as a hook given some of a commit's files needs.
	allowNoCustomResources bool
	exclude                []string
	skipKinds              []string
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
	// verifyFastPaths validates every object with the fast paths and
	// with kube-apiserver's validators alone, and stops at a difference.
	verifyFastPaths bool
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
every object no CRD or policy covers. --allow-empty accepts such a run;
--allow-no-custom-resources accepts only the last two, with a note, as a
pre-commit hook given a commit's kustomization or Deployment needs.
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
	f.StringArrayVar(&o.namespaceLabels, "namespace-labels", nil, `labels of a namespace, for policies with a namespaceSelector: "NAMESPACE=KEY=VALUE,..." ("NAMESPACE=" for none, "*=KEY=VALUE,..." for every namespace not named otherwise; repeatable). Namespace objects among the inputs give them too; an object in a namespace with unknown labels is an error`)
	f.StringArrayVar(&o.exclude, "exclude", nil, `do not read paths matching GLOB (repeatable): a GLOB without "/" matches a file or directory name, one with "/" the path relative to the walked PATH; path.Match syntax, no "**"`)
	f.StringSliceVar(&o.skipKinds, "skip-kinds", nil, `kinds not to validate, each KIND or APIVERSION/KIND (apps/v1/Deployment, v1/Secret); comma-separated or repeated; such objects are reported as skipped`)
	f.BoolVar(&o.verifyFastPaths, "verify-fast-paths", false, "validate every object twice, with crdguard's fast paths and with kube-apiserver's validators alone, and stop with exit 2 at the first difference in errors, paths or messages (a crdguard bug); about twice the CPU")
	f.BoolVar(&o.allowEmpty, "allow-empty", false, "accept a run that checks nothing: a --crds or --policies path without CRDs or GuardPolicies, inputs without objects, or objects no CRD or policy covers (default: exit 2)")
	f.BoolVar(&o.allowNoCustomResources, "allow-no-custom-resources", false, "accept inputs without objects, or whose every object no CRD or policy covers, with a note on stderr; an empty --crds or --policies path is still exit 2 (for hooks given only some files)")
	o.addReportFlags(f, streams, "text output: print only objects with findings")
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
	if o.verifyFastPaths {
		ctx = schema.WithFastPathVerification(ctx)
	}
	engine, _, err := policies.Files{CRDs: o.crds, Policies: o.policies, Stdin: streams.In, AllowEmpty: o.allowEmpty}.Engine(ctx)
	if err != nil {
		return emptyOrInputError(err)
	}
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
	// The kinds the inputs name compile now, in parallel, rather than in
	// the workers, each waiting on the one compiling the kind it needs. A
	// kind that does not compile is the error of each of its objects, as
	// it is without this.
	restoreLoadPace := paceCollector(compileGCPercent)
	_ = registry.Compile(ctx, sources.kindsNamed(registry)...)
	restoreLoadPace()
	// Loading and compiling reached the run's peak: checking is paced to
	// stay within it.
	defer paceFromLoad()()

	// One goroutine cuts the sources into parts (documents, or the items
	// of a List) in input order, which only scans lines; workers decode,
	// validate and drop them in parallel. Output writes each part's
	// results once those of the parts before it are written, and the
	// cutting stays at most partsAheadPerWorker parts per worker ahead of
	// the output, so memory holds a bounded number of parts and results,
	// however many objects one file holds.
	output := newResultStream(streams, o.reportOptions)
	var validated, read atomic.Int64
	progress := startProgress(streams.Err, func(time.Duration) string {
		return fmt.Sprintf("validated %d objects from %d/%d files", validated.Load(), read.Load(), len(sources.paths))
	})
	workers := runtime.GOMAXPROCS(0)
	runCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	window := newPartWindow(runCtx, partsAheadPerWorker*workers)
	parts := make(chan sourcePart, workers)
	var total atomic.Int64
	go func() {
		defer close(parts)
		total.Store(int64(sources.cut(runCtx, window, parts, func() { read.Add(1) })))
	}()
	var failed atomic.Pointer[error]
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			// cel-go derives a context from the one it is given for every
			// rule it evaluates: one per worker keeps the workers off one
			// shared context's lock.
			workerCtx, cancel := context.WithCancel(runCtx)
			defer cancel()
			// A panic here would bypass Run's recover: it runs on this goroutine.
			defer func() {
				if r := recover(); r != nil {
					var err error = &exitError{code: ExitInternal, err: fmt.Errorf("internal error: %v", r)}
					failed.CompareAndSwap(nil, &err)
					stop(err)
				}
			}()
			for {
				var p sourcePart
				var ok bool
				select {
				case p, ok = <-parts:
				case <-workerCtx.Done():
				}
				if !ok || workerCtx.Err() != nil {
					return
				}
				err := o.check(workerCtx, run, output, sources, p, &validated)
				if err == nil {
					err = output.done(p.seq)
				}
				window.done(p.seq)
				if err != nil {
					if exit := (*exitError)(nil); !errors.As(err, &exit) {
						err = &exitError{code: ExitInternal, err: err}
					}
					failed.CompareAndSwap(nil, &err)
					stop(err)
					return
				}
			}
		})
	}
	wg.Wait()
	progress.stop()
	if err := failed.Load(); err != nil {
		return *err
	}
	if ctx.Err() != nil {
		return &exitError{code: ExitInternal, err: context.Cause(ctx)}
	}
	run.createNotes.print(streams)
	// The old objects nothing paired with come after every input, from
	// the --old files: only now is it known that no input pairs with them.
	for _, r := range olds.unpairedOld(streams, o.unpaired) {
		if err := output.result(int(total.Load()), r); err != nil {
			return &exitError{code: ExitInternal, err: err}
		}
	}
	summary, err := output.close(o.allowEmpty, o.allowNoCustomResources, paths)
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

// sourceSet is the inputs of a run. Files are read when needed, and
// standard input as it is cut into parts, unless it is read twice
// (bufferStdin).
type sourceSet struct {
	paths []string
	// errs are why a source could not be listed (an unreadable
	// directory), by index.
	errs  map[int]error
	stdin io.Reader
	// stdinData is standard input's text once buffered, stdinErr why it
	// could not be read.
	stdinData []byte
	stdinErr  error
	buffered  bool
}

func newSourceSet(streams Streams, paths []string, opts manifest.WalkOptions) (*sourceSet, error) {
	walked, err := manifest.Walk(paths, opts)
	if err != nil {
		return nil, err
	}
	s := &sourceSet{errs: map[int]error{}, stdin: streams.In}
	for _, src := range walked {
		switch {
		case src.Skip != "":
			fmt.Fprintf(streams.Err, "crdguard: note: skipped %s: %s\n", src.Path, src.Skip)
		case src.Err != nil:
			s.errs[len(s.paths)] = src.Err
			s.paths = append(s.paths, src.Path)
		default:
			s.paths = append(s.paths, src.Path)
		}
	}
	return s, nil
}

// kindsNamed lists the kinds of registry that the inputs' block YAML
// names (see manifest.KindsNamed). It reads regular files, and standard
// input once buffered, never a pipe or device that a second read would
// find drained.
func (s *sourceSet) kindsNamed(registry *schema.Registry) []k8sschema.GroupVersionKind {
	defined := map[k8sschema.GroupVersionKind]bool{}
	for _, gvk := range registry.Kinds() {
		defined[gvk] = true
	}
	named := map[k8sschema.GroupVersionKind]bool{}
	var kinds []k8sschema.GroupVersionKind
	add := func(r io.Reader) {
		found, _ := manifest.KindsNamed(r) // what cannot be read is the run's to report
		for _, gvk := range found {
			if defined[gvk] && !named[gvk] {
				named[gvk] = true
				kinds = append(kinds, gvk)
			}
		}
	}
	for i, path := range s.paths {
		switch {
		case s.errs[i] != nil:
		case path == "-" && s.buffered:
			add(bytes.NewReader(s.stdinData))
		case path != "-":
			if info, err := os.Stat(path); err != nil || !info.Mode().IsRegular() {
				continue
			}
			f, err := os.Open(path)
			if err != nil {
				continue
			}
			add(io.LimitReader(f, manifest.MaxSourceBytes))
			_ = f.Close() // only read
		}
	}
	return kinds
}

// bufferStdin keeps standard input's text, at most MaxSourceBytes and one
// more to tell it is larger, for a run that reads its sources twice.
func (s *sourceSet) bufferStdin() {
	if s.buffered || !slices.Contains(s.paths, "-") {
		return
	}
	s.stdinData, s.stdinErr = io.ReadAll(io.LimitReader(s.stdin, manifest.MaxSourceBytes+1))
	s.buffered = true
}

// parts hands the parts of source i to yield in order.
func (s *sourceSet) parts(i int, yield func(manifest.Part) error) error {
	switch {
	case s.errs[i] != nil:
		return s.errs[i]
	case s.paths[i] == "-" && s.stdinErr != nil:
		return &manifest.SourceError{Source: "-", Err: s.stdinErr}
	case s.paths[i] == "-" && s.buffered:
		return manifest.Parts(bytes.NewReader(s.stdinData), "-", yield)
	case s.paths[i] == "-":
		return manifest.Parts(s.stdin, "-", yield)
	}
	return manifest.FileParts(s.paths[i], yield)
}

// sourcePart is a part of source, or why source could not be read from
// there on (err), numbered seq in the run.
type sourcePart struct {
	seq    int
	source int
	part   manifest.Part
	err    error
}

// cut sends the parts of every source to parts in input order, each once
// window lets it, until ctx is done, calling sourceRead after each source.
// It returns how many it sent.
func (s *sourceSet) cut(ctx context.Context, window *partWindow, parts chan<- sourcePart, sourceRead func()) int {
	seq := 0
	send := func(p sourcePart) error {
		if err := window.wait(seq); err != nil {
			return err
		}
		p.seq = seq
		select {
		case parts <- p:
			seq++
			return nil
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	for i := range s.paths {
		err := s.parts(i, func(p manifest.Part) error { return send(sourcePart{source: i, part: p}) })
		if ctx.Err() != nil {
			return seq
		}
		if err != nil {
			// One bad file is one error result; the others are still checked.
			if send(sourcePart{source: i, err: err}) != nil {
				return seq
			}
		}
		sourceRead()
	}
	return seq
}

// partWindow numbers the parts whose results are not all written yet, so
// that cutting waits while the earliest of them is far behind: a slow
// part then holds up a bounded number of others, never a whole file.
type partWindow struct {
	ctx  context.Context
	size int

	mu   sync.Mutex
	cond *sync.Cond
	// low is the first part not done; finished are those after it that
	// are.
	low      int
	finished map[int]bool
}

// partsAheadPerWorker is how many parts per worker may be cut ahead of
// the earliest whose results are not written.
const partsAheadPerWorker = 32

func newPartWindow(ctx context.Context, size int) *partWindow {
	w := &partWindow{ctx: ctx, size: size, finished: map[int]bool{}}
	w.cond = sync.NewCond(&w.mu)
	context.AfterFunc(ctx, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.cond.Broadcast()
	})
	return w
}

// wait returns once part seq may be cut, or with ctx's cause.
func (w *partWindow) wait(seq int) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for seq >= w.low+w.size && w.ctx.Err() == nil {
		w.cond.Wait()
	}
	return context.Cause(w.ctx)
}

// done records that the results of part seq are written, or wait.
func (w *partWindow) done(seq int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.finished[seq] = true
	for w.finished[w.low] {
		delete(w.finished, w.low)
		w.low++
	}
	w.cond.Broadcast()
}

// check writes the results of one part.
func (o *validateOptions) check(ctx context.Context, run *validationRun, output *resultStream, sources *sourceSet, p sourcePart, validated *atomic.Int64) error {
	if p.err != nil {
		return output.result(p.seq, unreadableSource(sources.paths[p.source], p.err))
	}
	for _, doc := range p.part.Documents() {
		res, err := o.evaluate(ctx, run, p.seq, doc)
		if err != nil {
			return err
		}
		if err := output.result(p.seq, res); err != nil {
			return err
		}
		validated.Add(1)
	}
	return nil
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
// more: only runs with such policies pay for it. It returns when ctx is
// done, leaving behind a read blocked on a named pipe without a writer.
func (s *sourceSet) addNamespaceLabels(ctx context.Context, known map[string]map[string]string) error {
	s.bufferStdin()
	found := map[string]map[string]string{}
	read := make(chan struct{})
	go func() {
		defer close(read)
		for i := range s.paths {
			_ = s.parts(i, func(p manifest.Part) error { // an unreadable source: the run reports it
				for _, d := range p.Documents() {
					if d.Object != nil && d.Object.GetAPIVersion() == "v1" && d.Object.GetKind() == "Namespace" {
						found[d.Object.GetName()] = d.Object.GetLabels()
						if found[d.Object.GetName()] == nil {
							found[d.Object.GetName()] = map[string]string{}
						}
					}
				}
				return ctx.Err()
			})
		}
	}()
	select {
	case <-read:
	case <-ctx.Done():
	}
	if ctx.Err() != nil {
		return &exitError{code: ExitInternal, err: context.Cause(ctx)}
	}
	maps.Copy(known, found)
	return nil
}

// anyNamespace is the NAMESPACE of --namespace-labels that gives the labels
// of every namespace named neither by the flag nor by a Namespace among the
// inputs: a CI run of manifests for many namespaces, all labelled alike.
// "*" is no namespace name, so it cannot collide with one.
const anyNamespace = "*"

// labelsOf is the labels of namespace ns: its own, else those given for
// any namespace; nil (unknown) when neither is given. A cluster-scoped
// object has no namespace to take them from.
func (r *validationRun) labelsOf(ns string) map[string]string {
	if set, ok := r.namespaceLabels[ns]; ok || ns == "" {
		return set
	}
	return r.namespaceLabels[anyNamespace]
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

// evaluate gives document doc of part i its verdict, through the same
// engine the webhook uses. Its only error stops the run: a difference
// --verify-fast-paths found, which leaves no verdict to trust.
func (o *validateOptions) evaluate(ctx context.Context, run *validationRun, i int, doc manifest.Document) (report.Result, error) {
	res := report.Result{Source: doc.Source, Document: doc.Index, Line: doc.Line}
	if doc.InList {
		res.Item = &doc.Item
	}
	if doc.Err != nil {
		res.Error = doc.Err.Error()
		return res, nil
	}
	obj := doc.Object
	gvk := obj.GroupVersionKind()
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
		return res, nil
	}
	req := policies.Request{
		Operation:       v1alpha1.Create,
		Object:          obj,
		Namespace:       res.Namespace,
		NamespaceLabels: run.labelsOf(res.Namespace),
		UserInfo:        authenticationv1.UserInfo{Username: o.user, Groups: o.groups},
		FieldValidation: schema.FieldValidation(o.fieldValidation),
		ShowStored:      o.showStored,
		// The document's object is read no more (its findings are
		// located in its text), so validation needs no copy of it.
		HandsOverObject: true,
	}
	if old != nil {
		req.Operation, req.OldObject = v1alpha1.Update, old
	}
	if o.delete {
		req.Operation, req.Object, req.OldObject = v1alpha1.Delete, nil, obj
	}
	res.Operation = string(req.Operation)

	out, err := run.engine.Evaluate(ctx, req)
	if mismatch := (*schema.FastPathMismatchError)(nil); errors.As(err, &mismatch) {
		return res, &exitError{code: ExitUsage, err: fmt.Errorf("%s: %w", doc.Position(), err)}
	}
	if err != nil {
		res.Error = err.Error()
		if unknown := (*policies.UnknownNamespaceError)(nil); errors.As(err, &unknown) {
			res.Error += fmt.Sprintf(": give them with a Namespace manifest among the inputs or --namespace-labels %s=KEY=VALUE,...", unknown.Namespace)
		}
		return res, nil
	}
	noSchema := !out.SchemaValidated && req.Operation != v1alpha1.Delete
	switch {
	case noSchema && o.missingSchemas == missingError:
		res.Violations = append(res.Violations, report.Finding{
			Field: "kind", Type: "FieldValueNotFound", Policy: policies.SchemaPolicy, Rule: "missing-schema", Enforcement: v1alpha1.Deny,
			Message: fmt.Sprintf("Not found: no CustomResourceDefinition defines %s; pass the CRD with --crds", gvk),
		})
	case noSchema && len(out.Policies) == 0:
		res.Skipped, res.SkipReason = true, noCRDReason+gvk.String()
		return res, nil
	}
	// An object nothing checks is skipped whatever --old holds; one that
	// is checked is checked as what it is, an UPDATE, or not at all.
	if old == nil && run.olds.given() {
		if o.unpaired == unpairedError {
			return report.Result{Source: res.Source, Document: res.Document, Line: res.Line,
				APIVersion: res.APIVersion, Kind: res.Kind, Namespace: res.Namespace, Name: res.Name,
				Error: run.olds.unpairedInput(key)}, nil
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
	return res, nil
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
