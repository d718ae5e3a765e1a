package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/crdguard/crdguard/internal/corpus"
	"github.com/crdguard/crdguard/internal/hacktools"
)

// cliFamily compares the throughput of `crdguard validate` with
// kubeconform's: both validate one generated corpus of custom resources
// against the same real CRDs (cert-manager, Gateway API,
// prometheus-operator), and every run is checked: the right exit code and
// exactly the broken objects reported, by both tools. A faster tool that
// misses errors would not be a comparison.
//
// kubeconform gets JSON schemas converted from the same CRDs the way its own
// scripts/openapi2jsonschema.py converts them, with unknown fields denied
// (-strict), and as many workers as crdguard uses (GOMAXPROCS).
//
// crdguard alone also validates a corpus ten times bigger (-scale-objects),
// generated the same way, to show that its peak memory is set by the CRDs,
// not by the number of objects.
//
// It also times `crdguard diff` of prometheus-operator's CRDs, the release
// before against the pinned one.
type cliFamily struct {
	env *environment

	// tools run in this order and in reverse, every other round: validate,
	// which both others are compared with, in the middle.
	tools            []tool
	validate         tool
	corpusDir        string
	objects          []object
	startupDir       string
	startup          []object
	scaleDir         string
	scale            []object
	scaleFiles       int
	files            int
	diffOld, diffNew string

	// full and start are the runs on the corpus and on the start-up corpus,
	// by tool name; scaled are crdguard's on the scale corpus.
	full, start map[string][]run
	scaled      []run
	diff        []run
}

func (f *cliFamily) name() string { return "cli" }

func (f *cliFamily) setup(ctx context.Context, env *environment) error {
	f.env = env
	o := env.o
	var crdDirs []string
	for _, set := range []corpus.Set{corpus.CertManager, corpus.GatewayAPI, corpus.PrometheusOperator} {
		dir, err := set.Path()
		if err != nil {
			return err
		}
		crdDirs = append(crdDirs, dir)
	}
	var err error
	if f.diffOld, err = corpus.PrometheusOperator.Previous().Path(); err != nil {
		return err
	}
	f.diffNew = crdDirs[2]
	if err := loadTemplates(); err != nil {
		return err
	}
	if err := checkTemplates(ctx, crdDirs); err != nil {
		return err
	}
	crdguardBin, err := env.binary("./cmd/crdguard")
	if err != nil {
		return err
	}
	kubeconformBin := o.kubeconform
	if kubeconformBin == "" {
		if kubeconformBin, err = hacktools.Path(ctx, "kubeconform", os.Stderr); err != nil {
			return err
		}
	}

	schemaDir := filepath.Join(env.work, "schemas")
	nSchemas, err := writeJSONSchemas(schemaDir, crdDirs)
	if err != nil {
		return err
	}
	objects := o.objects
	if o.quick {
		objects = min(objects, 2000)
	}
	f.objects = generate(objects, o.invalid, o.seed)
	f.corpusDir = filepath.Join(env.work, "corpus")
	if f.files, err = writeCorpus(f.corpusDir, f.objects, o.perFile); err != nil {
		return err
	}
	// The start-up corpus, one valid object per kind, measures what each
	// tool spends before its per-object work: loading CRDs or schemas and
	// compiling them for every kind the big corpus has.
	for _, t := range templates {
		f.startup = append(f.startup, object{kind: t.kind, name: t.obj["metadata"].(map[string]any)["name"].(string), obj: t.obj})
	}
	f.startupDir = filepath.Join(env.work, "startup")
	if _, err := writeCorpus(f.startupDir, f.startup, o.perFile); err != nil {
		return err
	}
	if scale := o.scale; scale > 0 {
		if o.quick {
			scale = min(scale, 2*objects)
		}
		f.scaleDir = filepath.Join(env.work, "scale")
		if f.scale, f.scaleFiles, err = writeGenerated(f.scaleDir, scale, o.invalid, o.seed, o.perFile); err != nil {
			return err
		}
	}
	fmt.Fprintf(env.log, "corpus: %d objects in %d files (scale corpus: %d); %d JSON schemas for kubeconform\n", len(f.objects), f.files, len(f.scale), nSchemas)
	f.validate = crdguard(crdguardBin, crdDirs)
	f.tools = []tool{kubeconform(kubeconformBin, schemaDir, runtime.GOMAXPROCS(0)), f.validate, crdguardTool(crdguardStored, crdguardBin, crdDirs)}
	f.full, f.start = map[string][]run{}, map[string][]run{}
	return nil
}

// round runs each tool once on the start-up corpus and once on the full
// one, alternating which goes first, then crdguard diff.
func (f *cliFamily) round(_ context.Context, i int) error {
	for _, t := range alternate(f.tools, i) {
		for _, c := range []struct {
			dir     string
			objects []object
			runs    map[string][]run
		}{{f.startupDir, f.startup, f.start}, {f.corpusDir, f.objects, f.full}} {
			r, err := execute(t, c.dir)
			if err != nil {
				return err
			}
			if err := check(t, r, c.objects); err != nil {
				return err
			}
			c.runs[t.name] = append(c.runs[t.name], r)
		}
		fmt.Fprintf(f.env.log, "cli round %d: %s %d objects in %v\n", i+1, t.name, len(f.objects), f.full[t.name][len(f.full[t.name])-1].wall.Round(time.Millisecond))
	}
	if f.scaleDir != "" {
		r, err := execute(f.validate, f.scaleDir)
		if err != nil {
			return err
		}
		if err := check(f.validate, r, f.scale); err != nil {
			return err
		}
		f.scaled = append(f.scaled, r)
		fmt.Fprintf(f.env.log, "cli round %d: crdguard %d objects in %v\n", i+1, len(f.scale), r.wall.Round(time.Millisecond))
	}
	r, err := f.runDiff()
	if err != nil {
		return err
	}
	f.diff = append(f.diff, r)
	return nil
}

// runDiff runs crdguard diff on prometheus-operator's CRDs: it must find
// the breaking changes between the releases (exit code 1) in all 10.
func (f *cliFamily) runDiff() (run, error) {
	r, stdout, stderr, err := measure("crdguard diff", exec.Command(f.validate.path, "diff", f.diffOld, f.diffNew))
	if err != nil {
		return run{}, err
	}
	if r.exitCode != 1 || !strings.Contains(stdout.String(), " in 10 CRDs") {
		return run{}, fmt.Errorf("crdguard diff exited with %d, want 1 and a summary of 10 CRDs; stderr:\n%s", r.exitCode, tail(stderr.String()))
	}
	return r, nil
}

func (f *cliFamily) rows() []*row {
	perObject := func(runs []run, n int) []sample {
		var samples []sample
		for _, r := range runs {
			samples = append(samples, sample{rate: float64(n) / r.wall.Seconds(), cpu: time.Duration(float64(r.cpu) / float64(n)), memory: r.maxRSS})
		}
		return samples
	}
	once := func(runs []run) []sample {
		var samples []sample
		for _, r := range runs {
			samples = append(samples, sample{p50: r.wall, cpu: r.cpu, memory: r.maxRSS})
		}
		return samples
	}
	validate := &row{family: f.name(), name: fmt.Sprintf("crdguard validate, %d objects (%d files)", len(f.objects), f.files), rateUnit: "objects/s", samples: perObject(f.full["crdguard"], len(f.objects))}
	kc := &row{family: f.name(), name: fmt.Sprintf("kubeconform -strict, %d objects", len(f.objects)), rateUnit: "objects/s", samples: perObject(f.full["kubeconform"], len(f.objects))}
	start := &row{family: f.name(), name: fmt.Sprintf("crdguard validate start-up, one object of each of %d kinds", len(f.startup)), samples: once(f.start["crdguard"])}
	v, k := validate.median(), kc.median()
	// Memory against the start-up run, which compiles the same kinds: what
	// the objects add.
	memory := func(r *row) string {
		return fmt.Sprintf("memory %s start-up (target ≤ 1.30×)", ratio(float64(r.median().memory), float64(start.median().memory)))
	}
	validate.vs = fmt.Sprintf("objects/s %s kubeconform, CPU per object %s (target ≤ 1.00×); %s", ratio(v.rate, k.rate), ratio(float64(v.cpu), float64(k.cpu)), memory(validate))
	stored := &row{family: f.name(), name: "crdguard validate --field-validation=Warn --warnings-as-errors --show-stored, the same objects", rateUnit: "objects/s", samples: perObject(f.full[crdguardStored], len(f.objects))}
	// What warnings and the stored object add to validate's time.
	s := stored.median()
	stored.vs = fmt.Sprintf("time per object %s crdguard validate (%s), CPU per object %s (%s)", ratio(v.rate, s.rate), roundRatios(validate, stored, rate), ratio(float64(s.cpu), float64(v.cpu)), roundRatios(stored, validate, cpu))
	rows := []*row{validate, kc, stored}
	if f.scaleDir != "" {
		scaled := &row{family: f.name(), name: fmt.Sprintf("crdguard validate, %d objects (%d files)", len(f.scale), f.scaleFiles), rateUnit: "objects/s", samples: perObject(f.scaled, len(f.scale))}
		scaled.vs = memory(scaled)
		rows = append(rows, scaled)
	}
	return append(rows,
		start,
		&row{family: f.name(), name: "kubeconform start-up, the same objects", samples: once(f.start["kubeconform"])},
		&row{family: f.name(), name: "crdguard diff, prometheus-operator's 10 CRDs, release before → pinned", samples: once(f.diff)},
	)
}

func (f *cliFamily) notes() []string {
	scale := ""
	if f.scaleDir != "" {
		scale = fmt.Sprintf("The %d-object corpus is generated the same way and run by crdguard only; its memory, like the %d-object one's, is compared with the start-up run's, which compiles the same kinds. ", len(f.scale), len(f.objects))
	}
	return []string{fmt.Sprintf("cli: %d objects, %.0f%% invalid in ways both tools detect, %d per file; both tools flag exactly the invalid ones in every run and use %d workers. "+
		"crdguard also runs CEL rules, list-type and metadata checks kubeconform does not. "+
		"crdguard-stored is crdguard with --field-validation=Warn --warnings-as-errors --show-stored: unknown fields are warnings turned into errors, so it flags the same objects, and every accepted object is in the report as it would be stored. %s"+
		"CPU per op is CPU time per object (validate) or per run (start-up, diff); memory is the peak RSS (VmHWM, sampled every 10ms).",
		len(f.objects), f.env.o.invalid*100, f.env.o.perFile, runtime.GOMAXPROCS(0), scale)}
}

func (f *cliFamily) close() {}

// command prepares a command in dir whose output goes to stderr, as
// progress.
func command(dir, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd
}
