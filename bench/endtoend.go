package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/crdguard/crdguard/internal/localcluster"
	"github.com/crdguard/crdguard/pkg/manifest"
)

// endToEndFamily times server-side dry-run creates of the example CR
// through a real kube-apiserver, at 1 and 8 concurrent clients, in
// namespaces that each select one way of admitting it: none; the same
// checks written by hand as ValidatingAdmissionPolicies, the floor of
// in-process CEL; crdguard compiled by `crdguard vap` to
// ValidatingAdmissionPolicies, with either messages; crdguard as a
// validating webhook; and a no-op controller-runtime webhook, the floor of
// any webhook.
type endToEndFamily struct {
	env   *environment
	cases []*endToEndCase
}

type endToEndCase struct {
	row     *row
	mode    string
	clients int
	objects dynamic.ResourceInterface
	obj     *unstructured.Unstructured
	// server is the webhook, whose CPU per request is measured.
	server   *server
	duration time.Duration
}

// The admission modes, each a namespace labelled benchLabel=mode.
const (
	modeNone    = "no admission"
	modeHandVAP = "hand-written ValidatingAdmissionPolicy"
	modeVAP     = "crdguard as ValidatingAdmissionPolicy"
	// modeVAPFindings is modeVAP compiled with --messages findings.
	modeVAPFindings = "crdguard as ValidatingAdmissionPolicy with findings"
	modeNoop        = "controller-runtime no-op webhook"
	modeCrdguard    = "crdguard as webhook"
	benchLabel      = "crdguard.dev/bench"
)

var endToEndModes = []struct{ mode, namespace string }{
	{modeNone, "bench-none"},
	{modeHandVAP, "bench-hand"},
	{modeVAP, "bench-vap"},
	{modeVAPFindings, "bench-vap-findings"},
	{modeNoop, "bench-noop"},
	{modeCrdguard, "bench-crdguard"},
}

var mysqlClusters = schema.GroupVersionResource{Group: "db.example.io", Version: "v1", Resource: "mysqlclusters"}

func (f *endToEndFamily) name() string { return "endtoend" }

func (f *endToEndFamily) setup(ctx context.Context, env *environment) error {
	f.env = env
	cfg, err := env.cluster()
	if err != nil {
		return err
	}
	c, err := client.New(cfg, client.Options{Scheme: env.scheme})
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	crdguardServer, err := env.server(ctx, serverCrdguard)
	if err != nil {
		return err
	}
	noopServer, err := env.server(ctx, serverNoop)
	if err != nil {
		return err
	}
	for _, m := range endToEndModes {
		if err := localcluster.EnsureNamespace(ctx, c, m.namespace, map[string]string{benchLabel: m.namespace}); err != nil {
			return err
		}
	}
	for _, m := range []struct{ messages, namespace, prefix string }{
		{"summary", "bench-vap", "crdguard-"},
		// The same policies with findings, under names of their own.
		{"findings", "bench-vap-findings", "crdguard-findings-"},
	} {
		compiled, err := f.compileVAP(ctx, m.messages)
		if err != nil {
			return err
		}
		for _, item := range compiled {
			item.SetName(m.prefix + strings.TrimPrefix(item.GetName(), "crdguard-"))
			if policy, ok, _ := unstructured.NestedString(item.Object, "spec", "policyName"); ok {
				if err := unstructured.SetNestedField(item.Object, m.prefix+strings.TrimPrefix(policy, "crdguard-"), "spec", "policyName"); err != nil {
					return err
				}
			}
		}
		if err := bindVAPs(ctx, c, compiled, m.namespace); err != nil {
			return err
		}
	}
	handWritten, err := manifest.ReadFile(filepath.Join(env.root, "bench", "testdata", "hand-written-vap.yaml"))
	if err != nil {
		return err
	}
	var hand []unstructured.Unstructured
	for _, d := range handWritten {
		if d.Err != nil {
			return d.Err
		}
		hand = append(hand, *d.Object)
	}
	if err := bindVAPs(ctx, c, hand, "bench-hand"); err != nil {
		return err
	}
	for _, w := range []struct {
		s         *server
		namespace string
	}{{noopServer, "bench-noop"}, {crdguardServer, "bench-crdguard"}} {
		if err := c.Create(ctx, webhookConfiguration(w.namespace, w.s.url+ownPath, env.ca.PEM)); err != nil {
			return err
		}
	}

	example, err := exampleObject(env.root)
	if err != nil {
		return err
	}
	if err := f.waitActive(ctx, dyn, example); err != nil {
		return err
	}
	duration := 3 * time.Second
	if env.o.quick {
		duration = 300 * time.Millisecond
	}
	for _, clients := range []int{1, 8} {
		for _, m := range endToEndModes {
			obj := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(example)}
			obj.SetNamespace(m.namespace)
			var s *server
			switch m.mode {
			case modeNoop:
				s = noopServer
			case modeCrdguard:
				s = crdguardServer
			}
			f.cases = append(f.cases, &endToEndCase{
				row:  &row{family: f.name(), name: fmt.Sprintf("%s, %d client%s", m.mode, clients, map[bool]string{true: "s"}[clients > 1]), rateUnit: "req/s", latency: true},
				mode: m.mode, clients: clients, objects: dyn.Resource(mysqlClusters).Namespace(m.namespace), obj: obj, server: s, duration: duration,
			})
		}
	}
	return nil
}

// compileVAP compiles the example GuardPolicy with `crdguard vap
// --messages messages`. The example's approvers are left out so that
// every rule compiles: with them, protect-data, whose deletions are
// approved with a stored record, stays with the webhook.
func (f *endToEndFamily) compileVAP(ctx context.Context, messages string) ([]unstructured.Unstructured, error) {
	examples := filepath.Join(f.env.root, "examples", "mysql")
	data, err := os.ReadFile(filepath.Join(examples, "policy.yaml"))
	if err != nil {
		return nil, err
	}
	var policy map[string]any
	if err := yaml.Unmarshal(data, &policy); err != nil {
		return nil, err
	}
	delete(policy["spec"].(map[string]any), "approvers")
	data, err = yaml.Marshal(policy)
	if err != nil {
		return nil, err
	}
	policyFile := filepath.Join(f.env.work, "policy-without-approvers.yaml")
	if err := os.WriteFile(policyFile, data, 0o644); err != nil {
		return nil, err
	}
	bin, err := f.env.binary("./cmd/crdguard")
	if err != nil {
		return nil, err
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "vap", "--policies", policyFile, "--crds", filepath.Join(examples, "crd.yaml"), "--messages", messages, "-o", "json")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("crdguard vap: %v\n%s", err, stderr.String())
	}
	// Every rule compiles.
	if got := strings.TrimSpace(stderr.String()); got != "" {
		return nil, fmt.Errorf("crdguard vap: want no rule left to the webhook, got:\n%s", got)
	}
	var list unstructured.UnstructuredList
	if err := json.Unmarshal(stdout.Bytes(), &list); err != nil {
		return nil, fmt.Errorf("crdguard vap: %w", err)
	}
	// The defaults' MutatingAdmissionPolicy is left out, as the
	// hand-written VAP has no defaults: the checks are compared.
	return slices.DeleteFunc(list.Items, func(item unstructured.Unstructured) bool {
		return strings.HasPrefix(item.GetKind(), "Mutating")
	}), nil
}

// bindVAPs creates the policies and bindings of items, the bindings
// restricted to namespace.
func bindVAPs(ctx context.Context, c client.Client, items []unstructured.Unstructured, namespace string) error {
	for _, item := range items {
		if item.GetKind() == "ValidatingAdmissionPolicyBinding" {
			selector := map[string]any{"matchLabels": map[string]any{benchLabel: namespace}}
			if err := unstructured.SetNestedField(item.Object, selector, "spec", "matchResources", "namespaceSelector"); err != nil {
				return err
			}
		}
		if err := c.Create(ctx, &item); err != nil {
			return fmt.Errorf("creating %s %s: %w", item.GetKind(), item.GetName(), err)
		}
	}
	return nil
}

// webhookConfiguration sends MySQLCluster requests in namespace to url.
func webhookConfiguration(namespace, url string, caBundle []byte) *admissionregistrationv1.ValidatingWebhookConfiguration {
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: namespace},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{localcluster.Webhook{
			Name: "validate.crdguard.dev", URL: url, CABundle: caBundle,
			Rules:             localcluster.MySQLClusters(admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete),
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{benchLabel: namespace}},
		}.Validating()},
	}
}

// waitActive polls until each namespace's admission denies what it must:
// the API server loads policies and webhook configurations
// asynchronously, and a benchmark of a policy not yet enforced would
// measure nothing.
func (f *endToEndFamily) waitActive(ctx context.Context, dyn dynamic.Interface, example map[string]any) error {
	wrongImage := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(example)}
	wrongImage.Object["spec"].(map[string]any)["image"] = "mysql:8.4.0" // spec.version is 8.0.36
	probe := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(example)}
	probe.SetName(denyProbeName)
	for _, c := range []struct {
		namespace string
		obj       *unstructured.Unstructured
		denial    string // "" for allowed
	}{
		{"bench-none", wrongImage, ""},
		{"bench-hand", wrongImage, "the image tag must match spec.version"},
		{"bench-vap", wrongImage, "[mysql-safety/image-version]"},
		{"bench-vap-findings", wrongImage, "[mysql-safety/image-version] spec.image: Invalid value: \"mysql:8.4.0\""},
		{"bench-crdguard", wrongImage, "does not match spec.version"},
		{"bench-noop", probe, "deny-probe is denied"},
	} {
		obj := c.obj.DeepCopy()
		obj.SetNamespace(c.namespace)
		var last error
		err := wait(ctx, time.Minute, func() (bool, error) {
			_, last = dyn.Resource(mysqlClusters).Namespace(c.namespace).Create(ctx, obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if c.denial == "" {
				return last == nil, last
			}
			return last != nil && strings.Contains(last.Error(), c.denial), last
		})
		if err != nil {
			return fmt.Errorf("namespace %s: the admission expected is not in force: %w", c.namespace, err)
		}
	}
	return nil
}

func (f *endToEndFamily) round(ctx context.Context, i int) error {
	for _, c := range alternate(f.cases, i) {
		s, err := c.measure(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", c.row.name, err)
		}
		c.row.samples = append(c.row.samples, s)
		fmt.Fprintf(f.env.log, "endtoend round %d: %s: %.0f req/s, p50 %s\n", i+1, c.row.name, s.rate, duration(s.p50))
	}
	return nil
}

// measure runs dry-run creates from c.clients goroutines for c.duration,
// after a warm-up.
func (c *endToEndCase) measure(ctx context.Context) (sample, error) {
	if _, _, err := c.run(ctx, max(c.duration/10, 100*time.Millisecond)); err != nil {
		return sample{}, err
	}
	var cpu0, cpu1 time.Duration
	var err error
	if c.server != nil {
		if cpu0, err = c.server.cpu(); err != nil {
			return sample{}, err
		}
	}
	latencies, elapsed, err := c.run(ctx, c.duration)
	if err != nil {
		return sample{}, err
	}
	if c.server != nil {
		if cpu1, err = c.server.cpu(); err != nil {
			return sample{}, err
		}
	}
	n := len(latencies)
	return sample{rate: float64(n) / elapsed.Seconds(), p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), cpu: (cpu1 - cpu0) / time.Duration(max(n, 1))}, nil
}

func (c *endToEndCase) run(ctx context.Context, d time.Duration) ([]time.Duration, time.Duration, error) {
	return closedLoop(ctx, c.clients, d, func(ctx context.Context) error {
		if _, err := c.objects.Create(ctx, c.obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
			return fmt.Errorf("dry-run create: %w", err)
		}
		return nil
	})
}

// rows compare each mode with no admission at the same number of clients,
// and crdguard as webhook with the others.
func (f *endToEndFamily) rows() []*row {
	var rows []*row
	for i := 0; i+len(endToEndModes) <= len(f.cases); i += len(endToEndModes) {
		byMode := map[string]*row{}
		for _, c := range f.cases[i : i+len(endToEndModes)] {
			byMode[c.mode] = c.row
		}
		none := byMode[modeNone].median()
		for _, c := range f.cases[i : i+len(endToEndModes)] {
			m := c.row.median()
			if c.mode != modeNone {
				c.row.vs = fmt.Sprintf("p50 %s no admission (%s, %s)", ratio(float64(m.p50), float64(none.p50)), signedDuration(m.p50-none.p50), roundRatios(c.row, byMode[modeNone], p50))
			}
			switch c.mode {
			case modeVAP:
				c.row.vs += fmt.Sprintf("; target ≤ 1.10×; %s hand-written VAP", ratio(float64(m.p50), float64(byMode[modeHandVAP].median().p50)))
			case modeVAPFindings:
				vap := byMode[modeVAP]
				c.row.vs += fmt.Sprintf("; %s with static messages (%s)", ratio(float64(m.p50), float64(vap.median().p50)), roundRatios(c.row, vap, p50))
			case modeCrdguard:
				noop := byMode[modeNoop]
				c.row.vs += fmt.Sprintf("; %s VAP, %s no-op webhook (%s)", ratio(float64(m.p50), float64(byMode[modeVAP].median().p50)),
					ratio(float64(m.p50), float64(noop.median().p50)), roundRatios(c.row, noop, p50))
			}
			rows = append(rows, c.row)
		}
	}
	return rows
}

func (f *endToEndFamily) notes() []string {
	return []string{"endtoend: server-side dry-run CREATEs of examples/mysql/good.yaml with client-go through kube-apiserver " +
		"(envtest, etcd on the same machine), one namespace per way of admitting it. The hand-written VAP is bench/testdata/hand-written-vap.yaml: " +
		"the same checks on a CREATE as a cluster administrator would write them, trusting the CRD's schema, with static messages. crdguard's VAP is `crdguard vap` of examples/mysql/policy.yaml, with static messages (the default) or --messages findings, " +
		"without its approvers (with them the deletion rule, approved with a stored record, stays with the webhook), without the MutatingAdmissionPolicy of its defaults rule, as the hand-written VAP has no defaults. " +
		"The webhooks are validating only, HTTP/2 (crdguard with --enable-http2), failurePolicy Fail. CPU per op is the webhook process's CPU per request."}
}

func (f *endToEndFamily) close() {}
