package webhook

import (
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdguard/crdguard/cmd/crdguard-webhook/app"
	"github.com/crdguard/crdguard/internal/localca"
	"github.com/crdguard/crdguard/internal/localcluster"
	"github.com/crdguard/crdguard/internal/localsuite"
	"github.com/crdguard/crdguard/test/localwebhook"
)

// cluster is the environment every test shares.
var cluster struct {
	root     string            // repository root
	examples string            // examples/mysql
	client   client.Client     // admin client
	kubectl  string            // the real kubectl
	configs  map[string]string // user -> kubeconfig file
	cacheDir string            // kubectl's discovery cache
	crdguard string            // the CLI, for the parity test
	metrics  string            // the webhook's /metrics URL
	// webhookBinary is crdguard-webhook, for a test that runs a second
	// webhook: one process registers its metrics once.
	webhookBinary string
	// policies are the GuardPolicy files created as objects for the
	// webhook to watch, and given to the CLI as --policies.
	policies []string
	ca       *localca.CA
	certDir  string // the webhook's --cert-dir
	// webhookAddr is the webhook server's host:port.
	webhookAddr string
	tmp         string
}

// localhost is where the webhook serves and what its certificate names.
var localhost = net.IPv4(127, 0, 0, 1)

var suite = localsuite.Suite{
	Name:    "webhook e2e",
	Package: "./test/e2e/webhook/",
	Purpose: "run the webhook behind a real kube-apiserver and kubectl",
}

func TestMain(m *testing.M) { suite.Main(m, setup) }

// setup starts the control plane, a kubeconfig per user and the webhook,
// registered, and builds crdguard meanwhile.
func setup(s *localsuite.Setup) error {
	ctx := s.Ctx
	cluster.tmp = s.Tmp
	cluster.root = s.Root
	cluster.examples = filepath.Join(cluster.root, "examples", "mysql")
	cluster.kubectl = filepath.Join(s.Assets, "kubectl")
	cluster.cacheDir = filepath.Join(s.Tmp, "kube-cache")
	cluster.crdguard = s.Build("crdguard", "./cmd/crdguard")
	cluster.webhookBinary = s.Build("crdguard-webhook", "./cmd/crdguard-webhook")

	// The GuardPolicy CRD as well as the example's: the webhook watches
	// GuardPolicies.
	env := localcluster.NewEnvironment(s.Assets, filepath.Join(cluster.examples, "crd.yaml"), filepath.Join(cluster.root, "config", "crd", "bases"))
	cfg, err := s.StartControlPlane(env)
	if err != nil {
		return fmt.Errorf("starting kube-apiserver and etcd: %w", err)
	}
	if cluster.client, err = client.New(cfg, client.Options{Scheme: env.Scheme}); err != nil {
		return err
	}

	cluster.configs = map[string]string{}
	for name, groups := range map[string][]string{
		"admin": {"system:masters"},
		"alice": {"dba", "system:masters"},
		"bob":   {"developers", "system:masters"},
	} {
		cluster.configs[name] = filepath.Join(s.Tmp, name+".kubeconfig")
		if err := localcluster.WriteKubeconfig(env, cluster.configs[name], name, groups...); err != nil {
			return fmt.Errorf("adding user %s: %w", name, err)
		}
	}

	// The webhook, in-process, through the same Run as the binary.
	cluster.certDir = filepath.Join(s.Tmp, "certs")
	if cluster.ca, err = localca.NewServing("crdguard-e2e-ca", cluster.certDir); err != nil {
		return fmt.Errorf("generating the CA and serving certificate: %w", err)
	}
	// The policies exist before the webhook starts, as in a cluster where
	// it restarts: its first engine must hold them.
	cluster.policies = []string{filepath.Join(cluster.examples, "policy.yaml"), filepath.Join(cluster.root, "test", "e2e", "webhook", "testdata", "frozen-namespaces.yaml")}
	if err := localcluster.CreateObjects(ctx, cluster.client, cluster.policies...); err != nil {
		return fmt.Errorf("creating the GuardPolicies: %w", err)
	}
	// The key that signs approval records, as the chart mounts it.
	approvalKey := filepath.Join(s.Tmp, "approval-key")
	if err := os.WriteFile(approvalKey, []byte(rand.Text()+rand.Text()), 0o600); err != nil {
		return fmt.Errorf("writing the approval key: %w", err)
	}
	// No --crds, no --policies: both are watched from the cluster.
	hook, err := localwebhook.StartSuite(s, func(o *app.Options) error {
		o.ApprovalKeyFile = approvalKey
		o.SourceDebounce = 200 * time.Millisecond
		o.CertDir = cluster.certDir
		o.Kubeconfig = cluster.configs["admin"]
		// /validate-crd, for the CRDs crd_guard_test.go labels; alice and
		// a release pipeline's service account approve.
		o.GuardCRDs, o.GuardCRDsSelector = true, guardedCRDLabel+"=true"
		o.CRDApproverUsers = []string{"alice"}
		o.CRDApproverServiceAccounts = []string{releaserNamespace + "/" + releaserName}
		// Pages of two, so that replays follow the server's continue tokens.
		o.CRDReplayPageSize = 2
		// register's configuration: the kinds it routes to /validate.
		o.ValidatingConfigurations = []string{"crdguard"}
		return nil
	})
	if err != nil {
		return fmt.Errorf("the webhook: %w", err)
	}
	cluster.webhookAddr, cluster.metrics = hook.Addr, hook.Metrics
	if err := register(ctx, "https://"+cluster.webhookAddr, cluster.ca.PEM); err != nil {
		return fmt.Errorf("registering the webhook: %w", err)
	}
	// Fill kubectl's discovery cache once for all the calls that follow.
	if out, err := kubectl(ctx, "admin", "api-resources", "-o", "name").CombinedOutput(); err != nil {
		return fmt.Errorf("kubectl api-resources: %w\n%s", err, out)
	}
	return nil
}

// The names of the webhooks, as the API server prints them in denials.
const (
	validatingName = "validate.crdguard.dev"
	mutatingName   = "mutate.crdguard.dev"
	policyName     = "validate-policy.crdguard.dev"
)

// uncheckedLabel on a GuardPolicy keeps the API server from sending it to
// /validate-policy (see register): the way for a test to store an invalid
// policy, as one created before the webhook was registered is stored.
const uncheckedLabel = "crdguard.dev/e2e-unchecked"

// register installs the configurations and waits until the API server
// calls both webhooks.
func register(ctx context.Context, url string, caBundle []byte) error {
	create, update, del := admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete
	policyCheck := localcluster.Webhook{
		Name: policyName, URL: url + "/validate-policy", CABundle: caBundle,
		Rules: []admissionregistrationv1.RuleWithOperations{localcluster.Rule("crdguard.dev", "guardpolicies", admissionregistrationv1.ClusterScope, create, update)},
		// Test-only: lets TestInvalidStoredPolicy store an invalid
		// policy, as one created before this webhook was registered
		// is stored. A real configuration has no such hole.
		ObjectSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
			Key: uncheckedLabel, Operator: metav1.LabelSelectorOpDoesNotExist,
		}}},
	}
	validating := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "crdguard"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{
			localcluster.Webhook{Name: validatingName, URL: url + "/validate", CABundle: caBundle, Rules: localcluster.MySQLClusters(create, update, del)}.Validating(),
			policyCheck.Validating(),
		},
	}
	mutating := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "crdguard"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{
			localcluster.Webhook{Name: mutatingName, URL: url + "/mutate", CABundle: caBundle, Rules: localcluster.MySQLClusters(create, update)}.Mutating(),
		},
	}
	if err := cluster.client.Create(ctx, validating); err != nil {
		return err
	}
	if err := cluster.client.Create(ctx, mutating); err != nil {
		return err
	}
	const probeNamespace = "webhook-probe"
	if err := localcluster.EnsureNamespace(ctx, cluster.client, probeNamespace, nil); err != nil {
		return err
	}
	// The API server picks configurations up from an informer: probe with
	// dry runs until the mutation shows and the denial comes from us.
	probe, err := readExample("delete/ephemeral.yaml", probeNamespace)
	if err != nil {
		return err
	}
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		err := cluster.client.Create(ctx, invalidPolicy("webhook-probe"), client.DryRunAll)
		return apierrors.IsInvalid(err) && strings.Contains(err.Error(), policyName), nil
	}); err != nil {
		return fmt.Errorf("/validate-policy never denied an invalid GuardPolicy: %w", err)
	}
	return wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		obj := probe.DeepCopy()
		if err := cluster.client.Create(ctx, obj, client.DryRunAll); err != nil {
			return false, fmt.Errorf("dry-run create of the probe: %w", err)
		}
		if _, ok, _ := unstructuredString(obj, "spec", "resources", "limits", "cpu"); !ok {
			return false, nil
		}
		unsafe, err := readExample("unsafe.yaml", probeNamespace)
		if err != nil {
			return false, err
		}
		err = cluster.client.Create(ctx, unsafe, client.DryRunAll)
		// unsafe.yaml is valid against the schema: only the webhook
		// makes it Invalid.
		return apierrors.IsInvalid(err), nil
	})
}

// kubectl returns a kubectl command run as user.
func kubectl(ctx context.Context, user string, args ...string) *exec.Cmd {
	return localcluster.Kubectl{Path: cluster.kubectl, Kubeconfig: cluster.configs[user], CacheDir: cluster.cacheDir, Home: cluster.tmp}.Command(ctx, args...)
}

// startSecondWebhook runs cluster.webhookBinary on ports (server, health
// probe, metrics) as the admin with flags and env added to the test's
// environment, until the test ends, waits until it is ready, and returns
// its log. what names it in failures: "the status webhook".
func startSecondWebhook(t *testing.T, what string, ports []int, env []string, flags ...string) *localcluster.Output {
	t.Helper()
	probe := "127.0.0.1:" + strconv.Itoa(ports[1])
	args := append([]string{
		"--bind-address=127.0.0.1", "--port=" + strconv.Itoa(ports[0]), "--health-probe-bind-address=" + probe,
		"--metrics-bind-address=127.0.0.1:" + strconv.Itoa(ports[2]), "--cert-dir=" + cluster.certDir,
		"--kubeconfig=" + cluster.configs["admin"], "--source-debounce=200ms",
	}, flags...)
	cmd := exec.Command(cluster.webhookBinary, args...)
	cmd.Env = append(os.Environ(), env...)
	logs := &localcluster.Output{}
	cmd.Stdout, cmd.Stderr = logs, logs
	p, err := localcluster.StartProcess(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Stop(time.Minute); err != nil {
			t.Errorf("%s: %v", what, err)
		}
		if t.Failed() {
			t.Logf("%s's log:\n%s", what, logs)
		}
	})
	if err := p.WaitReady(t.Context(), probe); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return logs
}
