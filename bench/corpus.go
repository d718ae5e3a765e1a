package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/crdguard/crdguard/internal/corpus"
	"github.com/crdguard/crdguard/pkg/manifest"
)

// templateDir holds one valid object per kind; BenchmarkValidate uses three
// of them, so both benchmarks measure the same objects.
var templateDir = filepath.Join(corpus.RepositoryRoot(), "pkg", "schema", "testdata", "bench")

// A template is a valid object of one kind and how the corpus varies it.
type template struct {
	file string
	// weight is the kind's share of the corpus, in twentieths.
	weight int
	// vary changes names and values of copy i so no two objects are alike;
	// the result must stay valid for both tools.
	vary func(obj map[string]any, r *rand.Rand, name string)
	// mutations make the object invalid in ways both tools detect: wrong
	// type, enum, pattern or bound violation, missing required field,
	// unknown field. None may depend on CEL, metadata rules or list-type
	// uniqueness, which kubeconform does not check.
	mutations []mutation

	obj  map[string]any // read from file
	kind string
}

type mutation struct {
	desc  string
	apply func(obj map[string]any)
}

// set makes a mutation that sets the field at path to value.
func set(path string, value any) mutation {
	return mutation{fmt.Sprintf("%s = %#v", path, value), func(obj map[string]any) {
		m, key := parent(obj, path)
		m[key] = value
	}}
}

// remove makes a mutation that deletes the (required) field at path.
func remove(path string) mutation {
	return mutation{"no " + path, func(obj map[string]any) {
		m, key := parent(obj, path)
		if _, ok := m[key]; !ok {
			panic("bench: template has no " + path)
		}
		delete(m, key)
	}}
}

// parent walks a path like "spec.rules[0].name" and returns the map that
// holds its last key. A path that does not fit the template is a bug in
// this file: it panics.
func parent(obj map[string]any, path string) (map[string]any, string) {
	segments := strings.Split(path, ".")
	cur := obj
	for _, seg := range segments[:len(segments)-1] {
		name, index, indexed := strings.Cut(strings.TrimSuffix(seg, "]"), "[")
		next, ok := cur[name]
		if !ok {
			panic("bench: template has no " + path)
		}
		if indexed {
			i, err := strconv.Atoi(index)
			if err != nil {
				panic("bench: bad index in " + path)
			}
			next = next.([]any)[i]
		}
		cur = next.(map[string]any)
	}
	return cur, segments[len(segments)-1]
}

// get returns the map at path (see parent).
func get(obj map[string]any, path string) map[string]any {
	m, key := parent(obj, path)
	return m[key].(map[string]any)
}

// list returns the list at path (see parent).
func list(obj map[string]any, path string) []any {
	m, key := parent(obj, path)
	return m[key].([]any)
}

func pick[T any](r *rand.Rand, values ...T) T { return values[r.IntN(len(values))] }

var namespaces = []string{"shop", "payments", "search", "checkout", "identity", "platform", "data", "edge"}

// setName gives an object its unique name and a namespace (when it has one).
func setName(obj map[string]any, r *rand.Rand, name string) {
	meta := obj["metadata"].(map[string]any)
	meta["name"] = name
	if _, namespaced := meta["namespace"]; namespaced {
		meta["namespace"] = pick(r, namespaces...)
	}
}

// splitTraffic sends canary percent of the first rule of a route to its
// second backend and the rest to its first, as a canary rollout does.
func splitTraffic(obj map[string]any, canary int64) {
	backends := list(obj, "spec.rules[0].backendRefs")
	backends[0].(map[string]any)["weight"] = 100 - canary
	backends[1].(map[string]any)["weight"] = canary
}

var templates = []*template{
	{
		file: "certificate.yaml", weight: 6,
		vary: func(obj map[string]any, r *rand.Rand, name string) {
			setName(obj, r, name)
			spec := obj["spec"].(map[string]any)
			host := name + ".example.com"
			spec["secretName"] = name + "-tls"
			spec["commonName"] = host
			spec["dnsNames"] = []any{host, "www." + host, "api." + host}[:1+r.IntN(3)]
			spec["duration"] = pick(r, "2160h", "4320h", "8760h")
			spec["renewBefore"] = pick(r, "360h", "720h")
			key := pick(r, [2]any{"ECDSA", int64(256)}, [2]any{"ECDSA", int64(384)}, [2]any{"RSA", int64(2048)}, [2]any{"RSA", int64(4096)})
			get(obj, "spec.privateKey")["algorithm"], get(obj, "spec.privateKey")["size"] = key[0], key[1]
		},
		mutations: []mutation{
			set("spec.duration", int64(2160)),
			set("spec.privateKey.algorithm", "DSA"),
			remove("spec.secretName"),
			set("spec.secretNmae", "typo"),
			set("spec.dnsNames", "shop.example.com"),
		},
	},
	{
		file: "httproute.yaml", weight: 6,
		vary: func(obj map[string]any, r *rand.Rand, name string) {
			setName(obj, r, name)
			spec := obj["spec"].(map[string]any)
			spec["hostnames"] = []any{name + ".example.com", "*." + name + ".example.com"}[:1+r.IntN(2)]
			list(obj, "spec.rules[0].backendRefs")[0].(map[string]any)["name"] = name + "-api"
			splitTraffic(obj, pick(r, int64(0), int64(5), int64(10), int64(50)))
			get(obj, "spec.rules[0].timeouts")["request"] = pick(r, "10s", "30s", "1m")
			list(obj, "spec.rules[3].backendRefs")[0].(map[string]any)["port"] = pick(r, int64(80), int64(3000), int64(8080))
		},
		mutations: []mutation{
			set("spec.rules[0].backendRefs[0].port", "8080"),
			set("spec.rules[1].matches[0].method", "FETCH"),
			remove("spec.rules[0].backendRefs[0].name"),
			set("spec.rules[0].timeout", "5s"),
			set("spec.parentRefs[0].port", int64(70000)),
		},
	},
	{
		file: "prometheus.yaml", weight: 2,
		vary: func(obj map[string]any, r *rand.Rand, name string) {
			setName(obj, r, name)
			spec := obj["spec"].(map[string]any)
			spec["replicas"] = int64(1 + r.IntN(3))
			spec["retention"] = pick(r, "7d", "15d", "30d")
			get(obj, "spec.externalLabels")["cluster"] = name
			get(obj, "spec.remoteWrite[0].headers")["THANOS-TENANT"] = name
			get(obj, "spec.resources.limits")["memory"] = pick(r, "8Gi", "16Gi", "32Gi")
		},
		mutations: []mutation{
			set("spec.replicas", "two"),
			set("spec.logLevel", "verbose"),
			remove("spec.alerting.alertmanagers[0].name"),
			set("spec.retentionDays", int64(15)),
			set("spec.retention", "15 days"),
		},
	},
	{
		file: "servicemonitor.yaml", weight: 2,
		vary: func(obj map[string]any, r *rand.Rand, name string) {
			setName(obj, r, name)
			get(obj, "spec.selector.matchLabels")["app.kubernetes.io/name"] = name
			list(obj, "spec.endpoints")[0].(map[string]any)["interval"] = pick(r, "15s", "30s", "1m")
		},
		mutations: []mutation{
			set("spec.endpoints[0].scheme", "ftp"),
			remove("spec.selector"),
			set("spec.endpoints[0].honorLabels", "sometimes"),
			set("spec.endpoints[0].intervall", "30s"),
		},
	},
	{
		file: "issuer.yaml", weight: 1,
		vary: func(obj map[string]any, r *rand.Rand, name string) {
			setName(obj, r, name)
			get(obj, "spec.ca")["secretName"] = name + "-key-pair"
		},
		mutations: []mutation{
			set("spec.ca.secretName", int64(42)),
			remove("spec.ca.secretName"),
			set("spec.ca.secret", "ca-key-pair"),
		},
	},
	{
		file: "clusterissuer.yaml", weight: 1,
		vary: func(obj map[string]any, r *rand.Rand, name string) {
			setName(obj, r, name)
			get(obj, "spec.acme")["email"] = name + "@example.com"
			get(obj, "spec.acme.privateKeySecretRef")["name"] = name + "-account-key"
		},
		mutations: []mutation{
			remove("spec.acme.server"),
			set("spec.acme.skipTLSVerify", "no"),
			set("spec.acme.emial", "typo@example.com"),
		},
	},
	{
		file: "gateway.yaml", weight: 1,
		vary: func(obj map[string]any, r *rand.Rand, name string) {
			setName(obj, r, name)
			listeners := list(obj, "spec.listeners")
			listeners[0].(map[string]any)["port"] = pick(r, int64(80), int64(8080))
			listeners[1].(map[string]any)["hostname"] = "*." + name + ".example.com"
		},
		mutations: []mutation{
			set("spec.listeners[0].port", "80"),
			set("spec.listeners[0].port", int64(70000)),
			remove("spec.gatewayClassName"),
			set("spec.listeners[1].tlsMode", "Terminate"),
		},
	},
	{
		file: "grpcroute.yaml", weight: 1,
		vary: func(obj map[string]any, r *rand.Rand, name string) {
			setName(obj, r, name)
			spec := obj["spec"].(map[string]any)
			spec["hostnames"] = []any{name + ".example.com"}
			splitTraffic(obj, pick(r, int64(0), int64(20), int64(50)))
		},
		mutations: []mutation{
			set("spec.rules[0].backendRefs[0].weight", "80"),
			remove("spec.rules[0].matches[0].headers[0].value"),
			set("spec.rules[0].matches[0].method.verb", "Charge"),
		},
	},
	{
		file: "podmonitor.yaml", weight: 1,
		vary: func(obj map[string]any, r *rand.Rand, name string) {
			setName(obj, r, name)
			list(obj, "spec.podMetricsEndpoints")[0].(map[string]any)["interval"] = pick(r, "10s", "15s", "30s")
		},
		mutations: []mutation{
			set("spec.podMetricsEndpoints[0].interval", "15 seconds"),
			remove("spec.selector"),
			set("spec.podMetricsEndpoints[0].paths", "/metrics"),
		},
	},
	{
		file: "prometheusrule.yaml", weight: 1,
		vary: func(obj map[string]any, r *rand.Rand, name string) {
			setName(obj, r, name)
			rule := list(obj, "spec.groups[1].rules")[0].(map[string]any)
			rule["for"] = pick(r, "5m", "10m", "15m")
			rule["labels"].(map[string]any)["severity"] = pick(r, "warning", "critical")
		},
		mutations: []mutation{
			remove("spec.groups[0].rules[0].expr"),
			set("spec.groups[0].rules", "none"),
			set("spec.groups[1].rules[0].severity", "critical"),
		},
	},
}

// loadTemplates reads the template objects.
func loadTemplates() error {
	for _, t := range templates {
		path := filepath.Join(templateDir, t.file)
		docs, err := manifest.ReadFile(path)
		if err != nil {
			return err
		}
		if len(docs) != 1 || docs[0].Err != nil {
			return fmt.Errorf("%s: want one object, got %d documents (%v)", path, len(docs), docs)
		}
		t.obj, t.kind = docs[0].Object.Object, docs[0].Object.GetKind()
	}
	return nil
}

// An object of the generated corpus.
type object struct {
	kind, name string
	obj        map[string]any
	// invalid says how the object was broken; empty for a valid one.
	invalid string
}

// generate makes n objects, a fraction of them invalid, from the templates
// in proportion to their weights; seed makes the corpus reproducible.
func generate(n int, invalidShare float64, seed uint64) []object {
	g := newGenerator(invalidShare, seed)
	objects := make([]object, n)
	for i := range objects {
		objects[i] = g.next()
	}
	return objects
}

// A generator makes the objects of generate one at a time, so that a corpus
// too big to hold can be written file by file.
type generator struct {
	r            *rand.Rand
	bag          []*template
	invalidShare float64
	made         int
}

func newGenerator(invalidShare float64, seed uint64) *generator {
	g := &generator{r: rand.New(rand.NewPCG(seed, seed)), invalidShare: invalidShare}
	for _, t := range templates {
		for range t.weight {
			g.bag = append(g.bag, t)
		}
	}
	return g
}

func (g *generator) next() object {
	t := g.bag[g.r.IntN(len(g.bag))]
	base := strings.ToLower(t.kind)
	// Unique across kinds too, so tools' reports can be matched back.
	name := fmt.Sprintf("%s-%06d", base, g.made)
	g.made++
	obj := runtime.DeepCopyJSON(t.obj)
	t.vary(obj, g.r, name)
	o := object{kind: t.kind, name: name, obj: obj}
	if g.r.Float64() < g.invalidShare {
		m := t.mutations[g.r.IntN(len(t.mutations))]
		m.apply(obj)
		o.invalid = m.desc
	}
	return o
}

// writeGenerated writes n generated objects into dir as writeCorpus does,
// one file at a time, and returns them without their content (what check
// needs) and the number of files.
func writeGenerated(dir string, n int, invalidShare float64, seed uint64, perFile int) ([]object, int, error) {
	g := newGenerator(invalidShare, seed)
	objects := make([]object, 0, n)
	for start := 0; start < n; start += perFile {
		batch := make([]object, min(perFile, n-start))
		for i := range batch {
			batch[i] = g.next()
		}
		if err := writeFile(dir, start/perFile, batch); err != nil {
			return nil, 0, err
		}
		for _, o := range batch {
			o.obj = nil
			objects = append(objects, o)
		}
	}
	return objects, (n + perFile - 1) / perFile, nil
}

// writeCorpus writes objects into dir as multi-document YAML files of
// perFile objects each, and returns the number of files.
func writeCorpus(dir string, objects []object, perFile int) (int, error) {
	files := 0
	for start := 0; start < len(objects); start += perFile {
		if err := writeFile(dir, files, objects[start:min(start+perFile, len(objects))]); err != nil {
			return files, err
		}
		files++
	}
	return files, nil
}

// writeFile writes objects into dir as the multi-document YAML file number i.
func writeFile(dir string, i int, objects []object) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var buf bytes.Buffer
	for _, o := range objects {
		data, err := yaml.Marshal(o.obj)
		if err != nil {
			return err
		}
		buf.WriteString("---\n")
		buf.Write(data)
	}
	return os.WriteFile(filepath.Join(dir, fmt.Sprintf("objects-%05d.yaml", i)), buf.Bytes(), 0o644)
}
