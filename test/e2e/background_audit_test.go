package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	openreportsv1alpha1 "github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
	coordinationv1 "k8s.io/api/coordination/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/crdguard/crdguard/internal/auditor"
	"github.com/crdguard/crdguard/internal/localca"
	"github.com/crdguard/crdguard/internal/localcluster"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// auditLabel on a namespace puts it in the scope of the background audit
// tests' GuardPolicies, which select namespaces by it: the objects other
// tests leave in the shared cluster stay out of their reports.
const auditLabel = "crdguard.dev/e2e-audit"

// TestBackgroundAudit runs two crdguard-webhook --audit processes, with
// real leader election, against the API server and checks the reports they
// write: objects stored before a policy are reported once it is applied,
// `crdguard audit` finds the same, one replica audits and the other takes
// over when it stops, a fixed object leaves the report, and a deleted
// policy takes its results with it.
func TestBackgroundAudit(t *testing.T) {
	installAuditCRDs(t)
	const namespace = "background-audit"
	labelledNamespace(t, namespace, "mysql")
	unsafe := readDocuments(t, filepath.Join(cluster.root, "examples", "mysql", "unsafe.yaml"))[0].obj
	safe := readDocuments(t, filepath.Join(cluster.root, "examples", "mysql", "good.yaml"))[0].obj
	for _, name := range []string{"analytics", "reporting"} {
		obj := unsafe.DeepCopy()
		obj.SetNamespace(namespace)
		obj.SetName(name)
		if err := cluster.client.Create(t.Context(), obj); err != nil {
			t.Fatalf("storing %s: %v", name, err)
		}
	}
	good := safe.DeepCopy()
	good.SetNamespace(namespace)
	if err := cluster.client.Create(t.Context(), good); err != nil {
		t.Fatal(err)
	}

	leases := "background-audit-leases"
	ensureNamespaces(t, leases)
	replicas := []*webhookReplica{startWebhookReplica(t, leases), startWebhookReplica(t, leases)}

	// The objects are there before the policy; applying it reports them.
	policy := readDocuments(t, filepath.Join(cluster.root, "examples", "mysql", "policy.yaml"))[0].obj
	policy.SetName("background-mysql")
	if err := unstructured.SetNestedStringMap(policy.Object, map[string]string{auditLabel: "mysql"}, "spec", "match", "namespaceSelector", "matchLabels"); err != nil {
		t.Fatal(err)
	}
	if err := cluster.client.Create(t.Context(), policy); err != nil {
		t.Fatalf("creating the GuardPolicy: %v", err)
	}
	t.Cleanup(func() { _ = cluster.client.Delete(context.Background(), policy) })

	report := waitForReport(t, namespace, func(r *openreportsv1alpha1.Report) bool {
		return subjects(r)["analytics"] && subjects(r)["reporting"]
	})
	for _, want := range []string{"analytics spec.resources.limits.memory background-mysql/resources fail", "analytics spec.image background-mysql/image-version fail"} {
		if !slices.Contains(reportFindings(report, true), want) {
			t.Errorf("report lacks %q:\n%s", want, strings.Join(reportFindings(report, true), "\n"))
		}
	}
	if subjects(report)["prod"] {
		t.Errorf("the safe object is in the report:\n%s", strings.Join(reportFindings(report, true), "\n"))
	}

	t.Run("crdguard audit finds the same", func(t *testing.T) {
		cli := runReport(t, cluster.crdguard, "audit", "--kubeconfig", cluster.kubeconfig, "-n", namespace, "-o", "json")
		var want []string
		violations := 0
		for _, r := range cli.Results {
			for _, f := range r.Violations {
				want = append(want, r.Name+" "+f.Field+" "+f.Policy+"/"+f.Rule)
				if f.Policy == "background-mysql" {
					violations++
				}
			}
		}
		slices.Sort(want)
		if got := reportFindings(report, false); len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("report and crdguard audit differ\n report: %q\n    cli: %q", got, want)
		}
		// The status counts the policy's findings; it is written right
		// after the reports.
		status := waitForAuditStatus(t, policy.GetName(), int64(violations))
		if status.LastRunTime.IsZero() {
			t.Errorf("status.audit.lastRunTime is not set: %+v", status)
		}
	})

	// Set by "one replica audits" for the subtests after it.
	var leader, follower *webhookReplica
	t.Run("one replica audits", func(t *testing.T) {
		var auditing []*webhookReplica
		for _, r := range replicas {
			if r.metric(t, "crdguard_audit_duration_seconds_count") > 0 {
				auditing = append(auditing, r)
			}
		}
		if len(auditing) != 1 {
			t.Fatalf("%d replicas audited; want exactly one", len(auditing))
		}
		leader, follower = auditing[0], replicas[0]
		if leader == follower {
			follower = replicas[1]
		}
		lease := &coordinationv1.Lease{}
		if err := cluster.client.Get(t.Context(), client.ObjectKey{Namespace: leases, Name: "crdguard-audit"}, lease); err != nil {
			t.Fatalf("the audit's Lease: %v", err)
		}
		if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
			t.Errorf("Lease crdguard-audit has no holder: %+v", lease.Spec)
		}
		if got := leader.metric(t, `crdguard_audit_violations{policy="background-mysql",rule="resources"}`); got != 2 {
			t.Errorf("crdguard_audit_violations{policy=background-mysql,rule=resources} = %v, want 2 (one per unsafe object)", got)
		}
	})

	t.Run("a fixed object leaves the report", func(t *testing.T) {
		fixed := &unstructured.Unstructured{}
		fixed.SetGroupVersionKind(unsafe.GroupVersionKind())
		if err := cluster.client.Get(t.Context(), client.ObjectKey{Namespace: namespace, Name: "analytics"}, fixed); err != nil {
			t.Fatal(err)
		}
		fixed.Object["spec"] = safe.DeepCopy().Object["spec"]
		if err := cluster.client.Update(t.Context(), fixed); err != nil {
			t.Fatalf("fixing analytics: %v", err)
		}
		after := waitForReport(t, namespace, func(r *openreportsv1alpha1.Report) bool { return !subjects(r)["analytics"] })
		if !subjects(after)["reporting"] {
			t.Errorf("reporting left the report too:\n%s", strings.Join(reportFindings(after, true), "\n"))
		}
		if after.UID != report.UID {
			t.Errorf("the report was recreated (uid %s -> %s); want it updated in place", report.UID, after.UID)
		}
	})

	t.Run("the other replica takes over", func(t *testing.T) {
		if leader == nil {
			t.Fatal("no leader to stop: one replica audits failed")
		}
		leader.stop(t)
		// The stopped leader released the Lease; the follower audits as
		// soon as it holds it, and keeps the report as it is.
		err := wait.PollUntilContextTimeout(t.Context(), 500*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			return follower.metric(t, "crdguard_audit_duration_seconds_count") > 0, nil
		})
		if err != nil {
			t.Fatalf("the follower never audited: %v\n%s", err, follower.logs())
		}
		after := waitForReport(t, namespace, func(r *openreportsv1alpha1.Report) bool { return subjects(r)["reporting"] })
		if after.UID != report.UID {
			t.Errorf("the new leader recreated the report (uid %s -> %s)", report.UID, after.UID)
		}
	})

	t.Run("a deleted policy takes its results", func(t *testing.T) {
		if err := cluster.client.Delete(t.Context(), policy); err != nil {
			t.Fatal(err)
		}
		err := wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			err := reportClient(t).Get(ctx, client.ObjectKey{Namespace: namespace, Name: auditor.ReportName}, &openreportsv1alpha1.Report{})
			return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
		})
		if err != nil {
			t.Fatalf("the report outlived its only policy: %v", err)
		}
	})
}

// installAuditCRDs installs the GuardPolicy and OpenReports CRDs, as the
// chart does, once for the package.
func installAuditCRDs(t *testing.T) {
	t.Helper()
	auditCRDs.once.Do(func() {
		files := []string{
			filepath.Join(cluster.root, "config", "crd", "bases", "crdguard.dev_guardpolicies.yaml"),
			filepath.Join(cluster.root, "charts", "crdguard", "crds", "openreports.io_reports.yaml"),
			filepath.Join(cluster.root, "charts", "crdguard", "crds", "openreports.io_clusterreports.yaml"),
		}
		var names []string
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				auditCRDs.err = err
				return
			}
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := yaml.UnmarshalStrict(data, crd); err != nil {
				auditCRDs.err = fmt.Errorf("%s: %w", file, err)
				return
			}
			if err := cluster.client.Create(context.Background(), crd); err != nil && !apierrors.IsAlreadyExists(err) {
				auditCRDs.err = fmt.Errorf("%s: %w", file, err)
				return
			}
			names = append(names, crd.Name)
		}
		auditCRDs.err = localcluster.WaitEstablished(context.Background(), cluster.client, names...)
	})
	if auditCRDs.err != nil {
		t.Fatalf("installing the GuardPolicy and OpenReports CRDs: %v", auditCRDs.err)
	}
}

var auditCRDs struct {
	once sync.Once
	err  error
}

// labelledNamespace creates namespace with auditLabel=value.
func labelledNamespace(t *testing.T, namespace, value string) {
	t.Helper()
	if err := localcluster.EnsureNamespace(t.Context(), cluster.client, namespace, map[string]string{auditLabel: value}); err != nil {
		t.Fatal(err)
	}
}

// webhookReplica is one crdguard-webhook process with --audit, as the
// chart runs it, against the test cluster.
type webhookReplica struct {
	proc       *localcluster.Process
	metricsURL string
	output     *localcluster.Output
}

// startWebhookReplica starts crdguard-webhook --audit with its Lease in
// leaseNamespace and waits until it is ready (its engine is loaded). It is
// stopped, gracefully, when the test ends.
func startWebhookReplica(t *testing.T, leaseNamespace string) *webhookReplica {
	t.Helper()
	certDir := t.TempDir()
	if _, err := localca.NewServing("crdguard-e2e-audit", certDir); err != nil {
		t.Fatal(err)
	}
	ports, err := localcluster.FreePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	health := "127.0.0.1:" + strconv.Itoa(ports[1])
	r := &webhookReplica{
		metricsURL: "http://127.0.0.1:" + strconv.Itoa(ports[2]) + "/metrics",
		output:     &localcluster.Output{},
	}
	cmd := exec.Command(cluster.webhook,
		"--kubeconfig="+cluster.kubeconfig, "--cert-dir="+certDir,
		"--bind-address=127.0.0.1", "--port="+strconv.Itoa(ports[0]),
		"--health-probe-bind-address="+health, "--metrics-bind-address=127.0.0.1:"+strconv.Itoa(ports[2]),
		"--source-debounce=200ms", "--shutdown-timeout=5s",
		"--audit", "--audit-interval=2s", "--leader-election-namespace="+leaseNamespace,
	)
	cmd.Stdout, cmd.Stderr = r.output, r.output
	if r.proc, err = localcluster.StartProcess(cmd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.stop(t) })
	if err := r.proc.WaitReady(t.Context(), health); err != nil {
		t.Fatalf("crdguard-webhook --audit never became ready: %v\n%s", err, r.logs())
	}
	return r
}

// stop ends the replica as the kubelet does, with SIGTERM, and waits for
// its clean exit.
func (r *webhookReplica) stop(t *testing.T) {
	t.Helper()
	if err := r.proc.Stop(30 * time.Second); err != nil {
		t.Errorf("crdguard-webhook: %v\n%s", err, r.logs())
	}
}

func (r *webhookReplica) logs() string { return r.output.String() }

// metric is the value of the sample named series (with its labels, as
// /metrics prints them), or -1 when there is none.
func (r *webhookReplica) metric(t *testing.T, series string) float64 {
	t.Helper()
	body, err := localcluster.ScrapeMetrics(t.Context(), r.metricsURL)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := localcluster.MetricSample(body, series); ok {
		return v
	}
	return -1
}

// restConfig is the admin's client configuration, with a rate limit high
// enough for the tests' own setup.
func restConfig(t *testing.T) *rest.Config {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", cluster.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 500, 1000
	return cfg
}

func reportClient(t *testing.T) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := openreportsv1alpha1.Install(scheme); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(restConfig(t), client.Options{Scheme: scheme, Mapper: cluster.client.RESTMapper()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// waitForReport waits until namespace's report exists and satisfies ok.
func waitForReport(t *testing.T, namespace string, ok func(*openreportsv1alpha1.Report) bool) *openreportsv1alpha1.Report {
	t.Helper()
	c := reportClient(t)
	report := &openreportsv1alpha1.Report{}
	err := wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: auditor.ReportName}, report)
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil && ok(report), err
	})
	if err != nil {
		t.Fatalf("report %s/%s: %v; last seen:\n%s", namespace, auditor.ReportName, err, strings.Join(reportFindings(report, true), "\n"))
	}
	return report
}

// waitForAuditStatus waits until the policy's status counts violations.
func waitForAuditStatus(t *testing.T, name string, violations int64) v1alpha1.AuditStatus {
	t.Helper()
	var status v1alpha1.GuardPolicyStatus
	err := wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		policy := &unstructured.Unstructured{}
		policy.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind("GuardPolicy"))
		if err := cluster.client.Get(ctx, client.ObjectKey{Name: name}, policy); err != nil {
			return false, err
		}
		raw, _, _ := unstructured.NestedMap(policy.Object, "status")
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &status); err != nil {
			return false, err
		}
		return status.Audit != nil && status.Audit.Violations == violations, nil
	})
	if err != nil || status.Audit == nil {
		t.Fatalf("GuardPolicy %s status %+v: %v; want %d violations", name, status, err, violations)
	}
	return *status.Audit
}

// subjects are the names of the objects a report has results for.
func subjects(r *openreportsv1alpha1.Report) map[string]bool {
	names := map[string]bool{}
	for _, res := range r.Results {
		for _, s := range res.Subjects {
			names[s.Name] = true
		}
	}
	return names
}

// reportFindings lists a report's findings as "object field policy/rule",
// one per field, sorted; withResult appends the result (fail, warn).
func reportFindings(r *openreportsv1alpha1.Report, withResult bool) []string {
	var out []string
	for _, res := range r.Results {
		for _, field := range strings.Split(res.Properties["fields"], ", ") {
			line := res.Subjects[0].Name + " " + field + " " + res.Policy + "/" + res.Rule
			if withResult {
				line += " " + string(res.Result)
			}
			out = append(out, line)
		}
	}
	slices.Sort(out)
	return out
}
