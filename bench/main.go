// Command bench measures crdguard side by side with what it is compared
// to, in one run on one machine: every family of benchmarks is set up
// first, then all run in rounds (-runs), each round running every case
// once, in alternating order, so that a busier moment of the machine
// spreads over all of them; the medians of the rounds go into one markdown
// table (stdout and results.md) and the request latencies into a plot
// (latency.png).
//
// The families (-families):
//   - webhook: AdmissionReview POSTs over TLS keep-alive to crdguard-webhook,
//     a no-op controller-runtime webhook and a net/http echo (webhook.go);
//   - endtoend: server-side dry-run creates through a real kube-apiserver
//     with no admission, crdguard compiled to a ValidatingAdmissionPolicy,
//     and crdguard and a no-op as webhooks (endtoend.go);
//   - scale: start-up time and memory of the webhook with 1, 100 and 500
//     CRDs, and latency with 100 GuardPolicies (scale.go);
//   - cli: crdguard validate vs kubeconform on one corpus, and crdguard diff
//     (cli.go).
//
// Servers under test run as child processes, so their CPU time is theirs
// alone: crdguard-webhook is built from ./cmd/crdguard-webhook, the reference
// servers are this program started with -serve (serve.go). kube-apiserver
// and etcd come from hack/tools/install.sh envtest (or KUBEBUILDER_ASSETS).
//
// Run with `make bench` (which also runs and summarises the go test
// benchmarks), or `go run ./bench -quick -families webhook` to try it.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/crdguard/crdguard/internal/corpus"
)

// A family is a set of cases that share their setup.
type family interface {
	name() string
	// setup prepares every case: builds, servers, corpora.
	setup(ctx context.Context, env *environment) error
	// round runs every case once; i is the round, from 0.
	round(ctx context.Context, i int) error
	// rows are the results, compared, after the last round.
	rows() []*row
	// notes explain the rows, one paragraph each.
	notes() []string
	close()
}

// families are every family, in the order of the table.
func families() []family {
	return []family{&webhookFamily{}, &endToEndFamily{}, &scaleFamily{}, &cliFamily{}}
}

func main() {
	if err := mainErr(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type options struct {
	families    string
	runs        int
	quick       bool
	out         string
	keep        bool
	objects     int
	scale       int
	perFile     int
	invalid     float64
	seed        uint64
	kubeconform string

	// serve* run this program as one of the reference servers (serve.go).
	serve        string
	servePort    int
	serveCertDir string
}

func mainErr() error {
	var o options
	var names []string
	for _, f := range families() {
		names = append(names, f.name())
	}
	flag.StringVar(&o.families, "families", strings.Join(names, ","), "comma-separated families to run")
	flag.IntVar(&o.runs, "runs", 5, "rounds: every case runs once per round, the table shows medians")
	flag.BoolVar(&o.quick, "quick", false, "short runs and a small corpus, to try the benchmarks out (the numbers mean little)")
	flag.StringVar(&o.out, "out", filepath.Join(corpus.RepositoryRoot(), "bench", "results"), "directory for results.md and latency.png")
	flag.BoolVar(&o.keep, "keep", false, "keep the work directory (corpora, binaries, server logs)")
	flag.IntVar(&o.objects, "objects", 20000, "cli: objects in the corpus")
	flag.IntVar(&o.scale, "scale-objects", 200000, "cli: objects in the corpus that shows crdguard's memory does not grow with them (0: none)")
	flag.IntVar(&o.perFile, "per-file", 200, "cli: objects per YAML file")
	flag.Float64Var(&o.invalid, "invalid", 0.1, "cli: share of invalid objects")
	flag.Uint64Var(&o.seed, "seed", 1, "cli: seed of the corpus generator")
	flag.StringVar(&o.kubeconform, "kubeconform", "", "cli: kubeconform binary (default: built by hack/tools/install.sh)")
	flag.StringVar(&o.serve, "serve", "", "internal: serve as the named reference server")
	flag.IntVar(&o.servePort, "serve-port", 0, "internal: the reference server's port")
	flag.StringVar(&o.serveCertDir, "serve-cert-dir", "", "internal: the reference server's tls.crt and tls.key")
	flag.Parse()
	// The servers' and envtest's logs would only bury the progress.
	ctrllog.SetLogger(logr.Discard())
	if o.serve != "" {
		return serve(o.serve, o.servePort, o.serveCertDir)
	}
	selected, err := selectFamilies(o.families)
	if flag.NArg() > 0 || o.runs < 1 || o.objects < 1 || o.scale < 0 || o.perFile < 1 || o.invalid <= 0 || o.invalid >= 1 || err != nil {
		flag.Usage()
		return fmt.Errorf("bad arguments: %v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	return benchmark(ctx, o, selected, os.Stdout, os.Stderr)
}

// selectFamilies picks the named families, in the table's order.
func selectFamilies(list string) ([]family, error) {
	names := strings.Split(list, ",")
	var selected []family
	for _, f := range families() {
		if i := slices.Index(names, f.name()); i >= 0 {
			selected = append(selected, f)
			names = slices.Delete(names, i, i+1)
		}
	}
	if len(names) > 0 || len(selected) == 0 {
		return nil, fmt.Errorf("unknown families %q", names)
	}
	return selected, nil
}

func benchmark(ctx context.Context, o options, selected []family, out, log io.Writer) error {
	env, err := newEnvironment(o, log)
	if err != nil {
		return err
	}
	defer env.close()
	for _, f := range selected {
		defer f.close()
		if err := f.setup(ctx, env); err != nil {
			return fmt.Errorf("%s: %w", f.name(), err)
		}
	}
	loadBefore := loadAverage()
	start := time.Now()
	for i := range o.runs {
		// Rotate which family goes first as well.
		for j := range selected {
			f := selected[(i+j)%len(selected)]
			if err := f.round(ctx, i); err != nil {
				return fmt.Errorf("%s, round %d: %w", f.name(), i+1, err)
			}
		}
	}
	var rows []*row
	var notes []string
	for _, f := range selected {
		rows = append(rows, f.rows()...)
		notes = append(notes, f.notes()...)
	}
	r := report{
		command: strings.TrimSpace("go run ./bench " + strings.Join(os.Args[1:], " ")),
		date:    start.UTC(),
		took:    time.Since(start),
		machine: fmt.Sprintf("%s, %d CPUs (GOMAXPROCS %d), %s %s/%s", cpuModel(), runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(), runtime.GOOS, runtime.GOARCH),
		load:    fmt.Sprintf("%s before the rounds, %s after", loadBefore, loadAverage()),
		runs:    o.runs,
		rows:    rows,
		notes:   notes,
	}
	r.write(out)
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(o.out, "results.md"))
	if err != nil {
		return err
	}
	r.write(f)
	if err := f.Close(); err != nil {
		return err
	}
	if err := writePlot(filepath.Join(o.out, "latency.png"), rows); err != nil {
		return err
	}
	fmt.Fprintf(log, "wrote %s and %s\n", filepath.Join(o.out, "results.md"), filepath.Join(o.out, "latency.png"))
	return nil
}

// A report is the table with what it was measured on.
type report struct {
	command, machine, load string
	date                   time.Time
	took                   time.Duration
	runs                   int
	rows                   []*row
	notes                  []string
}

func (r report) write(w io.Writer) {
	fmt.Fprintf(w, "## crdguard benchmarks\n\n")
	fmt.Fprintf(w, "`%s`, %s, %d rounds (medians), %s.\n", r.command, r.date.Format("2006-01-02 15:04 MST"), r.runs, r.took.Round(time.Second))
	fmt.Fprintf(w, "Machine: %s. Load average (1 min): %s; above the CPU count, other processes took CPU time and latencies are inflated.\n\n", r.machine, r.load)
	writeTable(w, r.rows)
	for _, n := range r.notes {
		fmt.Fprintf(w, "\n%s\n", n)
	}
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
