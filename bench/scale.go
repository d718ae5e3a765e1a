package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/crdguard/crdguard/internal/corpus"
	"github.com/crdguard/crdguard/pkg/manifest"
	"github.com/crdguard/crdguard/pkg/schema"
)

// scaleFamily measures what the webhook costs as what it loads grows:
// start-up time (exec to /readyz) and resident memory with 1, 100 and 500
// CRDs and with 1,000 GuardPolicies, and request latency and CPU with 100
// and 1,000 GuardPolicies instead of one.
type scaleFamily struct {
	env     *environment
	crdSets []crdSet
	policy  string
	// startups are the start-up rows, by CRD set.
	startups []*row
	// manyPolicies is the file of scalePolicies copies of the example
	// GuardPolicy; manyStartup its start-up row.
	manyPolicies string
	manyStartup  *row
	// byPolicies time requests to the webhook with the example
	// GuardPolicy, and with 100 and 1,000 copies of it.
	byPolicies []*webhookCase
}

// scalePolicies is the most GuardPolicies the family loads on one kind.
const scalePolicies = 1000

// A crdSet is a directory of n CRDs, of which real are from real projects.
type crdSet struct {
	dir     string
	n, real int
}

func (f *scaleFamily) name() string { return "scale" }

func (f *scaleFamily) setup(ctx context.Context, env *environment) error {
	f.env = env
	examples := filepath.Join(env.root, "examples", "mysql")
	f.policy = filepath.Join(examples, "policy.yaml")
	real, err := realCRDs(ctx)
	if err != nil {
		return err
	}
	for _, n := range []int{1, 100, 500} {
		set, err := writeCRDSet(ctx, filepath.Join(env.work, fmt.Sprintf("crds-%d", n)), n, real, filepath.Join(examples, "crd.yaml"))
		if err != nil {
			return err
		}
		f.crdSets = append(f.crdSets, set)
		f.startups = append(f.startups, &row{family: f.name(), name: fmt.Sprintf("webhook start-up to ready, %d CRD%s (%d real)", set.n, map[bool]string{true: "s"}[set.n > 1], set.real)})
	}

	one, err := env.server(ctx, serverCrdguard)
	if err != nil {
		return err
	}
	servers := []*server{one}
	for _, n := range []int{100, scalePolicies} {
		policies := filepath.Join(env.work, fmt.Sprintf("policies-%d.yaml", n))
		if err := writePolicyCopies(f.policy, policies, n); err != nil {
			return err
		}
		s, err := env.startWebhook(ctx, fmt.Sprintf("crdguard, %d GuardPolicies", n), []string{filepath.Join(examples, "crd.yaml")}, []string{policies})
		if err != nil {
			return err
		}
		env.servers[s.name] = s
		servers = append(servers, s)
		f.manyPolicies = policies // the last: scalePolicies of them
	}
	f.manyStartup = &row{family: f.name(), name: "webhook start-up to ready, 1 CRD, 1,000 GuardPolicies on its kind"}
	bodies, err := reviewBodies(env.root)
	if err != nil {
		return err
	}
	duration := 2 * time.Second
	if env.o.quick {
		duration = 200 * time.Millisecond
	}
	newCase := func(s *server, name string) *webhookCase {
		return &webhookCase{
			row:    &row{family: f.name(), name: name, rateUnit: "req/s", latency: true},
			server: s,
			load:   load{client: newClient(env.caPool, true, 1), url: s.url + ownPath, body: bodies[0], http2: true, answer: answerReview, concurrency: 1, duration: duration},
		}
	}
	f.byPolicies = []*webhookCase{
		newCase(servers[0], "crdguard, 1 GuardPolicy, HTTP/2, example CR, c=1"),
		newCase(servers[1], "crdguard, 100 GuardPolicies matching the CR, HTTP/2, example CR, c=1"),
		newCase(servers[2], "crdguard, 1,000 GuardPolicies matching the CR, HTTP/2, example CR, c=1"),
	}
	return nil
}

// realCRDs are the files of the corpus CRDs, cert-manager's, Gateway
// API's and prometheus-operator's, that hold exactly one CRD (Gateway API's
// directory has a ValidatingAdmissionPolicy too).
func realCRDs(ctx context.Context) ([]string, error) {
	var files []string
	for _, set := range []corpus.Set{corpus.CertManager, corpus.GatewayAPI, corpus.PrometheusOperator} {
		dir, err := set.Path()
		if err != nil {
			return nil, err
		}
		matches, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
		if err != nil {
			return nil, err
		}
		for _, file := range matches {
			if n, err := countCRDs(ctx, file); err != nil {
				return nil, err
			} else if n == 1 {
				files = append(files, file)
			}
		}
	}
	return files, nil
}

// countCRDs is how many CRDs crdguard reads from path.
func countCRDs(ctx context.Context, path string) (int, error) {
	docs, err := manifest.ReadPaths(nil, path)
	if err != nil {
		return 0, err
	}
	var crdDocs []manifest.Document
	for _, d := range docs {
		if d.Err == nil && d.Object.GetKind() == "CustomResourceDefinition" {
			crdDocs = append(crdDocs, d)
		}
	}
	crds, err := schema.CRDsFromDocuments(ctx, crdDocs)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return len(crds), nil
}

// writeCRDSet writes n CRDs into dir: the example CRD, the real ones (as
// many as fit) and copies of the example CRD under other groups and kinds,
// and checks that crdguard loads exactly n.
func writeCRDSet(ctx context.Context, dir string, n int, real []string, example string) (crdSet, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return crdSet{}, err
	}
	exampleData, err := os.ReadFile(example)
	if err != nil {
		return crdSet{}, err
	}
	if err := os.WriteFile(filepath.Join(dir, "mysql.yaml"), exampleData, 0o644); err != nil {
		return crdSet{}, err
	}
	set := crdSet{dir: dir, n: n}
	for _, file := range real {
		if 1+set.real >= n {
			break
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return crdSet{}, err
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("real-%03d-%s", set.real, filepath.Base(file))), data, 0o644); err != nil {
			return crdSet{}, err
		}
		set.real++
	}
	var generated []string
	for i := range n - 1 - set.real {
		generated = append(generated, renameCRD(string(exampleData), i))
	}
	if err := os.WriteFile(filepath.Join(dir, "generated.yaml"), []byte(strings.Join(generated, "\n---\n")), 0o644); err != nil {
		return crdSet{}, err
	}
	if got, err := countCRDs(ctx, dir); err != nil {
		return crdSet{}, err
	} else if got != n {
		return crdSet{}, fmt.Errorf("%s holds %d CRDs, want %d", dir, got, n)
	}
	return set, nil
}

// renameCRD makes copy i of the example CRD a CRD of its own: another
// group and kind.
func renameCRD(crd string, i int) string {
	return strings.NewReplacer(
		"db.example.io", fmt.Sprintf("gen%03d.example.io", i),
		"MySQLClusterList", fmt.Sprintf("Gen%03dClusterList", i),
		"MySQLCluster", fmt.Sprintf("Gen%03dCluster", i),
		"mysqlclusters", fmt.Sprintf("gen%03dclusters", i),
		"mysqlcluster", fmt.Sprintf("gen%03dcluster", i),
	).Replace(crd)
}

// writePolicyCopies writes n copies of the GuardPolicy in file, each named
// apart, into out.
func writePolicyCopies(file, out string, n int) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var policy map[string]any
	if err := yaml.Unmarshal(data, &policy); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	meta := policy["metadata"].(map[string]any)
	name := meta["name"].(string)
	var docs []string
	for i := range n {
		meta["name"] = fmt.Sprintf("%s-%03d", name, i)
		doc, err := yaml.Marshal(policy)
		if err != nil {
			return err
		}
		docs = append(docs, string(doc))
	}
	return os.WriteFile(out, []byte(strings.Join(docs, "---\n")), 0o644)
}

// round starts the webhook on each CRD set and on the 1,000 GuardPolicies
// and stops it once ready, then times requests with 1, 100 and 1,000
// GuardPolicies.
func (f *scaleFamily) round(ctx context.Context, i int) error {
	indices := make([]int, len(f.crdSets))
	for j := range indices {
		indices[j] = j
	}
	for _, j := range alternate(indices, i) {
		set, r := f.crdSets[j], f.startups[j]
		s, err := f.env.startWebhook(ctx, fmt.Sprintf("crdguard, %d CRDs", set.n), []string{set.dir}, []string{f.policy})
		if err != nil {
			return err
		}
		rss, err := s.rss()
		s.stop()
		if err != nil {
			return err
		}
		r.samples = append(r.samples, sample{p50: s.startup, memory: rss})
		fmt.Fprintf(f.env.log, "scale round %d: %s: %s, %s\n", i+1, r.name, duration(s.startup), mebibytes(rss))
	}
	s, err := f.env.startWebhook(ctx, "crdguard, many GuardPolicies", []string{filepath.Join(f.env.root, "examples", "mysql", "crd.yaml")}, []string{f.manyPolicies})
	if err != nil {
		return err
	}
	rss, err := s.rss()
	s.stop()
	if err != nil {
		return err
	}
	f.manyStartup.samples = append(f.manyStartup.samples, sample{p50: s.startup, memory: rss})
	fmt.Fprintf(f.env.log, "scale round %d: %s: %s, %s\n", i+1, f.manyStartup.name, duration(s.startup), mebibytes(rss))
	for _, c := range alternate(f.byPolicies, i) {
		s, err := c.load.measure(ctx, c.server)
		if err != nil {
			return fmt.Errorf("%s: %w", c.row.name, err)
		}
		c.row.samples = append(c.row.samples, s)
		fmt.Fprintf(f.env.log, "scale round %d: %s: p50 %s\n", i+1, c.row.name, duration(s.p50))
	}
	return nil
}

func (f *scaleFamily) rows() []*row {
	first := f.startups[0].median()
	for _, r := range f.startups[1:] {
		m := r.median()
		r.vs = fmt.Sprintf("start-up %s, memory %s 1 CRD", ratio(float64(m.p50), float64(first.p50)), ratio(float64(m.memory), float64(first.memory)))
	}
	m := f.manyStartup.median()
	f.manyStartup.vs = fmt.Sprintf("start-up %s, memory %s 1 CRD", ratio(float64(m.p50), float64(first.p50)), ratio(float64(m.memory), float64(first.memory)))
	rows := append(f.startups, f.manyStartup)
	one := f.byPolicies[0].row.median()
	for _, c := range f.byPolicies {
		if c != f.byPolicies[0] {
			m := c.row.median()
			c.row.vs = fmt.Sprintf("p50 %s, CPU %s 1 GuardPolicy", ratio(float64(m.p50), float64(one.p50)), ratio(float64(m.cpu), float64(one.cpu)))
		}
		rows = append(rows, c.row)
	}
	return rows
}

func (f *scaleFamily) notes() []string {
	return []string{"scale: crdguard-webhook --crds DIR --policies examples/mysql/policy.yaml started as a process; start-up is exec to /readyz answering 200 " +
		"(CRDs read and compiled, TLS serving), memory its RSS then. Real CRDs are cert-manager's, Gateway API's and prometheus-operator's; the rest are " +
		"the example CRD under other groups. The 100 and 1,000 GuardPolicies are the example one under as many names, all matching the CR: " +
		"policies with the same rules share them, so each rule runs once per request; policies with other rules pay for each (BenchmarkEvaluatePolicies in pkg/policies)."}
}

func (f *scaleFamily) close() {}
