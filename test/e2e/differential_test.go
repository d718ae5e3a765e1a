package e2e

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// target is one object compared between crdguard and the server.
type target struct {
	name string // subtest name

	// crdguard's side.
	set    string // CRD set passed with --crds
	source string // the file crdguard validates, as given on its command line
	old    string // --old file when the object is an update
	key    objectKey
	// generateName of an object without a name: the server and crdguard
	// each generate a random suffix, which messages quote.
	generateName string

	// The server's side.
	file      string // single-object file sent with kubectl -f
	namespace string // kubectl --namespace; empty when the file names one or the kind is cluster-scoped
	update    bool   // kubectl replace (the stored object must exist) instead of kubectl create

	// want, when set, is the verdict the object was written to get; it guards
	// the corpus itself against objects that do not test what they claim.
	want *bool
}

// objectKey finds an object's result in crdguard's report.
type objectKey struct {
	source, apiVersion, kind, name string
}

// verdict is one side's answer, in comparable form.
type verdict struct {
	allowed bool
	unknown []string // unknown-field paths
	causes  []string // every other finding as "field: message"
	// notServed: the server has no such apiVersion (kubectl cannot even map
	// the kind; crdguard reports apiVersion Unsupported).
	notServed bool
	warnings  []string // the server's Warning headers, sorted: their order is not compared
	// stored is the object as it would be stored, as canonical JSON: the
	// dry-run response of an accepted create under Ignore, crdguard's
	// --show-stored; "" otherwise.
	stored string
	detail string // raw output for failure messages
}

// The fieldValidation modes compared, with kubectl's --validate for each.
var modes = []struct{ name, kubectl string }{
	{"Strict", "strict"},
	{"Warn", "warn"},
	{"Ignore", "false"},
}

// paths is the set of field paths of all findings.
func (v verdict) paths() []string {
	p := slices.Clone(v.unknown)
	for _, c := range v.causes {
		f, _, _ := strings.Cut(c, ": ")
		p = append(p, f)
	}
	return set(p)
}

// withoutGeneratedName replaces the random suffix of a generated name in
// messages with a placeholder, so that two requests compare equal.
func withoutGeneratedName(tg *target, causes []string) []string {
	if tg.generateName == "" || len(causes) == 0 {
		return causes
	}
	suffix := regexp.MustCompile(regexp.QuoteMeta(tg.generateName) + `[a-z0-9]{5}`)
	out := make([]string, len(causes))
	for i, c := range causes {
		out[i] = suffix.ReplaceAllLiteralString(c, tg.generateName+"<random>")
	}
	return set(out)
}

// kubectlWorkers bounds the kubectl processes running at once: each mostly
// waits for the server, which shares the machine's cores with them.
var kubectlWorkers = min(8, 2*runtime.GOMAXPROCS(0))

// compareAll runs crdguard and the server on every target under every
// fieldValidation mode and compares them in one subtest per target and
// mode. It returns the number of objects compared.
func compareAll(t *testing.T, targets []*target) int {
	t.Helper()
	ctx := t.Context()
	if len(targets) == 0 {
		t.Fatal("no objects to compare")
	}

	ours := make([][]verdict, len(modes))
	for m, mode := range modes {
		var err error
		if ours[m], err = runCrdguard(ctx, targets, mode.name); err != nil {
			t.Fatal(err)
		}
	}

	theirs := make([][]verdict, len(targets))
	errs := make([]error, len(targets))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(kubectlWorkers, len(targets)) {
		wg.Go(func() {
			for i := range jobs {
				theirs[i], errs[i] = serverVerdict(ctx, targets[i])
			}
		})
	}
	for i := range targets {
		jobs <- i
	}
	close(jobs)
	wg.Wait()

	for i, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			if errs[i] != nil {
				t.Fatalf("server side: %v", errs[i])
			}
			for m, mode := range modes {
				t.Run(mode.name, func(t *testing.T) {
					compareVerdicts(t, tg, mode.name, ours[m][i], theirs[i][m])
				})
			}
		})
	}
	return len(targets)
}

// serverVerdict asks the server under each mode of modes and returns its
// verdict under each. Under Strict unknown fields fail decoding and nothing
// else is reported: its verdict takes the other causes from Ignore, as
// crdguard reports them together.
func serverVerdict(ctx context.Context, tg *target) ([]verdict, error) {
	attempts := make([]attempt, len(modes))
	var details []string
	for m, mode := range modes {
		var err error
		if attempts[m], err = kubectlDryRun(ctx, tg, mode.kubectl); err != nil {
			return nil, err
		}
		details = append(details, attempts[m].output)
	}
	strict, warn, ignore := attempts[0], attempts[1], attempts[2]
	detail := strings.Join(details, "\n")
	for _, a := range attempts {
		if a.notServed != strict.notServed {
			return nil, fmt.Errorf("kubectl mapped the kind in only some of its calls:\n%s", detail)
		}
	}
	strictVerdict, err := strictVerdict(strict, ignore, detail)
	if err != nil {
		return nil, err
	}
	out := []verdict{strictVerdict}
	for _, a := range []attempt{warn, ignore} {
		out = append(out, verdict{allowed: a.accepted, causes: a.causes, notServed: a.notServed, warnings: a.warnings, detail: detail})
	}
	if ignore.accepted && !tg.update {
		stored, err := storedJSON(tg, ignore.object, true)
		if err != nil {
			return nil, err
		}
		out[2].stored = stored
	}
	return out, nil
}

// serverAssigned are the metadata fields only the server can fill, which
// crdguard --show-stored leaves out.
var serverAssigned = []string{"uid", "creationTimestamp", "resourceVersion", "managedFields"}

// storedJSON is obj as canonical JSON, with a generated name replaced by a
// placeholder. The server's (server) is without serverAssigned; crdguard's
// is in the namespace kubectl sends it to (crdguard, given none, puts it in
// "default").
func storedJSON(tg *target, obj map[string]any, server bool) (string, error) {
	obj = (&unstructured.Unstructured{Object: obj}).DeepCopy().Object
	meta, _ := obj["metadata"].(map[string]any)
	if server {
		for _, f := range serverAssigned {
			delete(meta, f)
		}
	} else if tg.namespace != "" && meta != nil && meta["namespace"] == "default" {
		meta["namespace"] = tg.namespace
	}
	if tg.generateName != "" && meta != nil {
		meta["name"] = tg.generateName + "<random>"
	}
	data, err := json.Marshal(obj)
	return string(data), err
}

// strictVerdict is the server's verdict under Strict, completed with the
// causes it reports under Ignore.
func strictVerdict(strict, ignore attempt, detail string) (verdict, error) {
	v := verdict{detail: detail}
	switch {
	case strict.notServed:
		v.notServed = true
	case strict.accepted:
		if !ignore.accepted {
			return v, fmt.Errorf("the server accepted the object under Strict but not under Ignore:\n%s", v.detail)
		}
		v.allowed = true
	case len(strict.unknown) > 0:
		v.unknown = strict.unknown
		v.causes = ignore.causes // nil when Ignore accepted it
	default:
		// No unknown fields: Strict and Ignore must report the same.
		if !slices.Equal(strict.causes, ignore.causes) {
			return v, fmt.Errorf("Strict and Ignore disagree although there are no unknown fields:\n%s", v.detail)
		}
		v.causes = strict.causes
	}
	// crdguard reports the warnings of the full validation, which under
	// Strict stops at the first unknown field.
	v.warnings = ignore.warnings
	return v, nil
}

// compareVerdicts fails t unless crdguard and the server agree on the
// verdict, on the set of field paths, and on every message except
// unknown fields' (the server has no per-field message for those).
func compareVerdicts(t *testing.T, tg *target, mode string, ours, theirs verdict) {
	t.Helper()
	// The corpus's verdicts are those of kubectl's default.
	if tg.want != nil && mode == "Strict" && theirs.allowed != *tg.want {
		t.Errorf("corpus error: the object is meant to be allowed=%v but the server says allowed=%v\n%s", *tg.want, theirs.allowed, theirs.detail)
	}
	both := fmt.Sprintf("\ncrdguard: allowed=%v\n  paths: %s\n%s\nserver:   allowed=%v\n  paths: %s\n%s\nserver output:\n%s",
		ours.allowed, strings.Join(ours.paths(), " "), listFindings(ours),
		theirs.allowed, strings.Join(theirs.paths(), " "), listFindings(theirs), indent(theirs.detail))
	if known, ok := knownWarningDifferences[tg.name]; ok {
		if slices.Equal(ours.warnings, theirs.warnings) {
			t.Errorf("listed in knownWarningDifferences (%s), but the warnings agree: remove it", known)
		}
		ours.warnings = theirs.warnings
	}
	if diff := disagreement(ours, theirs); diff != "" {
		t.Errorf("%s%s", diff, both)
		return
	}
	t.Logf("agree: allowed=%v paths=[%s] warnings=%q stored=%v", ours.allowed, strings.Join(ours.paths(), " "), ours.warnings, ours.stored != "")
}

// knownWarningDifferences are the targets, by subtest name, on which
// crdguard's warnings are known to differ from the server's, with the
// reason. A listed target still has its verdict, paths and messages
// compared, and fails when its warnings agree.
var knownWarningDifferences = map[string]string{}

// disagreement says how the two verdicts differ, or returns "".
func disagreement(ours, theirs verdict) string {
	switch {
	case theirs.notServed:
		// The server serves no such version: kubectl cannot even build the
		// request (REST mapping fails). crdguard reports it at apiVersion.
		if ours.allowed || len(ours.unknown) > 0 || !slices.Equal(ours.paths(), []string{"apiVersion"}) {
			return "the server does not serve this apiVersion; crdguard should deny it at apiVersion only"
		}
	case ours.allowed != theirs.allowed:
		return "verdicts differ"
	case !slices.Equal(ours.paths(), theirs.paths()):
		return "field paths differ"
	case !slices.Equal(ours.unknown, theirs.unknown):
		return "unknown fields differ"
	case !slices.Equal(ours.causes, theirs.causes):
		return "messages differ"
	case !slices.Equal(ours.warnings, theirs.warnings):
		return "warnings differ"
	case ours.stored != theirs.stored:
		return fmt.Sprintf("stored objects differ:\ncrdguard: %s\nserver:   %s", ours.stored, theirs.stored)
	}
	return ""
}

func listFindings(v verdict) string {
	var b strings.Builder
	for _, u := range v.unknown {
		fmt.Fprintf(&b, "  - %s: unknown field\n", u)
	}
	for _, c := range v.causes {
		fmt.Fprintf(&b, "  - %s\n", c)
	}
	for _, w := range v.warnings {
		fmt.Fprintf(&b, "  Warning: %s\n", w)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}

// The JSON report, schema crdguard.dev/report/v1 (docs/cli.md). Declared here
// rather than imported so the test reads what the CLI prints.
type report struct {
	Version string   `json:"version"`
	Results []result `json:"results"`
}

type result struct {
	Source     string         `json:"source"`
	Document   int            `json:"document"`
	APIVersion string         `json:"apiVersion"`
	Kind       string         `json:"kind"`
	Name       string         `json:"name"`
	Operation  string         `json:"operation"`
	Allowed    bool           `json:"allowed"`
	Skipped    bool           `json:"skipped"`
	SkipReason string         `json:"skipReason"`
	Violations []finding      `json:"violations"`
	Warnings   []string       `json:"warnings"`
	Stored     map[string]any `json:"stored"`
	Error      string         `json:"error"`
}

type finding struct {
	Field       string `json:"field"`
	Type        string `json:"type"`
	Message     string `json:"message"`
	Policy      string `json:"policy"`
	Rule        string `json:"rule"`
	Enforcement string `json:"enforcement"`
}

// runCrdguard validates the targets with the crdguard binary under
// --field-validation=mode: one run per CRD set for creates, one run per
// update (each has its own --old). It returns crdguard's verdict for each
// target.
func runCrdguard(ctx context.Context, targets []*target, mode string) ([]verdict, error) {
	type run struct {
		set, old string
		sources  []string
	}
	var runs []*run
	byRun := map[[2]string]*run{}
	for _, tg := range targets {
		k := [2]string{tg.set, tg.old}
		r := byRun[k]
		if r == nil {
			r = &run{set: tg.set, old: tg.old}
			byRun[k] = r
			runs = append(runs, r)
		}
		if !slices.Contains(r.sources, tg.source) {
			r.sources = append(r.sources, tg.source)
		}
	}

	results := map[objectKey]result{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make([]error, len(runs))
	for i, r := range runs {
		wg.Go(func() {
			rep, err := crdguardValidate(ctx, r.set, r.old, mode, r.sources)
			if err != nil {
				errs[i] = err
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, res := range rep.Results {
				k := objectKey{res.Source, res.APIVersion, res.Kind, res.Name}
				if r.old != "" {
					k.source = r.old + "\x00" + k.source
				}
				if _, dup := results[k]; dup {
					errs[i] = fmt.Errorf("crdguard reported %v twice", k)
				}
				results[k] = res
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}

	out := make([]verdict, len(targets))
	for i, tg := range targets {
		k := tg.key
		if tg.old != "" {
			k.source = tg.old + "\x00" + k.source
		}
		res, ok := results[k]
		if !ok {
			return nil, fmt.Errorf("%s: crdguard reported no result for %s %s %q in %s", tg.name, k.apiVersion, k.kind, k.name, tg.source)
		}
		v, err := ourVerdict(tg, res)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", tg.name, err)
		}
		out[i] = v
	}
	return out, nil
}

func ourVerdict(tg *target, res result) (verdict, error) {
	raw, _ := json.MarshalIndent(res, "", "  ")
	v := verdict{allowed: res.Allowed, detail: string(raw)}
	switch {
	case res.Error != "":
		return v, fmt.Errorf("crdguard could not validate the object: %s", res.Error)
	case res.Skipped:
		return v, fmt.Errorf("crdguard skipped the object: %s", res.SkipReason)
	case (tg.old != "") != (res.Operation == "UPDATE"):
		return v, fmt.Errorf("crdguard validated the object as %s", res.Operation)
	}
	for _, f := range res.Violations {
		if f.Policy != "schema" || f.Enforcement != "Deny" {
			return v, fmt.Errorf("unexpected finding %+v", f)
		}
		if f.Rule == "unknown-field" {
			v.unknown = append(v.unknown, f.Field)
		} else {
			v.causes = append(v.causes, f.Field+": "+f.Message)
		}
	}
	v.unknown, v.causes = set(v.unknown), withoutGeneratedName(tg, set(v.causes))
	v.warnings = withoutGeneratedName(tg, set(res.Warnings))
	// The server's stored object of an update is compared with none: its
	// old object was stored under a relaxed CRD (see storeOldObjects).
	if res.Stored != nil && !tg.update {
		var err error
		if v.stored, err = storedJSON(tg, res.Stored, false); err != nil {
			return v, err
		}
	}
	if v.allowed != (len(res.Violations) == 0) {
		return v, fmt.Errorf("allowed=%v with %d violations", v.allowed, len(res.Violations))
	}
	return v, nil
}

// crdguardValidate runs `crdguard validate --crds SET [--old OLD]
// --field-validation MODE -o json SOURCES...`, with --show-stored under
// Ignore (the server's dry-run response is compared under Ignore only).
func crdguardValidate(ctx context.Context, set, old, mode string, sources []string) (*report, error) {
	args := []string{"validate", "--crds", cluster.crds[set], "--field-validation", mode, "-o", "json"}
	if mode == "Ignore" {
		args = append(args, "--show-stored")
	}
	if old != "" {
		args = append(args, "--old", old)
	}
	args = append(args, sources...)
	code, stdout, stderr, err := runCommand(exec.CommandContext(ctx, cluster.crdguard, args...))
	if err != nil || (code != 0 && code != 1) {
		return nil, fmt.Errorf("crdguard %s: exit %d, %v\n%s", strings.Join(args, " "), code, err, stderr)
	}
	rep := &report{}
	if err := json.Unmarshal([]byte(stdout), rep); err != nil {
		return nil, fmt.Errorf("crdguard %s: reading its JSON report: %v\n%s", strings.Join(args, " "), err, stdout)
	}
	if rep.Version != "crdguard.dev/report/v1" {
		return nil, fmt.Errorf("crdguard report version %q", rep.Version)
	}
	return rep, nil
}

// writeTemp writes data to a new file under the scratch directory.
func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	dir, err := os.MkdirTemp(cluster.tmp, "obj-")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// sortTargets orders targets by name so subtests run in a stable order.
func sortTargets(targets []*target) {
	slices.SortFunc(targets, func(a, b *target) int { return cmp.Compare(a.name, b.name) })
}
