// Command demo is `make demo`: crdguard's webhook in front of a real
// kube-apiserver, asked by the real kubectl. It builds what it needs
// (kube-apiserver, etcd and kubectl through hack/tools/install.sh, and
// crdguard-webhook), starts etcd and kube-apiserver with envtest, starts
// the webhook binary with a CA and serving certificate generated for the
// run, registers it, installs the example CRD and then runs kubectl on the
// examples in examples/mysql, printing kubectl's own output.
//
// Every step says which verdict it expects; a step that gets the other
// one fails the demo (exit 1), so the demo cannot silently stop showing
// what the README says it shows. Everything it starts is stopped on exit,
// on Ctrl-C and on SIGTERM, and its temp dir is removed.
//
// Run it from the repository root: go run ./hack/demo
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/crdguard/crdguard/internal/hacktools"
	"github.com/crdguard/crdguard/internal/localca"
	"github.com/crdguard/crdguard/internal/localcluster"
)

func main() {
	// The first SIGINT/SIGTERM cancels ctx and the deferred cleanup runs;
	// stop() restores the default so a second Ctrl-C kills at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Stdout)
	stop()
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(os.Stderr, "\ndemo: interrupted; everything it started has been stopped")
			os.Exit(130)
		}
		fmt.Fprintf(os.Stderr, "\ndemo: FAILED: %v\n", err)
		os.Exit(1)
	}
}

// demo is the state the steps share.
type demo struct {
	out      io.Writer
	root     string // repository root
	examples string // examples/mysql, relative to root (kubectl prints it)
	tmp      string
	kubectl  string
	config   string // admin kubeconfig
	client   client.Client
	// failures are the steps whose verdict was not the expected one.
	failures []string
}

func run(ctx context.Context, out io.Writer) (err error) {
	d := &demo{out: &tailWriter{w: out}, examples: filepath.Join("examples", "mysql")}
	out = d.out // every line through the tailWriter, for the headings
	if d.root, err = os.Getwd(); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(d.root, "hack", "tools", "install.sh")); err != nil {
		return errors.New("run the demo from the repository root: make demo")
	}
	if d.tmp, err = os.MkdirTemp("", "crdguard-demo-"); err != nil {
		return err
	}
	defer os.RemoveAll(d.tmp)

	d.heading("1. Build kube-apiserver, etcd, kubectl and crdguard-webhook")
	fmt.Fprintln(out, "(the first time, kube-apiserver and kubectl are compiled from the Go module proxy: about 8 minutes on 2 cores)")
	assets, err := d.buildTools(ctx)
	if err != nil {
		return err
	}
	d.kubectl = filepath.Join(assets, "kubectl")
	webhookBin := filepath.Join(d.tmp, "crdguard-webhook")
	if err := d.command(ctx, "go", "build", "-o", webhookBin, "./cmd/crdguard-webhook").Run(); err != nil {
		return fmt.Errorf("go build ./cmd/crdguard-webhook: %w", err)
	}
	fmt.Fprintf(out, "control plane binaries: %s\n", assets)

	d.heading("2. Start etcd and kube-apiserver (envtest)")
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	env := &envtest.Environment{
		Scheme:                   scheme,
		BinaryAssetsDirectory:    assets,
		ControlPlaneStartTimeout: 2 * time.Minute,
		ControlPlaneStopTimeout:  time.Minute,
	}
	start := time.Now()
	cfg, err := env.Start()
	// Stop even after a failed Start: it may have started etcd already.
	defer func() {
		fmt.Fprintln(out, "\nStopping kube-apiserver and etcd ...")
		if stopErr := env.Stop(); stopErr != nil && err == nil {
			err = fmt.Errorf("stopping the control plane: %w", stopErr)
		}
	}()
	if err != nil {
		return fmt.Errorf("starting kube-apiserver and etcd: %w", err)
	}
	if d.client, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		return err
	}
	// A client certificate in system:masters: the webhook reads namespace
	// labels with it, and kubectl --as needs the right to impersonate.
	d.config = filepath.Join(d.tmp, "kubeconfig")
	if err := localcluster.WriteKubeconfig(env, d.config, "demo-admin", "system:masters"); err != nil {
		return err
	}
	fmt.Fprintf(out, "kube-apiserver at %s, ready in %s\n", cfg.Host, time.Since(start).Round(100*time.Millisecond))

	d.heading("3. Start crdguard-webhook with a CA generated for this run")
	url, caPEM, stopWebhook, err := d.startWebhook(ctx, webhookBin)
	if stopWebhook != nil {
		defer func() {
			fmt.Fprintln(out, "\nStopping crdguard-webhook ...")
			stopWebhook()
		}()
	}
	if err != nil {
		return err
	}

	d.heading("4. Register the ValidatingWebhookConfiguration and MutatingWebhookConfiguration")
	if err := d.register(ctx, url, caPEM); err != nil {
		return fmt.Errorf("registering the webhook: %w", err)
	}
	fmt.Fprintf(out, "crdguard: %s/validate and %s/mutate for db.example.io MySQLClusters\n", url, url)
	fmt.Fprintln(out, "          (sideEffects: None, failurePolicy: Fail, timeoutSeconds: 10)")

	d.heading("5. Install the example CRD, namespace and RBAC")
	if err := d.setupCluster(ctx); err != nil {
		return err
	}

	d.heading("6. kubectl apply --dry-run=server on each example (nothing is stored)")
	d.step(ctx, "good.yaml: a valid cluster", true, "", "apply", "--dry-run=server", "-f", d.example("good.yaml"))
	d.step(ctx, "bad.yaml: breaks the CRD's schema", false, "", "apply", "--dry-run=server", "-f", d.example("bad.yaml"))
	d.step(ctx, "unsafe.yaml: valid schema, but breaks the GuardPolicy", false, "", "apply", "--dry-run=server", "-f", d.example("unsafe.yaml"))

	if res := d.show(ctx, "the dry runs stored nothing", "get", "mysqlclusters", "-n", "shop"); res.ok && !strings.Contains(res.output, "No resources found") {
		d.failures = append(d.failures, "a dry run stored an object")
	}

	d.heading("7. A real create")
	d.step(ctx, "create good.yaml", true, "", "apply", "-f", d.example("good.yaml"))

	d.heading("8. Updates: safe, unsafe, and unsafe but approved")
	d.step(ctx, "update/old.yaml: grow the cluster (more replicas, a bigger volume, a new user); becomes the stored version", true, "", "apply", "-f", d.example("update/old.yaml"))
	d.step(ctx, "update/new.yaml: shrink it, switch storage class, skip a minor version, drop a user", false, "", "apply", "-f", d.example("update/new.yaml"))
	d.step(ctx, "update/approved.yaml: fewer replicas, approved by alice of the dba group (the policy's approvers)", true, "alice", "apply", "-f", d.example("update/approved.yaml"))
	d.show(ctx, "the approval is one-shot: the mutating webhook stripped crdguard.dev/approve and recorded crdguard.dev/last-approval",
		"get", "mysqlcluster", "prod", "-n", "shop", "-o", `jsonpath={.metadata.annotations.crdguard\.dev/last-approval}`)
	d.checkApprovalStripped(ctx)
	d.show(ctx, "what is stored", "get", "mysqlclusters", "-n", "shop", "-o", storedColumns)

	if ctx.Err() != nil {
		return ctx.Err()
	}
	d.heading("Result")
	if len(d.failures) > 0 {
		return fmt.Errorf("%d step(s) did not get the expected verdict:\n  %s", len(d.failures), strings.Join(d.failures, "\n  "))
	}
	fmt.Fprintln(out, "Every step got the verdict it expected. Cleaning up.")
	return nil
}

// heading prints a step heading after one blank line, however the
// output before it ended.
func (d *demo) heading(title string) {
	if tw, ok := d.out.(*tailWriter); !ok || !tw.blankLine() {
		fmt.Fprintln(d.out)
	}
	fmt.Fprintf(d.out, "=== %s\n\n", title)
}

// tailWriter remembers the last two bytes written through it, so that
// headings know whether a blank line precedes them.
type tailWriter struct {
	w    io.Writer
	tail [2]byte
}

func (t *tailWriter) Write(p []byte) (int, error) {
	switch len(p) {
	case 0:
	case 1:
		t.tail = [2]byte{t.tail[1], p[0]}
	default:
		t.tail = [2]byte{p[len(p)-2], p[len(p)-1]}
	}
	return t.w.Write(p)
}

// blankLine reports whether the output so far ends with an empty line.
func (t *tailWriter) blankLine() bool { return t.tail == [2]byte{'\n', '\n'} }

// example is an example's path relative to the root, as kubectl prints it.
func (d *demo) example(name string) string { return filepath.Join(d.examples, name) }

// command runs in the repository root with its output on the demo's.
func (d *demo) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = d.root
	cmd.Stdout, cmd.Stderr = d.out, d.out
	return cmd
}

// buildTools builds (or finds, cached by version) kube-apiserver, etcd
// and kubectl and returns their directory, showing install.sh's progress.
func (d *demo) buildTools(ctx context.Context) (string, error) {
	return hacktools.Path(ctx, "envtest", d.out)
}

// startWebhook starts the webhook binary on free local ports and waits
// until /readyz says it serves TLS with its policies loaded. The returned
// stop function, non-nil once the process started, stops it and waits.
func (d *demo) startWebhook(ctx context.Context, bin string) (url string, caPEM []byte, stop func(), err error) {
	certDir := filepath.Join(d.tmp, "certs")
	ca, err := localca.NewServing("crdguard-demo-ca", certDir)
	if err != nil {
		return "", nil, nil, err
	}
	ports, err := localcluster.FreePorts(2)
	if err != nil {
		return "", nil, nil, err
	}
	probe := "127.0.0.1:" + strconv.Itoa(ports[1])
	args := []string{
		"--crds", d.example("crd.yaml"),
		"--policies", d.example("policy.yaml"),
		"--bind-address", "127.0.0.1", "--port", strconv.Itoa(ports[0]),
		"--cert-dir", certDir,
		"--health-probe-bind-address", probe,
		// No metrics server: one port fewer to find, nothing reads it here.
		"--metrics-bind-address", "0",
		"--kubeconfig", d.config,
		"--shutdown-timeout", "10s",
	}
	// The webhook's JSON logs would bury kubectl's output: they go to a
	// file, printed if the webhook fails.
	logPath := filepath.Join(d.tmp, "webhook.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return "", nil, nil, err
	}
	// The process writes to its own copy of the descriptor.
	defer logFile.Close()
	// Not CommandContext: the process must be stopped after the steps
	// that use it, gracefully, not killed when ctx is cancelled.
	cmd := exec.Command(bin, args...)
	cmd.Dir = d.root
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = childProcAttr()
	fmt.Fprintf(d.out, "$ %s\n", shellJoin(append([]string{"crdguard-webhook"}, args...)))
	p, err := localcluster.StartProcess(cmd)
	if err != nil {
		return "", nil, nil, err
	}
	// How the webhook stopped on purpose exited says nothing about the
	// demo.
	stop = func() { _ = p.Stop(15 * time.Second) }
	start := time.Now()
	if err := p.WaitReady(ctx, probe); err != nil {
		err = fmt.Errorf("crdguard-webhook: %w", err)
		if log, _ := os.ReadFile(logPath); len(log) > 0 {
			fmt.Fprintf(d.out, "crdguard-webhook's log:\n%s", indent(string(log)))
		}
		return "", nil, stop, err
	}
	fmt.Fprintf(d.out, "ready in %s (pid %d; TLS on 127.0.0.1:%d)\n", time.Since(start).Round(100*time.Millisecond), p.Cmd.Process.Pid, ports[0])
	return "https://127.0.0.1:" + strconv.Itoa(ports[0]), ca.PEM, stop, nil
}

// register creates both configurations, as a cluster admin would apply
// them: the API server calls url with caBundle as the trusted CA.
func (d *demo) register(ctx context.Context, url string, caBundle []byte) error {
	create, update, del := admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete
	validating := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "crdguard"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{
			localcluster.Webhook{Name: "validate.crdguard.dev", URL: url + "/validate", CABundle: caBundle, Rules: localcluster.MySQLClusters(create, update, del)}.Validating(),
		},
	}
	mutating := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "crdguard"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{
			localcluster.Webhook{Name: "mutate.crdguard.dev", URL: url + "/mutate", CABundle: caBundle, Rules: localcluster.MySQLClusters(create, update)}.Mutating(),
		},
	}
	if err := d.client.Create(ctx, validating); err != nil {
		return err
	}
	return d.client.Create(ctx, mutating)
}

// setupCluster installs the CRD with kubectl, the shop namespace, and RBAC
// that lets the dba group edit MySQLClusters (alice, impersonated in step
// 8, has no other rights), then waits until the API server calls the
// webhook.
func (d *demo) setupCluster(ctx context.Context) error {
	for _, args := range [][]string{
		{"apply", "-f", d.example("crd.yaml")},
		{"wait", "--for=condition=Established", "--timeout=60s", "crd/mysqlclusters.db.example.io"},
		{"create", "namespace", "shop"},
	} {
		res := d.kubectlRun(ctx, "", args...)
		fmt.Fprint(d.out, res)
		if !res.ok {
			return fmt.Errorf("kubectl %s failed", strings.Join(args, " "))
		}
	}
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "mysqlcluster-editor"},
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{"db.example.io"}, Resources: []string{"mysqlclusters"},
			Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"},
		}},
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "dba-mysqlcluster-editor"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "dba"}},
	}
	for _, obj := range []client.Object{role, binding} {
		if err := d.client.Create(ctx, obj); err != nil {
			return err
		}
	}
	fmt.Fprintln(d.out, "clusterrole mysqlcluster-editor bound to group dba")

	// The API server learns about new configurations through an informer;
	// until it has, a request would pass unchecked. Dry-run unsafe.yaml
	// (schema-valid, so only the webhook can make it Invalid) until the
	// webhook denies it.
	unsafe, err := localcluster.ReadObject(filepath.Join(d.root, d.example("unsafe.yaml")), "")
	if err != nil {
		return err
	}
	var last error
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		// nil: the webhook is not called yet; other errors: the CRD is
		// not served yet, or the call failed. All pass with time.
		last = d.client.Create(ctx, unsafe.DeepCopy(), client.DryRunAll)
		return apierrors.IsInvalid(last), nil
	})
	if err != nil {
		return fmt.Errorf("the API server does not call the webhook (last dry run of unsafe.yaml: %v): %w", last, err)
	}
	fmt.Fprintln(d.out, "the API server calls the webhook")
	return nil
}

// kubectlResult is what a kubectl run printed and whether it exited 0.
type kubectlResult struct {
	line   string // the command line, as a user would type it
	output string
	ok     bool
}

func (r kubectlResult) String() string {
	return "$ " + r.line + "\n" + indent(r.output)
}

// kubectlRun runs the real kubectl against the demo cluster, as the admin
// or, with as set, impersonating that user in the dba group.
func (d *demo) kubectlRun(ctx context.Context, as string, args ...string) kubectlResult {
	shown := args
	if as != "" {
		shown = append([]string{"--as=" + as, "--as-group=dba"}, args...)
	}
	full := append([]string{"--kubeconfig=" + d.config, "--cache-dir=" + filepath.Join(d.tmp, "kube-cache")}, shown...)
	cmd := exec.CommandContext(ctx, d.kubectl, full...)
	cmd.Dir = d.root
	// HOME: kubectl must not read or write the user's ~/.kube.
	cmd.Env = append(os.Environ(), "HOME="+d.tmp, "KUBECONFIG="+d.config)
	out, err := cmd.CombinedOutput()
	return kubectlResult{line: shellJoin(append([]string{"kubectl"}, shown...)), output: string(out), ok: err == nil}
}

// step runs kubectl, prints its output and the verdict, and records a
// failure when the verdict is not the expected one.
func (d *demo) step(ctx context.Context, title string, wantAccepted bool, as string, args ...string) {
	if ctx.Err() != nil {
		return
	}
	fmt.Fprintf(d.out, "--- %s\n", title)
	res := d.kubectlRun(ctx, as, args...)
	fmt.Fprint(d.out, res)
	fmt.Fprintln(d.out, verdict(res.ok, wantAccepted))
	fmt.Fprintln(d.out)
	if res.ok != wantAccepted && ctx.Err() == nil {
		d.failures = append(d.failures, title)
	}
}

// show runs a kubectl command that must succeed and prints its output.
func (d *demo) show(ctx context.Context, title string, args ...string) kubectlResult {
	if ctx.Err() != nil {
		return kubectlResult{}
	}
	fmt.Fprintf(d.out, "--- %s\n", title)
	res := d.kubectlRun(ctx, "", args...)
	fmt.Fprint(d.out, res)
	fmt.Fprintln(d.out)
	if !res.ok && ctx.Err() == nil {
		d.failures = append(d.failures, title)
	}
	return res
}

// storedColumns are the fields the updates in step 8 change.
const storedColumns = "custom-columns=NAME:.metadata.name,VERSION:.spec.version,REPLICAS:.spec.replicas,STORAGE:.spec.storage.size,CLASS:.spec.storage.storageClassName"

// checkApprovalStripped records a failure if the stored object still has
// crdguard.dev/approve: left there, the approval would lift the same
// denials on every later update by anyone.
func (d *demo) checkApprovalStripped(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion("db.example.io/v1")
	obj.SetKind("MySQLCluster")
	if err := d.client.Get(ctx, client.ObjectKey{Namespace: "shop", Name: "prod"}, obj); err != nil {
		d.failures = append(d.failures, "reading shop/prod: "+err.Error())
		return
	}
	if v, ok := obj.GetAnnotations()["crdguard.dev/approve"]; ok {
		fmt.Fprintf(d.out, "crdguard.dev/approve is still stored: %q\n\n", v)
		d.failures = append(d.failures, "crdguard.dev/approve was not stripped")
		return
	}
	fmt.Fprintf(d.out, "crdguard.dev/approve: not stored\n\n")
}

// verdict is the line printed under a step's kubectl output.
func verdict(accepted, wantAccepted bool) string {
	got := "DENIED"
	if accepted {
		got = "ACCEPTED"
	}
	if accepted != wantAccepted {
		return "=> " + got + " (UNEXPECTED)"
	}
	return "=> " + got
}

// shellJoin joins args into a line a POSIX shell reads back as args, so a
// printed command can be copied and run: words of only safe characters as
// they are, others in single quotes.
func shellJoin(args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = shellQuote(a)
	}
	return strings.Join(quoted, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./:,@%+") == "" {
		return s
	}
	// Inside single quotes only ' is special: close, escape it, reopen.
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// indent indents every line of s by four spaces and ends it with a
// newline, so kubectl's output stands apart from the demo's own lines.
func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return ""
	}
	return "    " + strings.ReplaceAll(s, "\n", "\n    ") + "\n"
}
