package chart

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	webhookapp "github.com/crdguard/crdguard/cmd/crdguard-webhook/app"
)

// The chart ships the GuardPolicy CRD in crds/: it must be the generated one.
func TestCRDIsGenerated(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(env.root, "config", "crd", "bases", "crdguard.dev_guardpolicies.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(env.chart, "crds", "crdguard.dev_guardpolicies.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("charts/crdguard/crds/crdguard.dev_guardpolicies.yaml differs from config/crd/bases: cp config/crd/bases/crdguard.dev_guardpolicies.yaml charts/crdguard/crds/")
	}
	entries, err := os.ReadDir(filepath.Join(env.chart, "crds"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	// The OpenReports CRDs are checked in audit_test.go.
	if want := []string{"crdguard.dev_guardpolicies.yaml", "openreports.io_clusterreports.yaml", "openreports.io_reports.yaml"}; !slices.Equal(names, want) {
		t.Fatalf("charts/crdguard/crds has %v, want %v", names, want)
	}
}

func TestLint(t *testing.T) {
	out, errOut, err := helm(t.Context(), "lint", "--strict", env.chart)
	if err != nil {
		t.Fatalf("helm lint --strict: %v\n%s%s", err, out, errOut)
	}
}

// guarded are custom guarded kinds, with the CRD upgrade guard on.
var guarded = []string{
	"webhook.manageRules=false",
	"webhook.rules[0].apiGroups={db.example.io}",
	"webhook.rules[0].apiVersions={v1,v1beta1}",
	"webhook.rules[0].resources={mysqlclusters}",
	"webhook.rules[1].apiGroups={cert-manager.io}",
	"webhook.rules[1].apiVersions={*}",
	"webhook.rules[1].resources={certificates}",
	"webhook.rules[1].operations={CREATE}",
	"webhook.rules[1].scope=Namespaced",
	"webhook.exemptNamespaces={monitoring}",
	"guardCRDs.enabled=true",
	"guardCRDs.names={mysqlclusters.db.example.io,certificates.cert-manager.io}",
	"guardCRDs.matchLabels.crdguard\\.dev/guard=enabled",
	"guardCRDs.extraListRules[0].apiGroups={gateway.networking.k8s.io}",
	"guardCRDs.extraListRules[0].resources={httproutes}",
	"guardCRDs.approvers.users={alice}",
	"guardCRDs.approvers.groups={dba}",
	"guardCRDs.approvers.serviceAccounts={ci/releaser}",
}

func TestTemplate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		set   []string
		check func(t *testing.T, r *rendered)
	}{{
		// Managed rules: both policy webhooks, without rules until the
		// webhook writes them.
		name: "defaults",
		check: func(t *testing.T, r *rendered) {
			vwc := r.validating(t)
			if names := webhookNames(vwc.Webhooks); !slices.Equal(names, []string{"validate-policy.crdguard.dev", "validate.crdguard.dev"}) {
				t.Errorf("webhooks %v, want validate-policy and validate", names)
			}
			mwc := r.mutating(t)
			if len(mwc.Webhooks) != 1 || mwc.Webhooks[0].Name != "mutate.crdguard.dev" {
				t.Fatalf("mutating webhooks %+v, want mutate.crdguard.dev", mwc.Webhooks)
			}
			for _, w := range []struct {
				name  string
				rules []admissionregistrationv1.RuleWithOperations
				ns    *metav1.LabelSelector
			}{{vwc.Webhooks[1].Name, vwc.Webhooks[1].Rules, vwc.Webhooks[1].NamespaceSelector}, {mwc.Webhooks[0].Name, mwc.Webhooks[0].Rules, mwc.Webhooks[0].NamespaceSelector}} {
				if len(w.rules) != 0 {
					t.Errorf("%s: rules %+v, want none until the webhook writes them", w.name, w.rules)
				}
				checkNamespaceSelector(t, w.name, w.ns)
			}
			args := r.args(t)
			for _, a := range []string{"--manage-webhook-rules", "--webhook-configuration=r-crdguard", "--mutating-webhook=true", "--webhook-timeout=10s", "--leader-election-lease-duration=15s"} {
				if !slices.Contains(args, a) {
					t.Errorf("args %v lack %s", args, a)
				}
			}
			managed := rbacv1.PolicyRule{
				APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"validatingwebhookconfigurations", "mutatingwebhookconfigurations"},
				ResourceNames: []string{"r-crdguard"}, Verbs: []string{"get", "patch"},
			}
			if got := r.clusterRole(t).Rules; len(got) != 9 || !apiequality.Semantic.DeepEqual(got[4], managed) {
				t.Errorf("ClusterRole rules %v, want 9 (guardpolicies, CRDs, namespaces, its ValidatingWebhookConfiguration, %v, guardpolicies/status and compiled policies for --policy-status, tokenreviews and subjectaccessreviews for --metrics-secure)", got, managed)
			}
			if !slices.Contains(args, "--policy-status") {
				t.Errorf("args %v lack --policy-status", args)
			}
			checkLeaseRole(t, r)
			reader := &rbacv1.ClusterRole{}
			r.typed(t, "ClusterRole", "r-crdguard-metrics-reader", reader)
			if len(reader.Rules) != 1 || !slices.Equal(reader.Rules[0].NonResourceURLs, []string{"/metrics"}) || !slices.Equal(reader.Rules[0].Verbs, []string{"get"}) {
				t.Errorf("metrics-reader rules %+v, want get on /metrics", reader.Rules)
			}
			if args := r.args(t); !slices.Contains(args, "--metrics-secure") || !slices.Contains(args, "--metrics-bind-address=:8443") {
				t.Errorf("args %v: want --metrics-secure on :8443", args)
			}
			if args := r.args(t); slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--guard-crd") }) {
				t.Errorf("CRD guard flags without guardCRDs.enabled: %v", args)
			}
		},
	}, {
		// Static rules without any: only /validate-policy, nothing elected.
		name: "manageRules false",
		set:  []string{"webhook.manageRules=false", "webhook.policyStatus=false", "webhook.timeoutSeconds=20"},
		check: func(t *testing.T, r *rendered) {
			if r.get("MutatingWebhookConfiguration", "r-crdguard") != nil {
				t.Error("a MutatingWebhookConfiguration without guarded kinds")
			}
			if names := webhookNames(r.validating(t).Webhooks); !slices.Equal(names, []string{"validate-policy.crdguard.dev"}) {
				t.Errorf("webhooks %v, want only validate-policy", names)
			}
			if got := r.clusterRole(t).Rules; len(got) != 6 {
				t.Errorf("ClusterRole has %d rules, want 6 (guardpolicies, CRDs, namespaces, its ValidatingWebhookConfiguration, tokenreviews and subjectaccessreviews for --metrics-secure): %v", len(got), got)
			}
			if r.get("Role", "r-crdguard-leader-election") != nil || r.get("RoleBinding", "r-crdguard-leader-election") != nil {
				t.Error("Lease RBAC without a replica to elect")
			}
			args := r.args(t)
			if slices.ContainsFunc(args, func(a string) bool {
				return strings.HasPrefix(a, "--manage-webhook-rules") || strings.HasPrefix(a, "--webhook-configuration") || strings.HasPrefix(a, "--leader-election") || a == "--policy-status"
			}) || !slices.Contains(args, "--webhook-timeout=20s") {
				t.Errorf("args %v: want --webhook-timeout=20s and no managed rules or leader election", args)
			}
		},
	}, {
		// Managed rules without /mutate: only the ValidatingWebhookConfiguration.
		name: "managed rules without mutate",
		set:  []string{"webhook.mutate=false", "leaderElection.leaseDurationSeconds=30", "webhook.timeoutSeconds=29"},
		check: func(t *testing.T, r *rendered) {
			if r.get("MutatingWebhookConfiguration", "r-crdguard") != nil {
				t.Error("a MutatingWebhookConfiguration with webhook.mutate=false")
			}
			args := r.args(t)
			for _, a := range []string{"--manage-webhook-rules", "--mutating-webhook=false", "--webhook-timeout=29s", "--leader-election-lease-duration=30s"} {
				if !slices.Contains(args, a) {
					t.Errorf("args %v lack %s", args, a)
				}
			}
			if got := r.clusterRole(t).Rules[4]; !slices.Equal(got.Resources, []string{"validatingwebhookconfigurations"}) || !slices.Equal(got.ResourceNames, []string{"r-crdguard"}) {
				t.Errorf("ClusterRole rule %v, want get and patch of ValidatingWebhookConfiguration r-crdguard only", got)
			}
		},
	}, {
		name: "failurePolicy Ignore",
		set:  append([]string{"webhook.failurePolicy=Ignore", "webhook.timeoutSeconds=5"}, guarded[1:4]...),
		check: func(t *testing.T, r *rendered) {
			for _, w := range r.validating(t).Webhooks {
				if *w.FailurePolicy != admissionregistrationv1.Ignore || *w.TimeoutSeconds != 5 {
					t.Errorf("%s: failurePolicy %s, timeoutSeconds %d; want Ignore, 5", w.Name, *w.FailurePolicy, *w.TimeoutSeconds)
				}
			}
			for _, w := range r.mutating(t).Webhooks {
				if *w.FailurePolicy != admissionregistrationv1.Ignore || *w.TimeoutSeconds != 5 {
					t.Errorf("%s: failurePolicy %s, timeoutSeconds %d; want Ignore, 5", w.Name, *w.FailurePolicy, *w.TimeoutSeconds)
				}
			}
		},
	}, {
		name: "example policies",
		set:  []string{"examplePolicies=true"},
		check: func(t *testing.T, r *rendered) {
			policy := r.get("GuardPolicy", "mysql-safety")
			if policy == nil {
				t.Fatal("no GuardPolicy mysql-safety")
			}
			data, err := os.ReadFile(filepath.Join(env.root, "examples", "mysql", "policy.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			var example map[string]any
			if err := yaml.Unmarshal(data, &example); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(example["spec"], policy.Object["spec"]); diff != "" {
				t.Errorf("spec of the installed example (-examples/mysql/policy.yaml +rendered):\n%s", diff)
			}
			// After the webhook, which admits GuardPolicies.
			if hook := policy.GetAnnotations()["helm.sh/hook"]; hook != "post-install,post-upgrade" {
				t.Errorf("helm.sh/hook %q, want post-install,post-upgrade", hook)
			}
		},
	}, {
		name: "ServiceMonitor on",
		set:  []string{"metrics.serviceMonitor.enabled=true", "metrics.serviceMonitor.labels.release=prom", "metrics.port=9090"},
		check: func(t *testing.T, r *rendered) {
			sm := r.get("ServiceMonitor", "r-crdguard")
			if sm == nil {
				t.Fatal("no ServiceMonitor")
			}
			svc := r.service(t, "r-crdguard-metrics")
			sel, _, _ := unstructured.NestedStringMap(sm.Object, "spec", "selector", "matchLabels")
			for k, v := range sel {
				if svc.Labels[k] != v {
					t.Errorf("ServiceMonitor selects %s=%s; the metrics Service has %q", k, v, svc.Labels[k])
				}
			}
			if sm.GetLabels()["release"] != "prom" {
				t.Errorf("ServiceMonitor labels %v lack release=prom", sm.GetLabels())
			}
			if p := svc.Spec.Ports[0]; p.Port != 9090 || p.Name != "https-metrics" {
				t.Errorf("metrics port %v", p)
			}
			endpoint, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
			if e, _ := endpoint[0].(map[string]any); e["port"] != "https-metrics" || e["scheme"] != "https" || e["bearerTokenFile"] != "/var/run/secrets/kubernetes.io/serviceaccount/token" {
				t.Errorf("ServiceMonitor endpoint %v: want https with the scraper's token", e)
			}
			if !slices.Contains(r.args(t), "--metrics-bind-address=:9090") {
				t.Errorf("args %v lack --metrics-bind-address=:9090", r.args(t))
			}
		},
	}, {
		name: "metrics off",
		set:  []string{"metrics.enabled=false"},
		check: func(t *testing.T, r *rendered) {
			if r.get("Service", "r-crdguard-metrics") != nil {
				t.Error("a metrics Service with metrics.enabled=false")
			}
			if !slices.Contains(r.args(t), "--metrics-bind-address=0") {
				t.Errorf("args %v lack --metrics-bind-address=0", r.args(t))
			}
		},
	}, {
		name: "custom guarded kinds",
		set:  guarded,
		check: func(t *testing.T, r *rendered) {
			vwc := r.validating(t)
			if names := webhookNames(vwc.Webhooks); !slices.Equal(names, []string{"validate-policy.crdguard.dev", "validate.crdguard.dev", "validate-crd.crdguard.dev"}) {
				t.Errorf("validating webhooks %v", names)
			}
			mwc := r.mutating(t)
			for _, w := range []admissionregistrationv1.ValidatingWebhook{vwc.Webhooks[1]} {
				checkRules(t, w.Name, w.Rules)
				checkNamespaceSelector(t, w.Name, w.NamespaceSelector, "monitoring")
			}
			for _, w := range mwc.Webhooks {
				checkRules(t, w.Name, w.Rules)
				checkNamespaceSelector(t, w.Name, w.NamespaceSelector, "monitoring")
				if w.ClientConfig.Service.Path == nil || *w.ClientConfig.Service.Path != "/mutate" {
					t.Errorf("%s: path %v", w.Name, w.ClientConfig.Service.Path)
				}
			}
			crd := vwc.Webhooks[2]
			if *crd.ClientConfig.Service.Path != "/validate-crd" || crd.Rules[0].Resources[0] != "customresourcedefinitions" ||
				!slices.Equal(crd.Rules[0].Operations, []admissionregistrationv1.OperationType{admissionregistrationv1.Update}) {
				t.Errorf("validate-crd webhook: %+v", crd)
			}
			// With names and a selector, the webhook filters: no objectSelector.
			if crd.ObjectSelector != nil && (len(crd.ObjectSelector.MatchLabels) > 0 || len(crd.ObjectSelector.MatchExpressions) > 0) {
				t.Errorf("validate-crd objectSelector %v would hide CRDs guarded by name", crd.ObjectSelector)
			}
			want := []rbacv1.PolicyRule{
				{APIGroups: []string{"db.example.io"}, Resources: []string{"mysqlclusters"}, Verbs: []string{"list"}},
				{APIGroups: []string{"cert-manager.io"}, Resources: []string{"certificates"}, Verbs: []string{"list"}},
				{APIGroups: []string{"gateway.networking.k8s.io"}, Resources: []string{"httproutes"}, Verbs: []string{"list"}},
			}
			got := r.clusterRole(t).Rules
			if len(got) != 8+len(want) {
				t.Fatalf("ClusterRole rules %v", got)
			}
			for i, w := range want {
				g := got[8+i]
				if !slices.Equal(g.APIGroups, w.APIGroups) || !slices.Equal(g.Resources, w.Resources) || !slices.Equal(g.Verbs, w.Verbs) {
					t.Errorf("ClusterRole rule %d = %v, want %v", 3+i, g, w)
				}
			}
			args := r.args(t)
			for _, a := range []string{
				"--guard-crds", "--guard-crds-selector=crdguard.dev/guard=enabled",
				"--guard-crd-names=mysqlclusters.db.example.io,certificates.cert-manager.io",
				"--crd-approvers-users=alice", "--crd-approvers-groups=dba", "--crd-approvers-service-accounts=ci/releaser",
			} {
				if !slices.Contains(args, a) {
					t.Errorf("args %v lack %s", args, a)
				}
			}
		},
	}, {
		name:  "audit on",
		set:   auditOn,
		check: func(*testing.T, *rendered) {}, // audit_test.go checks the audit's flags and RBAC
	}, {
		// The webhook issues its own certificate: checkCommon checks what
		// replaces cert-manager's objects (selfsigned_test.go).
		name:  "tls.mode selfSigned",
		set:   selfSignedSet,
		check: func(*testing.T, *rendered) {},
	}, {
		name: "high availability",
		set:  []string{"highAvailability=true"},
		check: func(t *testing.T, r *rendered) {
			d := r.deployment(t)
			anti := d.Spec.Template.Spec.Affinity.PodAntiAffinity
			if *d.Spec.Replicas != 3 || len(anti.RequiredDuringSchedulingIgnoredDuringExecution) != 1 ||
				anti.RequiredDuringSchedulingIgnoredDuringExecution[0].TopologyKey != "kubernetes.io/hostname" {
				t.Errorf("replicas %d, anti-affinity %+v; want 3 that never share a node", *d.Spec.Replicas, anti)
			}
		},
	}, {
		name: "client certificates",
		set:  append([]string{"webhook.clientAuth.enabled=true", "webhook.clientAuth.caConfigMap=apiserver-client-ca", "webhook.clientAuth.allowedNames={kube-apiserver,front-proxy}"}, mysqlKind...),
		check: func(t *testing.T, r *rendered) {
			args := r.args(t)
			if !slices.Contains(args, "--client-allowed-names=kube-apiserver,front-proxy") {
				t.Errorf("args %v: want --client-allowed-names=kube-apiserver,front-proxy", args)
			}
			// The CA file is the ConfigMap's key, mounted.
			spec := r.deployment(t).Spec.Template.Spec
			var mounted string
			for _, m := range spec.Containers[0].VolumeMounts {
				for _, v := range spec.Volumes {
					if v.Name == m.Name && v.ConfigMap != nil && m.ReadOnly {
						mounted = path.Join(m.MountPath, "ca.crt") + " from " + v.ConfigMap.Name
					}
				}
			}
			if want := "/etc/crdguard/client-ca/ca.crt from apiserver-client-ca"; mounted != want || !slices.Contains(args, "--client-ca-file=/etc/crdguard/client-ca/ca.crt") {
				t.Errorf("args %v, mounted %q; want --client-ca-file=/etc/crdguard/client-ca/ca.crt, %q", args, mounted, want)
			}
		},
	}, {
		name: "approval key",
		set:  []string{"webhook.approvalKey.secretName=crdguard-approval-key"},
		check: func(t *testing.T, r *rendered) {
			args := r.args(t)
			// The key file is the Secret's key, mounted read-only.
			spec := r.deployment(t).Spec.Template.Spec
			var mounted string
			for _, m := range spec.Containers[0].VolumeMounts {
				for _, v := range spec.Volumes {
					if v.Name == m.Name && v.Secret != nil && v.Secret.SecretName == "crdguard-approval-key" && m.ReadOnly {
						mounted = path.Join(m.MountPath, "key")
					}
				}
			}
			if want := "/etc/crdguard/approval-key/key"; mounted != want || !slices.Contains(args, "--approval-key-file="+want) {
				t.Errorf("args %v, mounted %q; want --approval-key-file=%s, mounted from the Secret", args, mounted, want)
			}
		},
	}, {
		name: "network policy",
		set:  []string{"networkPolicy.enabled=true"},
		check: func(t *testing.T, r *rendered) {
			np := &networkingv1.NetworkPolicy{}
			r.typed(t, "NetworkPolicy", "r-crdguard", np)
			var got []string
			for _, rule := range np.Spec.Ingress {
				for _, p := range rule.Ports {
					from := "anyone"
					if len(rule.From) > 0 {
						from = fmt.Sprint(rule.From[0].NamespaceSelector.MatchLabels)
					}
					got = append(got, p.Port.String()+" from "+from)
				}
			}
			if want := []string{"webhook from anyone", "metrics from map[kubernetes.io/metadata.name:monitoring]"}; !slices.Equal(got, want) ||
				!slices.Equal(np.Spec.PolicyTypes, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}) {
				t.Errorf("ingress %q, policy types %v; want %q, Ingress", got, np.Spec.PolicyTypes, want)
			}
		},
	}, {
		name: "CRD guard by selector only",
		set:  []string{"guardCRDs.enabled=true", "guardCRDs.matchLabels.team=db"},
		check: func(t *testing.T, r *rendered) {
			ws := r.validating(t).Webhooks
			w := ws[len(ws)-1]
			if w.Name != "validate-crd.crdguard.dev" || w.ObjectSelector == nil || w.ObjectSelector.MatchLabels["team"] != "db" {
				t.Errorf("validate-crd webhook %s objectSelector %v, want team=db", w.Name, w.ObjectSelector)
			}
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			r := render(t, tc.set...)
			checkCommon(t, r)
			tc.check(t, r)
			dryRunCreate(t, r)
			validateCertManager(t, r)
		})
	}
}

// Bad values are rejected by values.schema.json with helm's exact message.
func TestBadValues(t *testing.T) {
	const prefix = "Error: values don't meet the specifications of the schema(s) in the following chart(s):\ncrdguard:\n"
	for _, tc := range []struct {
		set  string
		want string
	}{
		{"tls.mode=vault", "- at '/tls/mode': value must be one of 'certManager', 'selfSigned'\n"},
		{"tls.selfSigned.caOverlap=1d", "- at '/tls/selfSigned/caOverlap': '1d' does not match pattern '^([0-9]+(\\\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$'\n"},
		{"webhook.failurePolicy=Maybe", "- at '/webhook/failurePolicy': value must be one of 'Fail', 'Ignore'\n"},
		{"webhook.timeoutSeconds=31", "- at '/webhook/timeoutSeconds': maximum: got 31, want 30\n"},
		{"replicaCount=0", "- at '/replicaCount': minimum: got 0, want 1\n"},
		{"webhook.tlsMinVersion=VersionTLS11", "- at '/webhook/tlsMinVersion': value must be one of 'VersionTLS12', 'VersionTLS13'\n"},
		{"webhook.sourceDebounce=soon", "- at '/webhook/sourceDebounce': 'soon' does not match pattern '^([0-9]+(\\\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$'\n"},
		{"webhook.port=70000", "- at '/webhook/port': maximum: got 70,000, want 65,535\n"},
		{"webhookk.port=1", "- at '': additional properties 'webhookk' not allowed\n"},
		{"guardCRDs.enabled=true", "- at '/guardCRDs': 'anyOf' failed\n  - at '/guardCRDs/names': minItems: got 0, want 1\n  - at '/guardCRDs/matchLabels': minProperties: got 0, want 1\n"},
		{"guardPolicies.p.match.resources=x", "- at '/guardPolicies/p': missing property 'rules'\n"},
		{"examplePolicies=yes", "- at '/examplePolicies': got string, want boolean\n"},
		{"guardCRDs.names={widgets}", "- at '/guardCRDs/names/0': 'widgets' does not match pattern '^[a-z0-9-]+\\\\.[a-z0-9.-]+$'\n"},
		{"guardCRDs.approvers.serviceAccounts={releaser}", "- at '/guardCRDs/approvers/serviceAccounts/0': 'releaser' does not match pattern '^[^/]+/[^/]+$'\n"},
		{"audit.qps=0", "- at '/audit/qps': exclusiveMinimum: got 0, want 0\n"},
		{"audit.pageSize=0", "- at '/audit/pageSize': minimum: got 0, want 1\n"},
		{"audit.interval=hourly", "- at '/audit/interval': 'hourly' does not match pattern '^([0-9]+(\\\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$'\n"},
		{"webhook.clientAuth.enabled=true,webhook.clientAuth.caConfigMap=ca", "- at '/webhook/clientAuth/allowedNames': minItems: got 0, want 1\n"},
		{"audit.enable=true", "- at '/audit': additional properties 'enable' not allowed\n"},
		{"leaderElection.leaseDurationSeconds=1", "- at '/leaderElection/leaseDurationSeconds': minimum: got 1, want 2\n"},
	} {
		t.Run(tc.set, func(t *testing.T) {
			out, errOut, err := helm(t.Context(), "template", "r", env.chart, "-n", releaseNamespace, "--set", tc.set)
			if err == nil {
				t.Fatalf("helm template accepted %s:\n%s", tc.set, out)
			}
			if want := prefix + tc.want + "\n"; errOut != want {
				t.Errorf("helm template --set %s:\n got %q\nwant %q", tc.set, errOut, want)
			}
		})
	}
}

// A replica elected (managed rules, the audit) must renew its Lease while
// a request waits its longest: timeoutSeconds below the lease duration.
func TestLeaseDurationValues(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  []string
		want string
	}{{
		name: "managed rules",
		set:  []string{"webhook.timeoutSeconds=15"},
		want: "webhook.timeoutSeconds (15) must be below leaderElection.leaseDurationSeconds (15) with webhook.manageRules, webhook.policyStatus or audit.enabled",
	}, {
		name: "audit",
		set:  append([]string{"webhook.manageRules=false", "webhook.policyStatus=false", "leaderElection.leaseDurationSeconds=10"}, auditOn...),
		want: "webhook.timeoutSeconds (10) must be below leaderElection.leaseDurationSeconds (10) with webhook.manageRules, webhook.policyStatus or audit.enabled",
	}, {
		name: "policy status",
		set:  []string{"webhook.manageRules=false", "leaderElection.leaseDurationSeconds=10"},
		want: "webhook.timeoutSeconds (10) must be below leaderElection.leaseDurationSeconds (10) with webhook.manageRules, webhook.policyStatus or audit.enabled",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"template", "r", env.chart, "-n", releaseNamespace}
			for _, s := range tc.set {
				args = append(args, "--set", s)
			}
			out, errOut, err := helm(t.Context(), args...)
			if err == nil {
				t.Fatalf("helm template accepted %v:\n%s", tc.set, out)
			}
			if want := "Error: execution error at (crdguard/templates/deployment.yaml:1:4): " + tc.want + "\n\nUse --debug flag to render out invalid YAML\n"; errOut != want {
				t.Errorf("helm template --set %v:\n got %q\nwant %q", tc.set, errOut, want)
			}
		})
	}
}

// rendered is the output of helm template.
type rendered struct {
	yaml string
	objs []*unstructured.Unstructured
}

func render(t *testing.T, set ...string) *rendered {
	t.Helper()
	args := []string{"template", "r", env.chart, "-n", releaseNamespace}
	for _, s := range set {
		args = append(args, "--set", s)
	}
	out, errOut, err := helm(t.Context(), args...)
	if err != nil {
		t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, errOut)
	}
	r := &rendered{yaml: out}
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(out), 4096)
	for {
		var m map[string]any
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("decoding helm template output: %v", err)
		}
		if m == nil {
			continue
		}
		r.objs = append(r.objs, &unstructured.Unstructured{Object: m})
	}
	return r
}

func (r *rendered) get(kind, name string) *unstructured.Unstructured {
	for _, o := range r.objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	return nil
}

// typed converts the rendered object into out, rejecting unknown fields.
func (r *rendered) typed(t *testing.T, kind, name string, out any) {
	t.Helper()
	o := r.get(kind, name)
	if o == nil {
		t.Fatalf("no %s %s rendered", kind, name)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(o.Object, out, true); err != nil {
		t.Fatalf("%s %s: %v", kind, name, err)
	}
}

func (r *rendered) validating(t *testing.T) *admissionregistrationv1.ValidatingWebhookConfiguration {
	c := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	r.typed(t, "ValidatingWebhookConfiguration", "r-crdguard", c)
	return c
}

func (r *rendered) mutating(t *testing.T) *admissionregistrationv1.MutatingWebhookConfiguration {
	c := &admissionregistrationv1.MutatingWebhookConfiguration{}
	r.typed(t, "MutatingWebhookConfiguration", "r-crdguard", c)
	return c
}

func (r *rendered) deployment(t *testing.T) *appsv1.Deployment {
	d := &appsv1.Deployment{}
	r.typed(t, "Deployment", "r-crdguard", d)
	return d
}

func (r *rendered) service(t *testing.T, name string) *corev1.Service {
	s := &corev1.Service{}
	r.typed(t, "Service", name, s)
	return s
}

func (r *rendered) clusterRole(t *testing.T) *rbacv1.ClusterRole {
	c := &rbacv1.ClusterRole{}
	r.typed(t, "ClusterRole", "r-crdguard", c)
	return c
}

func (r *rendered) args(t *testing.T) []string {
	return r.deployment(t).Spec.Template.Spec.Containers[0].Args
}

func webhookNames(ws []admissionregistrationv1.ValidatingWebhook) []string {
	var names []string
	for _, w := range ws {
		names = append(names, w.Name)
	}
	return names
}

// checkCommon checks what every values set must render.
func checkCommon(t *testing.T, r *rendered) {
	t.Helper()
	for _, o := range r.objs {
		if ns := o.GetNamespace(); ns != "" && ns != releaseNamespace {
			t.Errorf("%s %s in namespace %s", o.GetKind(), o.GetName(), ns)
		}
	}

	// The Deployment: replicas, probes, security, flags crdguard-webhook accepts.
	d := r.deployment(t)
	if *d.Spec.Replicas < 2 {
		t.Errorf("replicas %d, want at least 2", *d.Spec.Replicas)
	}
	if d.Spec.Template.Spec.PriorityClassName != "system-cluster-critical" {
		t.Errorf("priorityClassName %q, want system-cluster-critical", d.Spec.Template.Spec.PriorityClassName)
	}
	pod := d.Spec.Template.Spec
	if len(pod.TopologySpreadConstraints) == 0 || pod.Affinity == nil || pod.Affinity.PodAntiAffinity == nil {
		t.Error("no topology spread or pod anti-affinity")
	}
	if r.get("PodDisruptionBudget", "r-crdguard") == nil {
		t.Error("no PodDisruptionBudget")
	}
	if pod.SecurityContext == nil || pod.SecurityContext.RunAsNonRoot == nil || !*pod.SecurityContext.RunAsNonRoot {
		t.Error("pod not runAsNonRoot")
	}
	c := pod.Containers[0]
	sc := c.SecurityContext
	if sc == nil || !*sc.RunAsNonRoot || !*sc.ReadOnlyRootFilesystem || *sc.AllowPrivilegeEscalation ||
		!slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("container securityContext %+v", sc)
	}
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Limits.Memory().IsZero() {
		t.Errorf("resources %+v", c.Resources)
	}
	// The Go runtime's soft limit leaves headroom below the container's:
	// at the limit itself the kernel kills the process first.
	if !slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool {
		return e.Name == "CRDGUARD_MEMORY_LIMIT" && e.ValueFrom != nil && e.ValueFrom.ResourceFieldRef != nil && e.ValueFrom.ResourceFieldRef.Resource == "limits.memory"
	}) || slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == "GOMEMLIMIT" }) {
		t.Errorf("env %+v: want CRDGUARD_MEMORY_LIMIT from limits.memory, and no GOMEMLIMIT", c.Env)
	}
	// The kubelet expands $(CRDGUARD_MEMORY_LIMIT) to the limit in bytes.
	for i, arg := range c.Args {
		c.Args[i] = strings.ReplaceAll(arg, "$(CRDGUARD_MEMORY_LIMIT)", strconv.FormatInt(c.Resources.Limits.Memory().Value(), 10))
	}
	if c.LivenessProbe.HTTPGet.Path != "/healthz" || c.ReadinessProbe.HTTPGet.Path != "/readyz" {
		t.Errorf("probes %s, %s; want /healthz, /readyz", c.LivenessProbe.HTTPGet.Path, c.ReadinessProbe.HTTPGet.Path)
	}
	opts := webhookapp.NewOptions()
	fs := pflag.NewFlagSet("crdguard-webhook", pflag.ContinueOnError)
	opts.AddFlags(fs)
	if err := fs.Parse(c.Args); err != nil {
		t.Fatalf("crdguard-webhook rejects the rendered args %v: %v", c.Args, err)
	}
	if fs.NArg() != 0 {
		t.Errorf("stray arguments %v", fs.Args())
	}
	opts.Complete()
	if errs := opts.Validate(); len(errs) > 0 {
		t.Errorf("crdguard-webhook rejects the rendered args %v: %v", c.Args, errs.ToAggregate())
	}
	if got, want := opts.GoMemoryLimit(), c.Resources.Limits.Memory().Value()*9/10; got < want-1 || got > want {
		t.Errorf("Go memory limit %d with --memory-limit=%s, want 90%% of the container's %s", got, opts.MemoryLimit, c.Resources.Limits.Memory())
	}
	// The kubelet kills the pod at the grace period: it must cover the
	// preStop sleep, the delay after SIGTERM and the drain.
	var preStop int64
	if c.Lifecycle != nil && c.Lifecycle.PreStop != nil && c.Lifecycle.PreStop.Sleep != nil {
		preStop = c.Lifecycle.PreStop.Sleep.Seconds
	}
	if need := preStop + int64((opts.ShutdownDelay + opts.ShutdownTimeout).Seconds()); pod.TerminationGracePeriodSeconds == nil || *pod.TerminationGracePeriodSeconds <= need {
		t.Errorf("terminationGracePeriodSeconds %v not above the preStop sleep %ds, --shutdown-delay %s and --shutdown-timeout %s", pod.TerminationGracePeriodSeconds, preStop, opts.ShutdownDelay, opts.ShutdownTimeout)
	}
	if preStop == 0 || opts.ShutdownDelay == 0 {
		t.Errorf("preStop sleep %ds, --shutdown-delay %s: want both, so no request is sent to a closing connection", preStop, opts.ShutdownDelay)
	}
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	if ports["webhook"] != int32(opts.Port) || ":"+itoa(ports["health"]) != opts.HealthProbeBindAddress {
		t.Errorf("container ports %v do not match --port %d, --health-probe-bind-address %s", ports, opts.Port, opts.HealthProbeBindAddress)
	}

	// The Service reaches the webhook port; the certificate names it.
	svc := r.service(t, "r-crdguard")
	if p := svc.Spec.Ports[0]; p.Port != 443 || p.TargetPort.String() != "webhook" {
		t.Errorf("Service port %+v", p)
	}
	for k, v := range svc.Spec.Selector {
		if d.Spec.Template.Labels[k] != v {
			t.Errorf("Service selects %s=%s, pods have %q", k, v, d.Spec.Template.Labels[k])
		}
	}
	if opts.TLSMode == webhookapp.TLSModeSelfSigned {
		checkSelfSignedTLS(t, r, opts)
	} else {
		checkCertManagerTLS(t, r, opts, svc)
	}

	// Every webhook: settings and Service path.
	vwc := r.validating(t)
	var all []webhook
	for _, w := range vwc.Webhooks {
		all = append(all, webhook{w.Name, w.ClientConfig, w.AdmissionReviewVersions, w.SideEffects, w.MatchPolicy, w.FailurePolicy, w.TimeoutSeconds})
	}
	if o := r.get("MutatingWebhookConfiguration", "r-crdguard"); o != nil {
		mwc := r.mutating(t)
		for _, w := range mwc.Webhooks {
			all = append(all, webhook{w.Name, w.ClientConfig, w.AdmissionReviewVersions, w.SideEffects, w.MatchPolicy, w.FailurePolicy, w.TimeoutSeconds})
		}
	}
	paths := map[string]string{
		"validate-policy.crdguard.dev": "/validate-policy", "validate.crdguard.dev": "/validate",
		"validate-crd.crdguard.dev": "/validate-crd", "mutate.crdguard.dev": "/mutate",
	}
	for _, w := range all {
		s := w.clientConfig.Service
		if s == nil || s.Name != svc.Name || s.Namespace != svc.Namespace || *s.Port != 443 || *s.Path != paths[w.name] {
			t.Errorf("%s: clientConfig %+v", w.name, w.clientConfig)
		}
		if !slices.Equal(w.versions, []string{"v1"}) || *w.sideEffects != admissionregistrationv1.SideEffectClassNone ||
			*w.matchPolicy != admissionregistrationv1.Equivalent || w.failurePolicy == nil || w.timeout == nil {
			t.Errorf("%s: admissionReviewVersions %v sideEffects %v matchPolicy %v", w.name, w.versions, *w.sideEffects, *w.matchPolicy)
		}
	}
}

// checkCertManagerTLS checks what tls.mode certManager renders: the Secret
// cert-manager writes mounted at --cert-dir, the CA chain and the serving
// Certificate for the Service, and cainjector's annotation on every
// configuration.
func checkCertManagerTLS(t *testing.T, r *rendered, opts *webhookapp.Options, svc *corev1.Service) {
	t.Helper()
	pod := r.deployment(t).Spec.Template.Spec
	c := pod.Containers[0]
	var mount *corev1.VolumeMount
	for i := range c.VolumeMounts {
		if c.VolumeMounts[i].MountPath == opts.CertDir {
			mount = &c.VolumeMounts[i]
		}
	}
	if mount == nil {
		t.Fatalf("nothing mounted at --cert-dir %s", opts.CertDir)
	}
	cert := r.get("Certificate", "r-crdguard-serving")
	if cert == nil {
		t.Fatal("no serving Certificate")
	}
	dnsNames, _, _ := unstructured.NestedStringSlice(cert.Object, "spec", "dnsNames")
	wantDNS := []string{svc.Name + "." + svc.Namespace + ".svc", svc.Name + "." + svc.Namespace + ".svc.cluster.local"}
	if !slices.Equal(dnsNames, wantDNS) {
		t.Errorf("serving Certificate dnsNames %v, want %v", dnsNames, wantDNS)
	}
	secretName, _, _ := unstructured.NestedString(cert.Object, "spec", "secretName")
	for _, v := range pod.Volumes {
		if v.Name == mount.Name && (v.Secret == nil || v.Secret.SecretName != secretName) {
			t.Errorf("volume %s is not the serving Certificate's Secret %s", v.Name, secretName)
		}
	}
	// The CA chain: self-signed Issuer -> CA Certificate -> CA Issuer -> serving Certificate.
	if iss, _, _ := unstructured.NestedString(cert.Object, "spec", "issuerRef", "name"); iss != "r-crdguard-ca" {
		t.Errorf("serving Certificate issued by %s", iss)
	}
	ca := r.get("Certificate", "r-crdguard-ca")
	if isCA, _, _ := unstructured.NestedBool(ca.Object, "spec", "isCA"); !isCA {
		t.Error("CA Certificate not isCA")
	}
	if iss, _, _ := unstructured.NestedString(ca.Object, "spec", "issuerRef", "name"); iss != "r-crdguard-selfsigned" {
		t.Errorf("CA Certificate issued by %s", iss)
	}
	if s, _, _ := unstructured.NestedString(r.get("Issuer", "r-crdguard-ca").Object, "spec", "ca", "secretName"); s != "r-crdguard-ca" {
		t.Errorf("CA Issuer reads Secret %s", s)
	}
	for _, o := range r.objs {
		if strings.Contains(o.GetAPIVersion(), "cert-manager.io") && o.GetAPIVersion() != "cert-manager.io/v1" {
			t.Errorf("%s %s uses %s", o.GetKind(), o.GetName(), o.GetAPIVersion())
		}
	}

	inject := releaseNamespace + "/r-crdguard-serving"
	if vwc := r.validating(t); vwc.Annotations["cert-manager.io/inject-ca-from"] != inject {
		t.Errorf("ValidatingWebhookConfiguration annotations %v", vwc.Annotations)
	}
	if r.get("MutatingWebhookConfiguration", "r-crdguard") != nil {
		if mwc := r.mutating(t); mwc.Annotations["cert-manager.io/inject-ca-from"] != inject {
			t.Errorf("MutatingWebhookConfiguration annotations %v", mwc.Annotations)
		}
	}
}

type webhook struct {
	name          string
	clientConfig  admissionregistrationv1.WebhookClientConfig
	versions      []string
	sideEffects   *admissionregistrationv1.SideEffectClass
	matchPolicy   *admissionregistrationv1.MatchPolicyType
	failurePolicy *admissionregistrationv1.FailurePolicyType
	timeout       *int32
}

// checkRules checks the rules rendered from the guarded set.
func checkRules(t *testing.T, name string, rules []admissionregistrationv1.RuleWithOperations) {
	t.Helper()
	cu := []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}
	if len(rules) != 2 ||
		!slices.Equal(rules[0].APIGroups, []string{"db.example.io"}) || !slices.Equal(rules[0].APIVersions, []string{"v1", "v1beta1"}) ||
		!slices.Equal(rules[0].Resources, []string{"mysqlclusters"}) || !slices.Equal(rules[0].Operations, cu) || *rules[0].Scope != admissionregistrationv1.AllScopes ||
		!slices.Equal(rules[1].Resources, []string{"certificates"}) || !slices.Equal(rules[1].Operations, cu[:1]) || *rules[1].Scope != admissionregistrationv1.NamespacedScope {
		t.Errorf("%s: rules %+v", name, rules)
	}
}

// checkNamespaceSelector checks kube-system, the release namespace, extra
// and crdguard.dev/ignore namespaces are exempt, and other namespaces are not.
func checkNamespaceSelector(t *testing.T, name string, ls *metav1.LabelSelector, extra ...string) {
	t.Helper()
	sel, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		t.Fatalf("%s: namespaceSelector: %v", name, err)
	}
	ns := func(name string, more ...string) labels.Set {
		l := labels.Set{"kubernetes.io/metadata.name": name}
		for i := 0; i+1 < len(more); i += 2 {
			l[more[i]] = more[i+1]
		}
		return l
	}
	for _, exempt := range append([]labels.Set{ns("kube-system"), ns(releaseNamespace), ns("team-a", "crdguard.dev/ignore", ""), ns("team-b", "crdguard.dev/ignore", "true")}, func() (l []labels.Set) {
		for _, e := range extra {
			l = append(l, ns(e))
		}
		return l
	}()...) {
		if sel.Matches(exempt) {
			t.Errorf("%s: namespaceSelector %s does not exempt namespace %v", name, sel, exempt)
		}
	}
	if guarded := ns("team-a", "env", "prod"); !sel.Matches(guarded) {
		t.Errorf("%s: namespaceSelector %s exempts namespace %v", name, sel, guarded)
	}
}

// dryRunCreate creates every rendered object on the API server without storing it.
func dryRunCreate(t *testing.T, r *rendered) {
	t.Helper()
	cmd := kubectl(t.Context(), "create", "--dry-run=server", "--validate=strict", "-o", "name", "-f", "-")
	cmd.Stdin = strings.NewReader(r.yaml)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl create --dry-run=server: %v\n%s", err, out)
	}
	if got := strings.Count(strings.TrimSpace(string(out)), "\n") + 1; got != len(r.objs) {
		t.Errorf("kubectl created %d objects, rendered %d:\n%s", got, len(r.objs), out)
	}
}

// validateCertManager checks the cert-manager objects with crdguard validate:
// unknown fields are errors there, and cert-manager's CEL rules apply.
func validateCertManager(t *testing.T, r *rendered) {
	t.Helper()
	var docs []string
	for _, o := range r.objs {
		if o.GetAPIVersion() == "cert-manager.io/v1" {
			b, err := o.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			docs = append(docs, string(b))
		}
	}
	if len(docs) == 0 && slices.Contains(r.args(t), "--tls-mode=self-signed") {
		return // none, as checkSelfSignedTLS checks
	}
	if len(docs) != 4 {
		t.Fatalf("%d cert-manager objects, want 4 (2 Issuers, 2 Certificates)", len(docs))
	}
	run := func(docs []string) ([]byte, error) {
		cmd := exec.CommandContext(t.Context(), env.crdguard, "validate", "--crds", env.certManagerCRD, "--missing-schemas", "error", "-")
		cmd.Stdin = strings.NewReader(strings.Join(docs, "\n---\n"))
		return cmd.CombinedOutput()
	}
	if out, err := run(docs); err != nil {
		t.Errorf("crdguard validate of the cert-manager objects: %v\n%s", err, out)
	}
	// The control: an unknown field fails the same check.
	bad := strings.Replace(docs[0], `"spec":{`, `"spec":{"unknownField":1,`, 1)
	if out, err := run([]string{bad}); err == nil || !strings.Contains(string(out), "unknown field") {
		t.Errorf("crdguard validate accepted an unknown field: %v\n%s", err, out)
	}
}

func itoa(i int32) string { return strconv.Itoa(int(i)) }
