package chart

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/crdguard/crdguard/internal/localca"
	"github.com/crdguard/crdguard/internal/localcluster"
)

// The guarded kind of examples/mysql, as the README installs it (DELETE
// too: the example policy protects data from deletion).
var mysqlRules = []string{
	"webhook.rules[0].apiGroups={db.example.io}",
	"webhook.rules[0].apiVersions={*}",
	"webhook.rules[0].resources={mysqlclusters}",
	"webhook.rules[0].operations={CREATE,UPDATE,DELETE}",
}

const (
	// testVersion is linked into the binary with the Dockerfile's -ldflags.
	testVersion = "v0.0.0-deploy-test"
	// certwatcherInterval is controller-runtime's certwatcher poll, the
	// latest a renewed certificate is noticed when no file event comes.
	certwatcherInterval = 10 * time.Second
	// rotationSlack is added to it for a loaded two-core machine.
	rotationSlack = 20 * time.Second
	// loadWorkers send requests through the API server during the rotation.
	loadWorkers = 4
	// loadAfterRotation is how long they go on once the new certificate is
	// served.
	loadAfterRotation = 3 * time.Second
)

// TestDeployment runs crdguard-webhook as the chart's Deployment runs it:
// the binary built with the Dockerfile's -ldflags, the rendered args, the
// ServiceAccount's RBAC (the webhook's kubeconfig impersonates it), the
// serving Secret cert-manager would write projected as the kubelet
// projects it, and the rendered webhook configurations with the CA
// cainjector would inject. kubectl then gets the example's verdicts, and
// the certificate is rotated under load without a failed request.
func TestDeployment(t *testing.T) {
	ctx := t.Context()
	// Static rules: the webhook is started before its configurations
	// exist, which would keep managed rules unready; TestManagedRulesRBAC
	// and test/e2e/webhook's TestManagedRules cover those.
	r := renderChart(t, defaultRelease, append([]string{"webhook.manageRules=false"}, mysqlRules...)...)
	c := adminClient(t)
	bin := buildWebhook(t)

	// The example's CRD and GuardPolicy exist before the webhook starts.
	examples := filepath.Join(env.root, "examples", "mysql")
	mustKubectl(t, "apply", "-f", filepath.Join(examples, "crd.yaml"))
	t.Cleanup(func() { cleanupKubectl(t, "delete", "--ignore-not-found", "-f", filepath.Join(examples, "crd.yaml")) })
	mustKubectl(t, "wait", "--for=condition=Established", "--timeout=60s", "crd/mysqlclusters.db.example.io")
	mustKubectl(t, "apply", "-f", filepath.Join(examples, "policy.yaml"))
	t.Cleanup(func() {
		cleanupKubectl(t, "delete", "--ignore-not-found", "-f", filepath.Join(examples, "policy.yaml"))
	})
	if err := localcluster.EnsureNamespace(ctx, c, "shop", nil); err != nil {
		t.Fatal(err)
	}

	// The webhook's identity: the chart's ServiceAccount and its grants.
	applyRendered(t, r, rbacKinds...)
	t.Cleanup(func() { deleteRendered(t, r, rbacKinds...) })
	// The elected replica (--policy-status) and its Lease.
	applyRendered(t, r, "Role", "RoleBinding")
	t.Cleanup(func() { deleteRendered(t, r, "Role", "RoleBinding") })
	kubeconfig := impersonatingKubeconfig(t, serviceAccountUser)
	// The API server sees the ServiceAccount, not the admin behind it.
	whoami := kubectl(ctx, "--kubeconfig="+kubeconfig, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}")
	if out, err := whoami.Output(); err != nil || string(out) != serviceAccountUser {
		t.Fatalf("kubectl auth whoami with the webhook's kubeconfig: %q, %v; want %s", out, err, serviceAccountUser)
	}

	// The serving Secret as cert-manager writes it, mounted as the kubelet
	// mounts it.
	ca, err := localca.New("crdguard-ca")
	if err != nil {
		t.Fatal(err)
	}
	d := &appsv1.Deployment{}
	r.typed(t, "Deployment", defaultRelease, d)
	secretName := servingSecretName(t, d)
	secret := issueServingSecret(t, c, ca, secretName)
	t.Cleanup(func() {
		cleanupKubectl(t, "delete", "--ignore-not-found", "-n", releaseNamespace, "secret", secretName)
	})
	certDir := t.TempDir()
	if err := projectSecret(certDir, secret.Data); err != nil {
		t.Fatalf("projecting Secret %s: %v", secretName, err)
	}

	// The rendered args, with what must differ on loopback.
	ports, err := localcluster.FreePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	args := loopbackArgs(t, d.Spec.Template.Spec.Containers[0].Args, map[string]string{
		"--port":                      strconv.Itoa(ports[0]),
		"--cert-dir":                  certDir,
		"--health-probe-bind-address": ":" + strconv.Itoa(ports[1]),
		"--metrics-bind-address":      ":" + strconv.Itoa(ports[2]),
		// The kubelet expands $(CRDGUARD_MEMORY_LIMIT) to the bytes.
		"--memory-limit": strconv.FormatInt(d.Spec.Template.Spec.Containers[0].Resources.Limits.Memory().Value(), 10),
	})
	// In a pod the Lease's namespace is the pod's.
	args = append(args, "--kubeconfig="+kubeconfig, "--leader-election-namespace="+releaseNamespace)
	logs := startWebhook(t, bin, args, fmt.Sprintf("127.0.0.1:%d", ports[1]))
	webhookAddr := fmt.Sprintf("127.0.0.1:%d", ports[0])

	// The configurations, as cainjector leaves them, called by URL: the
	// API server here has no Service network.
	registerWebhooks(t, c, r, "https://"+webhookAddr, secret.Data["ca.crt"])
	waitForWebhook(t, c, readExample(t, "unsafe.yaml"))

	t.Run("policy status", func(t *testing.T) {
		// Written by the elected replica through the chart's grants.
		var last any
		err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			gp := &unstructured.Unstructured{}
			gp.SetAPIVersion("crdguard.dev/v1alpha1")
			gp.SetKind("GuardPolicy")
			if err := c.Get(ctx, client.ObjectKey{Name: "mysql-safety"}, gp); err != nil {
				return false, err
			}
			conditions, _, _ := unstructured.NestedSlice(gp.Object, "status", "conditions")
			last = conditions
			for _, cond := range conditions {
				m, _ := cond.(map[string]any)
				if m["type"] == "Ready" && m["status"] == "True" && m["reason"] == "Compiled" {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			t.Errorf("mysql-safety never Ready: %v; conditions %v; the webhook's log:\n%s", err, last, logs())
		}
	})

	t.Run("kubectl verdicts", func(t *testing.T) {
		out, err := kubectl(ctx, "apply", "--dry-run=server", "-f", filepath.Join(examples, "bad.yaml")).CombinedOutput()
		if err == nil {
			t.Errorf("kubectl apply --dry-run=server -f bad.yaml was accepted:\n%s", out)
		}
		// The API server's own verdicts, not the webhook's: strict field
		// validation and the CRD's schema.
		for _, want := range []string{
			`MySQLCluster in version "v1" cannot be handled as a MySQLCluster: strict decoding error: unknown field "spec.resource"`,
			`MySQLCluster.db.example.io "Reporting_DB" is invalid: [metadata.name: Invalid value: "Reporting_DB": a lowercase RFC 1123 subdomain`,
			`spec.storage.reclaimPolicy: Unsupported value: "Destroy": supported values: "Retain", "Delete"`,
		} {
			if !strings.Contains(string(out), want) {
				t.Errorf("kubectl's denial of bad.yaml lacks %q:\n%s", want, out)
			}
		}
		// unsafe.yaml is schema-valid: only the webhook denies it.
		out, err = kubectl(ctx, "apply", "--dry-run=server", "-f", filepath.Join(examples, "unsafe.yaml")).CombinedOutput()
		if err == nil {
			t.Errorf("kubectl apply --dry-run=server -f unsafe.yaml was accepted:\n%s", out)
		}
		for _, want := range []string{
			`Warning: [mysql-safety/production-replicas] spec.replicas: Invalid value: 1: production clusters need at least 3 replicas, found 1`,
			`The MySQLCluster "analytics" is invalid:`,
			`* spec.resources.limits.memory: [mysql-safety/resources] Invalid value: limits.memory 8Gi is 8.0× requests.memory 1Gi`,
			`* spec.image: [mysql-safety/image-version] Invalid value: "mysql:8.4.0": image tag 8.4.0 does not match spec.version 8.0.36`,
		} {
			if !strings.Contains(string(out), want) {
				t.Errorf("kubectl's denial of unsafe.yaml lacks %q:\n%s", want, out)
			}
		}
		out, err = kubectl(ctx, "apply", "--dry-run=server", "-f", filepath.Join(examples, "good.yaml")).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "mysqlcluster.db.example.io/prod created (server dry run)") {
			t.Errorf("kubectl apply --dry-run=server -f good.yaml: %v\n%s", err, out)
		}
	})

	// Namespace labels are read as the ServiceAccount too, on the first
	// policy with a namespaceSelector; the policy itself passes
	// /validate-policy.
	t.Run("namespaceSelector", func(t *testing.T) {
		cmd := kubectl(ctx, "apply", "-f", "-")
		cmd.Stdin = strings.NewReader(frozenPolicy)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("kubectl apply of GuardPolicy frozen-namespaces: %v\n%s", err, out)
		}
		t.Cleanup(func() { cleanupKubectl(t, "delete", "--ignore-not-found", "guardpolicy", "frozen-namespaces") })
		const frozen = "frozen"
		if err := localcluster.EnsureNamespace(ctx, c, frozen, map[string]string{"crdguard.dev/frozen": "true"}); err != nil {
			t.Fatal(err)
		}
		good := readExample(t, "good.yaml")
		good.SetNamespace(frozen)
		var last error
		if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			last = c.Create(ctx, good.DeepCopy(), client.DryRunAll)
			return apierrors.IsInvalid(last) && strings.Contains(last.Error(), "this namespace is frozen"), nil
		}); err != nil {
			t.Fatalf("good.yaml in namespace frozen was never denied by frozen-namespaces: %v; last answer: %v\n%s", err, last, logs())
		}
		// The control: the same object elsewhere is allowed.
		if err := c.Create(ctx, readExample(t, "good.yaml"), client.DryRunAll); err != nil {
			t.Errorf("good.yaml in namespace shop: %v", err)
		}
	})

	t.Run("certificate rotation under load", func(t *testing.T) {
		scraper := newMetricsScraper(t, c, fmt.Sprintf("https://127.0.0.1:%d/metrics", ports[2]))
		rotateUnderLoad(t, c, ca, secretName, certDir, webhookAddr, scraper)
	})

	t.Run("version", func(t *testing.T) {
		out, err := exec.CommandContext(ctx, bin, "--version").Output()
		if err != nil || string(out) != testVersion+"\n" {
			t.Errorf("crdguard-webhook --version: %q, %v; want %q", out, err, testVersion+"\n")
		}
		if log := logs(); !strings.Contains(log, `"msg":"Starting","version":"`+testVersion+`"`) {
			t.Errorf("the start log does not carry the version %s:\n%s", testVersion, log)
		}
	})
}

// frozenPolicy denies every MySQLCluster change in namespaces labelled
// crdguard.dev/frozen=true.
const frozenPolicy = `apiVersion: crdguard.dev/v1alpha1
kind: GuardPolicy
metadata:
  name: frozen-namespaces
spec:
  match:
    resources:
    - group: db.example.io
      kinds: [MySQLCluster]
    namespaceSelector:
      matchLabels: {crdguard.dev/frozen: "true"}
  enforcement: Deny
  rules:
  - name: frozen
    cel:
      expression: "false"
      message: this namespace is frozen
`

// rotateUnderLoad renews the serving certificate (a new key from the same
// CA, as cert-manager does with rotationPolicy Always) while workers send
// server-side dry-run creates through the API server, then checks that not
// one failed and the new certificate is served within the certwatcher's
// interval.
func rotateUnderLoad(t *testing.T, c client.Client, ca *localca.CA, secretName, certDir, webhookAddr string, metrics *metricsScraper) {
	before := servedSerial(t, ca, webhookAddr)
	reviewsBefore := metrics.counterSum(t, "crdguard_admission_requests_total")
	good := readExample(t, "good.yaml")

	var sent, failed atomic.Int64
	var firstErr atomic.Value
	// Workers finish the request in flight when stopped: every request
	// sent is counted, none is cut off by the test.
	var stopped atomic.Bool
	var wg sync.WaitGroup
	stopLoad := func() {
		stopped.Store(true)
		wg.Wait()
	}
	for range loadWorkers {
		wg.Go(func() {
			for !stopped.Load() {
				err := c.Create(t.Context(), good.DeepCopy(), client.DryRunAll)
				sent.Add(1)
				if err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
				}
			}
		})
	}
	defer stopLoad()
	// Rotate only once requests are flowing.
	if err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return sent.Load() >= loadWorkers, nil
	}); err != nil {
		t.Fatalf("no requests went through: %v", err)
	}

	// cert-manager renews the Secret; the kubelet syncs the volume. Twice:
	// the first swap removes the files the certwatcher watched, and the
	// second renewal must still be seen.
	var served []time.Duration
	for range 2 {
		secret := issueServingSecret(t, c, ca, secretName)
		want := certificateSerial(t, secret.Data["tls.crt"])
		if want.Cmp(before) == 0 {
			t.Fatal("the renewed certificate has the old serial")
		}
		renewed := time.Now()
		if err := projectSecret(certDir, secret.Data); err != nil {
			t.Fatalf("projecting the renewed Secret: %v", err)
		}
		bound := certwatcherInterval + rotationSlack
		if err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, bound, true, func(context.Context) (bool, error) {
			return servedSerial(t, ca, webhookAddr).Cmp(want) == 0, nil
		}); err != nil {
			t.Fatalf("the renewed certificate (serial %s) was not served within %s: %v", want, bound, err)
		}
		served = append(served, time.Since(renewed).Round(time.Millisecond))
		before = want
	}
	// Keep the load on a while: new connections meet the new certificate.
	select {
	case <-time.After(loadAfterRotation):
	case <-t.Context().Done():
	}
	stopLoad()

	t.Logf("renewed certificates served after %v; %d requests through the API server, %d failed", served, sent.Load(), failed.Load())
	if n := failed.Load(); n > 0 {
		t.Errorf("%d of %d requests failed during the rotation; the first: %v", n, sent.Load(), firstErr.Load())
	}
	// Each create went to /validate (which counts them): the webhook
	// answered them, not an API server that skipped it.
	if reviews := metrics.counterSum(t, "crdguard_admission_requests_total") - reviewsBefore; reviews < float64(sent.Load()) {
		t.Errorf("/validate counted %v admission requests for %d creates, want at least one each", reviews, sent.Load())
	}
}

// metricsScraper scrapes the webhook's /metrics as Prometheus does with
// the chart's --metrics-secure: HTTPS, with the token of a ServiceAccount
// bound to the chart's metrics-reader ClusterRole.
type metricsScraper struct {
	url, token string
	client     *http.Client
}

func newMetricsScraper(t *testing.T, c client.Client, url string) *metricsScraper {
	t.Helper()
	ctx := t.Context()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "prometheus", Namespace: releaseNamespace}}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "prometheus-crdguard-metrics"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: defaultRelease + "-metrics-reader"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa.Name, Namespace: sa.Namespace}},
	}
	for _, obj := range []client.Object{sa, binding} {
		if err := c.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Delete(context.Background(), obj) })
	}
	tr := &authenticationv1.TokenRequest{}
	if err := c.SubResource("token").Create(ctx, sa, tr); err != nil {
		t.Fatalf("a token for %s: %v", sa.Name, err)
	}
	// The metrics server's certificate is self-signed, as the chart's
	// ServiceMonitor accepts it.
	transport := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}} //nolint:gosec // the test's own server
	t.Cleanup(transport.CloseIdleConnections)
	return &metricsScraper{url: url, token: tr.Status.Token, client: &http.Client{Transport: transport}}
}

// counterSum adds up every series of a counter on the webhook's /metrics.
func (m *metricsScraper) counterSum(t *testing.T, name string) float64 {
	t.Helper()
	url := m.url
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+m.token)
	resp, err := m.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndex(line, " ")+1:], 64)
		if err != nil {
			t.Fatalf("%s: %q: %v", url, line, err)
		}
		sum += v
	}
	return sum
}

// adminClient is a client of the test cluster as its admin.
func adminClient(t *testing.T) client.Client {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", env.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	// client-go's default of 5 requests a second would be the load's limit.
	cfg.QPS, cfg.Burst = 1000, 1000
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// dockerfileWebhookBuild matches the Dockerfile's go build of crdguard-webhook.
var dockerfileWebhookBuild = regexp.MustCompile(`go build [^"]*-ldflags "([^"]*)"\s+-o /out/crdguard-webhook \./cmd/crdguard-webhook`)

// buildWebhook builds crdguard-webhook with the Dockerfile's -ldflags, so
// the version wiring is the image's.
func buildWebhook(t *testing.T) string {
	t.Helper()
	dockerfile, err := os.ReadFile(filepath.Join(env.root, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.ReplaceAll(string(dockerfile), "\\\n", " ")
	m := dockerfileWebhookBuild.FindStringSubmatch(joined)
	if m == nil {
		t.Fatalf("the Dockerfile has no `go build ... -ldflags \"...\" -o /out/crdguard-webhook ./cmd/crdguard-webhook`")
	}
	ldflags := strings.ReplaceAll(m[1], "${VERSION}", testVersion)
	bin := filepath.Join(t.TempDir(), "crdguard-webhook")
	// Not -trimpath: it would rebuild every dependency; it changes no behaviour.
	cmd := exec.CommandContext(t.Context(), "go", "build", "-ldflags", ldflags, "-o", bin, "./cmd/crdguard-webhook")
	cmd.Dir = env.root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build -ldflags %q ./cmd/crdguard-webhook: %v\n%s", ldflags, err, out)
	}
	return bin
}

// impersonatingKubeconfig is the admin's kubeconfig acting as user, as the
// webhook's in-cluster config acts as its ServiceAccount.
func impersonatingKubeconfig(t *testing.T, user string) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(env.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, auth := range cfg.AuthInfos {
		auth.Impersonate = user
	}
	path := filepath.Join(t.TempDir(), "webhook.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// servingSecretName is the Secret the Deployment mounts at --cert-dir.
func servingSecretName(t *testing.T, d *appsv1.Deployment) string {
	t.Helper()
	c := d.Spec.Template.Spec.Containers[0]
	var certDir string
	for _, a := range c.Args {
		if v, ok := strings.CutPrefix(a, "--cert-dir="); ok {
			certDir = v
		}
	}
	for _, m := range c.VolumeMounts {
		if m.MountPath != certDir {
			continue
		}
		for _, v := range d.Spec.Template.Spec.Volumes {
			if v.Name == m.Name && v.Secret != nil {
				return v.Secret.SecretName
			}
		}
	}
	t.Fatalf("no Secret mounted at --cert-dir %q", certDir)
	return ""
}

// issueServingSecret signs a new serving certificate for 127.0.0.1 and
// writes the Secret cert-manager would: tls.crt, tls.key and ca.crt.
func issueServingSecret(t *testing.T, c client.Client, ca *localca.CA, name string) *corev1.Secret {
	t.Helper()
	staging := t.TempDir()
	if err := ca.WriteServing(staging, net.IPv4(127, 0, 0, 1), 24*time.Hour); err != nil {
		t.Fatal(err)
	}
	data := map[string][]byte{"ca.crt": ca.PEM}
	for _, key := range []string{"tls.crt", "tls.key"} {
		b, err := os.ReadFile(filepath.Join(staging, key))
		if err != nil {
			t.Fatal(err)
		}
		data[key] = b
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: releaseNamespace}}
	if _, err := controllerutil.CreateOrUpdate(t.Context(), c, secret, func() error {
		secret.Type = corev1.SecretTypeTLS
		secret.Data = data
		return nil
	}); err != nil {
		t.Fatalf("writing Secret %s: %v", name, err)
	}
	// What the kubelet mounts is what the API server stores.
	stored := &corev1.Secret{}
	if err := c.Get(t.Context(), client.ObjectKeyFromObject(secret), stored); err != nil {
		t.Fatal(err)
	}
	return stored
}

// loopbackArgs replaces the values of the flags in set, each of which the
// rendered args must have.
func loopbackArgs(t *testing.T, args []string, set map[string]string) []string {
	t.Helper()
	out := make([]string, 0, len(args))
	replaced := map[string]bool{}
	for _, a := range args {
		name, _, _ := strings.Cut(a, "=")
		if v, ok := set[name]; ok {
			a = name + "=" + v
			replaced[name] = true
		}
		out = append(out, a)
	}
	for name := range set {
		if !replaced[name] {
			t.Fatalf("the rendered args %v lack %s", args, name)
		}
	}
	return out
}

// startWebhook starts the binary, waits until /readyz answers, and stops
// it with SIGTERM at the end of the test, expecting a clean exit. It
// returns a function reading the logs so far.
func startWebhook(t *testing.T, bin string, args []string, probe string) (logs func() string) {
	t.Helper()
	out := &localcluster.Output{}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = out, out
	p, err := localcluster.StartProcess(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Stop(time.Minute); err != nil {
			t.Errorf("crdguard-webhook, stopped with SIGTERM: %v\n%s", err, out)
		}
	})
	if err := p.WaitReady(t.Context(), probe); err != nil {
		t.Fatalf("crdguard-webhook %s never became ready: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out.String
}

// registerWebhooks creates the rendered webhook configurations with every
// clientConfig switched from the Service to url plus the same path, and
// the CA cainjector would inject from the serving Secret's ca.crt. They
// are deleted before the webhook stops.
func registerWebhooks(t *testing.T, c client.Client, r *rendered, url string, caBundle []byte) {
	t.Helper()
	viaURL := func(cc *admissionregistrationv1.WebhookClientConfig) {
		if cc.Service == nil || cc.Service.Path == nil {
			t.Fatalf("clientConfig %+v has no Service path", cc)
		}
		*cc = admissionregistrationv1.WebhookClientConfig{URL: ptr.To(url + *cc.Service.Path), CABundle: caBundle}
	}
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	r.typed(t, "ValidatingWebhookConfiguration", defaultRelease, vwc)
	for i := range vwc.Webhooks {
		viaURL(&vwc.Webhooks[i].ClientConfig)
	}
	mwc := &admissionregistrationv1.MutatingWebhookConfiguration{}
	r.typed(t, "MutatingWebhookConfiguration", defaultRelease, mwc)
	for i := range mwc.Webhooks {
		viaURL(&mwc.Webhooks[i].ClientConfig)
	}
	for _, obj := range []client.Object{vwc, mwc} {
		if err := c.Create(t.Context(), obj); err != nil {
			t.Fatalf("creating %T %s: %v", obj, obj.GetName(), err)
		}
		t.Cleanup(func() {
			if err := c.Delete(context.Background(), obj); err != nil {
				t.Errorf("deleting %T %s: %v", obj, obj.GetName(), err)
			}
		})
	}
}

// waitForWebhook waits until the API server, whose informer picks the
// configurations up a moment after they are created, sends probe to the
// webhook and gets its denial.
func waitForWebhook(t *testing.T, c client.Client, probe *unstructured.Unstructured) {
	t.Helper()
	var last error
	if err := wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		last = c.Create(ctx, probe.DeepCopy(), client.DryRunAll)
		return apierrors.IsInvalid(last) && strings.Contains(last.Error(), `admission webhook "validate.crdguard.dev" denied the request`), nil
	}); err != nil {
		t.Fatalf("the API server never got the webhook's denial of %s: %v; last answer: %v", probe.GetName(), err, last)
	}
}

// readExample reads a file of examples/mysql that holds one object.
func readExample(t *testing.T, name string) *unstructured.Unstructured {
	t.Helper()
	obj, err := localcluster.ReadObject(filepath.Join(env.root, "examples", "mysql", name), "")
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// servedSerial is the serial of the certificate the webhook serves now,
// from a new TLS handshake that trusts only the CA, as the API server does.
func servedSerial(t *testing.T, ca *localca.CA, addr string) *big.Int {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca.PEM)
	conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool})
	if err != nil {
		t.Fatalf("TLS handshake with the webhook: %v", err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].SerialNumber
}

func certificateSerial(t *testing.T, certPEM []byte) *big.Int {
	t.Helper()
	block, _ := pem.Decode(certPEM)
	if block == nil {
		t.Fatal("tls.crt is not PEM")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return cert.SerialNumber
}

// mustKubectl runs kubectl as the admin and fails the test on an error.
func mustKubectl(t *testing.T, args ...string) {
	t.Helper()
	if out, err := kubectl(t.Context(), args...).CombinedOutput(); err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// cleanupKubectl is mustKubectl for t.Cleanup, when t.Context is done.
func cleanupKubectl(t *testing.T, args ...string) {
	t.Helper()
	if out, err := kubectl(context.Background(), args...).CombinedOutput(); err != nil {
		t.Errorf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}
