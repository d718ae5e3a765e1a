// Command bench compares the throughput of `crdguard validate` with
// kubeconform's on the same machine in the same run: both validate one
// generated corpus of custom resources against the same real CRDs
// (cert-manager, Gateway API, prometheus-operator), several times in
// alternating order, and the medians are printed as a markdown table.
//
// The corpus mixes valid objects with objects broken in ways both tools
// detect (wrong type, enum, pattern or bound violation, missing required
// field, unknown field), and every run is checked: the right exit code and
// exactly the broken objects reported, by both tools. A faster tool that
// misses errors would not be a comparison.
//
// kubeconform gets JSON schemas converted from the same CRDs the way its own
// scripts/openapi2jsonschema.py converts them, with unknown fields denied
// (-strict), and as many workers as crdguard uses (GOMAXPROCS).
//
// Run with `go run ./bench` from the repository (`make bench` also runs the
// per-object benchmarks); kubeconform is built by hack/tools/install.sh.
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/crdguard/crdguard/cmd/crdguard/app"
	"github.com/crdguard/crdguard/internal/corpus"
)

func main() {
	if err := mainErr(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type options struct {
	objects, perFile, runs int
	invalid                float64
	seed                   uint64
	kubeconform            string
	keep                   bool
	cpuprofile             string
}

func mainErr() error {
	var o options
	flag.IntVar(&o.objects, "objects", 20000, "objects in the corpus")
	flag.IntVar(&o.perFile, "per-file", 200, "objects per YAML file")
	flag.IntVar(&o.runs, "runs", 5, "runs of each tool")
	flag.Float64Var(&o.invalid, "invalid", 0.1, "share of invalid objects")
	flag.Uint64Var(&o.seed, "seed", 1, "seed of the corpus generator")
	flag.StringVar(&o.kubeconform, "kubeconform", "", "kubeconform binary (default: built by hack/tools/install.sh)")
	flag.BoolVar(&o.keep, "keep", false, "keep the work directory (corpus, schemas, binaries)")
	flag.StringVar(&o.cpuprofile, "cpuprofile", "", "after the comparison, run crdguard in-process on the corpus and write its CPU profile to `file` (for go tool pprof)")
	flag.Parse()
	if flag.NArg() > 0 || o.objects < 1 || o.perFile < 1 || o.runs < 1 || o.invalid <= 0 || o.invalid >= 1 {
		flag.Usage()
		return fmt.Errorf("bad arguments")
	}
	return benchmark(context.Background(), o, os.Stdout, os.Stderr)
}

func benchmark(ctx context.Context, o options, out, log io.Writer) error {
	root := corpus.Root()
	var crdDirs []string
	for _, set := range []corpus.Set{corpus.CertManager, corpus.GatewayAPI, corpus.PrometheusOperator} {
		dir, err := set.Path()
		if err != nil {
			return err
		}
		crdDirs = append(crdDirs, dir)
	}

	work, err := os.MkdirTemp("", "crdguard-bench-")
	if err != nil {
		return err
	}
	if o.keep {
		fmt.Fprintln(log, "work directory:", work)
	} else {
		defer os.RemoveAll(work)
	}

	if err := loadTemplates(); err != nil {
		return err
	}
	if err := checkTemplates(ctx, crdDirs); err != nil {
		return err
	}

	fmt.Fprintln(log, "building crdguard and kubeconform ...")
	crdguardBin := filepath.Join(work, "crdguard")
	if err := command(root, "go", "build", "-trimpath", "-o", crdguardBin, "./cmd/crdguard").Run(); err != nil {
		return fmt.Errorf("building crdguard: %w", err)
	}
	kubeconformBin := o.kubeconform
	if kubeconformBin == "" {
		cmd := command(root, "sh", "hack/tools/install.sh", "kubeconform")
		cmd.Stdout = nil // the path
		path, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("building kubeconform: %w", err)
		}
		kubeconformBin = strings.TrimSpace(string(path))
	}

	schemaDir := filepath.Join(work, "schemas")
	nSchemas, err := writeJSONSchemas(schemaDir, crdDirs)
	if err != nil {
		return err
	}
	objects := generate(o.objects, o.invalid, o.seed)
	corpusDir := filepath.Join(work, "corpus")
	nFiles, err := writeCorpus(corpusDir, objects, o.perFile)
	if err != nil {
		return err
	}
	// The startup corpus, one valid object per kind, measures what each tool
	// spends before its per-object work: loading CRDs or schemas and
	// compiling them for every kind the big corpus has.
	var startup []object
	for _, t := range templates {
		startup = append(startup, object{kind: t.kind, name: t.obj["metadata"].(map[string]any)["name"].(string), obj: t.obj})
	}
	startupDir := filepath.Join(work, "startup")
	if _, err := writeCorpus(startupDir, startup, o.perFile); err != nil {
		return err
	}
	fmt.Fprintf(log, "corpus: %d objects in %d files; %d JSON schemas for kubeconform\n", len(objects), nFiles, nSchemas)

	workers := runtime.GOMAXPROCS(0)
	tools := []tool{crdguard(crdguardBin, crdDirs), kubeconform(kubeconformBin, schemaDir, workers)}
	loadBefore := loadAverage()
	startupRuns, err := measure(tools, startupDir, startup, o.runs, log)
	if err != nil {
		return err
	}
	fullRuns, err := measure(tools, corpusDir, objects, o.runs, log)
	if err != nil {
		return err
	}

	printReport(out, o, objects, nFiles, workers, tools, startupRuns, fullRuns)
	fmt.Fprintf(out, "Load average (1 min) before and after the runs: %s, %s on %d CPUs; above the CPU count, other processes took CPU time and the wall times are inflated: compare the CPU times then.\n",
		loadBefore, loadAverage(), runtime.NumCPU())
	if o.cpuprofile != "" {
		return profileCrdguard(ctx, o.cpuprofile, tools[0].args(corpusDir), log)
	}
	return nil
}

// profileCrdguard runs the crdguard CLI in this process, with the arguments
// the comparison used, under the CPU profiler: the binary has no profiling
// flag, and a profile of the whole command shows what the per-object
// benchmarks cannot (reading YAML, the report, GC across the corpus).
func profileCrdguard(ctx context.Context, file string, args []string, log io.Writer) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	start := time.Now()
	code := app.Run(ctx, args, app.Streams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard})
	pprof.StopCPUProfile()
	if code != app.ExitViolations {
		return fmt.Errorf("profiled crdguard run exited with %d, want %d", code, app.ExitViolations)
	}
	fmt.Fprintf(log, "crdguard in-process: %v; CPU profile in %s\n", time.Since(start).Round(time.Millisecond), file)
	return f.Close()
}

// command prepares a command in dir whose output goes to stderr, as
// progress.
func command(dir, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd
}

// measure runs every tool n times on dir, alternating which goes first so
// neither always gets the warmer (or quieter) machine, and checks each run.
func measure(tools []tool, dir string, objects []object, n int, log io.Writer) (map[string][]run, error) {
	runs := map[string][]run{}
	for i := range n {
		order := slices.Clone(tools)
		if i%2 == 1 {
			slices.Reverse(order)
		}
		var line []string
		for _, t := range order {
			r, err := execute(t, dir)
			if err != nil {
				return nil, err
			}
			if err := check(t, r, objects); err != nil {
				return nil, err
			}
			runs[t.name] = append(runs[t.name], r)
			line = append(line, fmt.Sprintf("%s %v", t.name, r.wall.Round(time.Millisecond)))
		}
		fmt.Fprintf(log, "%d objects, run %d/%d: %s\n", len(objects), i+1, n, strings.Join(line, ", "))
	}
	return runs, nil
}

func printReport(w io.Writer, o options, objects []object, files, workers int, tools []tool, startup, full map[string][]run) {
	kinds := map[string][2]int{}
	invalid := 0
	for _, obj := range objects {
		c := kinds[obj.kind]
		c[0]++
		if obj.invalid != "" {
			c[1]++
			invalid++
		}
		kinds[obj.kind] = c
	}
	var mix []string
	for _, t := range templates {
		c := kinds[t.kind]
		mix = append(mix, fmt.Sprintf("%s %d (%d invalid)", t.kind, c[0], c[1]))
	}

	fmt.Fprintf(w, "\n## CLI throughput: crdguard vs kubeconform\n\n")
	fmt.Fprintf(w, "%d objects (%d invalid) in %d files of %d; %s.\n", len(objects), invalid, files, o.perFile, strings.Join(mix, ", "))
	fmt.Fprintf(w, "Machine: %s, GOMAXPROCS=%d (NumCPU=%d), %s %s/%s; %d runs per tool, order alternating; both tools use %d workers.\n\n",
		cpuModel(), runtime.GOMAXPROCS(0), runtime.NumCPU(), runtime.Version(), runtime.GOOS, runtime.GOARCH, o.runs, workers)
	fmt.Fprintln(w, "| tool | median wall | min wall | objects/s (median) | per object (median) | startup (median) | per object after startup | CPU (median) | max RSS (median) |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	throughput := map[string]float64{}
	for _, t := range tools {
		runs := full[t.name]
		wall := median(runs, func(r run) time.Duration { return r.wall })
		minWall := slices.MinFunc(runs, func(a, b run) int { return cmp.Compare(a.wall, b.wall) }).wall
		start := median(startup[t.name], func(r run) time.Duration { return r.wall })
		cpu := median(runs, func(r run) time.Duration { return r.cpu })
		rss := median(runs, func(r run) time.Duration { return time.Duration(r.maxRSS) })
		n := float64(len(objects))
		throughput[t.name] = n / wall.Seconds()
		fmt.Fprintf(w, "| %s | %.2fs | %.2fs | %.0f | %s | %.2fs | %s | %.2fs | %s |\n",
			t.name, wall.Seconds(), minWall.Seconds(), throughput[t.name],
			perObject(wall, n), start.Seconds(), perObject(wall-start, n), cpu.Seconds(), mebibytes(int64(rss)))
	}
	ratio := throughput["crdguard"] / throughput["kubeconform"]
	fmt.Fprintf(w, "\ncrdguard/kubeconform throughput: **%.2f×**", ratio)
	if ratio < 1 {
		fmt.Fprintf(w, " (kubeconform is %.1f× faster)", 1/ratio)
	}
	// CPU time is what a busy machine distorts least: another process
	// stretches wall time, not the CPU time a tool needs.
	cpuCrdguard := median(full["crdguard"], func(r run) time.Duration { return r.cpu })
	cpuKubeconform := median(full["kubeconform"], func(r run) time.Duration { return r.cpu })
	fmt.Fprintf(w, ".\nCPU time per object (median): crdguard %s, kubeconform %s; crdguard needs %.1f× the CPU.",
		perObject(cpuCrdguard, float64(len(objects))), perObject(cpuKubeconform, float64(len(objects))),
		cpuCrdguard.Seconds()/cpuKubeconform.Seconds())
	fmt.Fprintln(w, "\n\n\"startup\" is the median of runs on one valid object per kind: loading and compiling the CRDs (crdguard) or JSON schemas (kubeconform).")
	fmt.Fprintln(w, "crdguard also runs CEL rules, list-type and metadata checks that kubeconform does not, and prints a result for every object (kubeconform only for failures).")
}

// median of f over runs (the mean of the middle two for an even count).
func median(runs []run, f func(run) time.Duration) time.Duration {
	values := make([]time.Duration, len(runs))
	for i, r := range runs {
		values[i] = f(r)
	}
	slices.Sort(values)
	mid := len(values) / 2
	if len(values)%2 == 0 {
		return (values[mid-1] + values[mid]) / 2
	}
	return values[mid]
}

func perObject(d time.Duration, n float64) string {
	return fmt.Sprintf("%.0fµs", d.Seconds()/n*1e6)
}

func mebibytes(b int64) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
}

// loadAverage is the 1-minute load average, where Linux tells.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "n/a"
	}
	return strings.Fields(string(data) + " n/a")[0]
}

// cpuModel names the processor, where Linux tells.
func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if key, value, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(key) == "model name" {
			return strings.TrimSpace(value)
		}
	}
	return "unknown CPU"
}
