package e2e

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	jsonpatch "github.com/evanphx/json-patch/v5"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/crdguard/crdguard/internal/goldencase"
	"github.com/crdguard/crdguard/internal/localcluster"
	"github.com/crdguard/crdguard/internal/vapmessage"
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/manifest"
	"github.com/crdguard/crdguard/pkg/policies"
	"github.com/crdguard/crdguard/pkg/policies/vap"
	crdreport "github.com/crdguard/crdguard/pkg/report"
)

// The VAP parity test installs the ValidatingAdmissionPolicies that
// `crdguard vap` compiles on kube-apiserver and sends every golden case's
// request (CREATE, UPDATE, DELETE) and every example object to it; the
// verdict and the denied field paths must equal `crdguard validate`'s for
// the rules that compiled.
//
// Both sides get the same objects and policies, moved to the API group
// vapParityGroup where a CRD that keeps every field defines each kind:
// the golden objects were written for policies, not for the installed
// CRDs, whose pruning would hide fields from the server's side only.
// Each compiled binding also gets a Warn twin, because a denial names only
// the first failed validation while warnings name them all.
//
// The policies are compiled with both messages, installed side by side:
// with findings, whose field paths are compared; and with static messages
// (`crdguard vap`'s default, named crdguard-summary-...), whose failing
// rules are compared.

const (
	vapParityGroup   = "parity.crdguard.dev"
	vapParityVersion = "v1"
	vapParityUser    = "parity-user"
	vapWarnSuffix    = "-parity-warn"
	// vapSummaryPrefix names the policies compiled with static messages.
	vapSummaryPrefix = "crdguard-summary-"
)

// vapParityCase is one request, as files for crdguard and objects for the
// server.
type vapParityCase struct {
	name      string
	policies  []*v1alpha1.GuardPolicy
	object    *unstructured.Unstructured // nil on DELETE
	old       *unstructured.Unstructured // set on UPDATE and DELETE
	user      string
	groups    []string
	nsLabels  map[string]string
	operation v1alpha1.Operation
}

func TestVAPParity(t *testing.T) {
	cases := vapParityCases(t)
	crdFile := installParityCRDs(t, cases)
	// Impersonated users need RBAC to reach admission at all.
	crb := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "crdguard-vap-parity"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: "system:authenticated"}},
	}
	if err := cluster.client.Create(t.Context(), crb); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cluster.client.Delete(context.Background(), crb) })

	denied, findings := 0, 0
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			engine := c.crdguardSide(t, crdFile)
			server := c.serverSide(t, i, engine.patches)
			if engine.schemaDenied || server.schemaDenied {
				// Schema validation precedes validating admission.
				if !engine.schemaDenied || !server.schemaDenied {
					t.Errorf("schema verdicts differ: crdguard %v, server %v (%s)", engine.schemaDenied, server.schemaDenied, server.message)
				}
				return
			}
			if server.denied != engine.denied {
				t.Errorf("verdict: server denied %v (%s), crdguard denied %v", server.denied, server.message, engine.denied)
			}
			if !slices.Equal(server.findings, engine.findings) {
				t.Errorf("denied field paths differ\n--- crdguard validate\n%s\n--- kube-apiserver\n%s",
					strings.Join(engine.findings, "\n"), strings.Join(server.findings, "\n"))
			}
			if want := failingRules(engine.findings); !slices.Equal(server.summaryRules, want) {
				t.Errorf("failing rules differ\n--- crdguard validate\n%s\n--- kube-apiserver, static messages\n%s",
					strings.Join(want, "\n"), strings.Join(server.summaryRules, "\n"))
			}
			if server.errors != engine.errors || server.summaryErrors != engine.errors {
				t.Errorf("evaluation errors: server %d (%q), with static messages %d, crdguard %d", server.errors, server.errorMessages, server.summaryErrors, engine.errors)
			}
			if server.denied {
				denied++
			}
			findings += len(server.findings)
		})
	}
	t.Logf("%d requests compared: %d denied, %d findings", len(cases), denied, findings)
	// The cases must exercise the compiled rules, not pass by matching
	// nothing.
	if denied < 40 || findings < 100 {
		t.Errorf("only %d denials and %d findings compared", denied, findings)
	}
}

// vapParityCases are the golden cases of pkg/policies and the example's
// objects, under the example policy as written (its approvable Deny
// rules compile with their approvals) and without approvers, with the
// example's approvals by an approver and by someone who is not.
func vapParityCases(t *testing.T) []vapParityCase {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(cluster.root, "pkg", "policies", "testdata", "*", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	var cases []vapParityCase
	for _, dir := range dirs {
		gc := goldencase.Read(t, dir)
		if gc.Unmade {
			continue // not a request a server can get
		}
		c := vapParityCase{
			name:     filepath.Base(filepath.Dir(dir)) + "/" + filepath.Base(dir),
			policies: parityPolicies(t, gc.PolicyDocs), operation: gc.Operation, user: cmp.Or(gc.UserInfo.Username, vapParityUser),
			groups: gc.UserInfo.Groups, nsLabels: gc.NamespaceLabels,
			object: parityObject(gc.Object), old: parityObject(gc.OldObject),
		}
		cases = append(cases, c)
	}
	example := filepath.Join(cluster.root, "examples", "mysql")
	policy := parityPolicies(t, goldencase.Documents(t, filepath.Join(example, "policy.yaml")))
	open := parityPolicies(t, goldencase.Documents(t, filepath.Join(example, "policy.yaml")))
	open[0].Spec.Approvers = nil
	for _, p := range []struct {
		suffix   string
		policies []*v1alpha1.GuardPolicy
	}{{"", policy}, {"-no-approvers", open}} {
		// The example's approvals, on its bad cluster: by a member of
		// the dba group, and by someone who is not.
		for _, approval := range []struct {
			name, user string
			groups     []string
		}{{"dba", "dana", []string{"dba"}}, {"non-approver", vapParityUser, nil}} {
			docs, err := manifest.ReadFile(filepath.Join(example, "bad.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			obj := docs[0].Object
			obj.SetAPIVersion(vapParityGroup + "/" + vapParityVersion)
			obj.SetAnnotations(map[string]string{v1alpha1.ApproveAnnotation: "resources,image-version: load test of the new image"})
			cases = append(cases, vapParityCase{name: "example/bad.yaml/approved-by-" + approval.name + p.suffix, policies: p.policies, operation: v1alpha1.Create,
				user: approval.user, groups: approval.groups, object: obj})
		}
		for _, f := range []string{"good.yaml", "bad.yaml", "unsafe.yaml"} {
			docs, err := manifest.ReadFile(filepath.Join(example, f))
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range docs {
				obj := d.Object
				obj.SetAPIVersion(vapParityGroup + "/" + vapParityVersion)
				cases = append(cases, vapParityCase{name: "example/" + f + "/" + obj.GetName() + p.suffix, policies: p.policies, operation: v1alpha1.Create, user: vapParityUser, object: obj})
			}
		}
		cases = append(cases,
			vapParityCase{name: "example/update" + p.suffix, policies: p.policies, operation: v1alpha1.Update, user: vapParityUser,
				old: parityObject(goldencase.OptionalObject(t, filepath.Join(example, "update", "old.yaml"))), object: parityObject(goldencase.OptionalObject(t, filepath.Join(example, "update", "new.yaml")))},
			vapParityCase{name: "example/delete" + p.suffix, policies: p.policies, operation: v1alpha1.Delete, user: vapParityUser,
				old: parityObject(goldencase.OptionalObject(t, filepath.Join(example, "delete", "ephemeral.yaml")))},
			vapParityCase{name: "example/delete-good" + p.suffix, policies: p.policies, operation: v1alpha1.Delete, user: vapParityUser,
				old: parityObject(goldencase.OptionalObject(t, filepath.Join(example, "good.yaml")))},
		)
	}
	return cases
}

// parityPolicies reads GuardPolicies and moves their matches to the
// parity group.
func parityPolicies(t *testing.T, docs []manifest.Document) []*v1alpha1.GuardPolicy {
	t.Helper()
	gps, err := policies.PoliciesFromDocuments(t.Context(), docs, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, gp := range gps {
		for i := range gp.Spec.Match.Resources {
			r := &gp.Spec.Match.Resources[i]
			if r.Group != "*" {
				r.Group = vapParityGroup
			}
			if len(r.Versions) > 0 && !slices.Contains(r.Versions, "*") {
				r.Versions = []string{vapParityVersion}
			}
		}
	}
	return gps
}

// readParityObject reads one object, if the file exists, and moves it to
// the parity group.
func parityObject(obj *unstructured.Unstructured) *unstructured.Unstructured {
	if obj != nil {
		obj.SetAPIVersion(vapParityGroup + "/" + vapParityVersion)
	}
	return obj
}

func parityResource(kind string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: vapParityGroup, Version: vapParityVersion, Resource: strings.ToLower(kind) + "objects"}
}

// installParityCRDs installs one CRD per kind of the cases that keeps
// every field, and writes them to a file for crdguard. An object of a
// namespaced kind without a namespace goes to "default", as kubectl sends
// it; both sides get it that way.
func installParityCRDs(t *testing.T, cases []vapParityCase) string {
	t.Helper()
	kinds := map[string]bool{} // kind -> namespaced
	for _, c := range cases {
		for _, o := range []*unstructured.Unstructured{c.object, c.old} {
			if o != nil {
				kinds[o.GetKind()] = kinds[o.GetKind()] || o.GetNamespace() != ""
			}
		}
	}
	for _, c := range cases {
		for _, o := range []*unstructured.Unstructured{c.object, c.old} {
			if o != nil && kinds[o.GetKind()] && o.GetNamespace() == "" {
				o.SetNamespace("default")
			}
		}
	}
	var docs []string
	for kind, namespaced := range kinds {
		gvr := parityResource(kind)
		scope := apiextensionsv1.ClusterScoped
		if namespaced {
			scope = apiextensionsv1.NamespaceScoped
		}
		crd := &apiextensionsv1.CustomResourceDefinition{
			TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
			ObjectMeta: metav1.ObjectMeta{Name: gvr.Resource + "." + vapParityGroup},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Group: vapParityGroup,
				Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: kind, Plural: gvr.Resource, Singular: strings.ToLower(kind), ListKind: kind + "List"},
				Scope: scope,
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
					Name: vapParityVersion, Served: true, Storage: true,
					Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
						Type: "object", XPreserveUnknownFields: ptrTo(true),
					}},
				}},
			},
		}
		data, err := yaml.Marshal(crd)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(data))
		if err := cluster.client.Create(t.Context(), crd.DeepCopy()); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		if err := localcluster.WaitEstablished(t.Context(), cluster.client, crd.Name); err != nil {
			t.Fatal(err)
		}
	}
	// Discovery must know the new resources before the dynamic client
	// is used; a create of an empty list answers once it does.
	for kind, namespaced := range kinds {
		err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			ri := dynamicClient(t, nil).Resource(parityResource(kind))
			var err error
			if namespaced {
				_, err = ri.Namespace("default").List(ctx, metav1.ListOptions{Limit: 1})
			} else {
				_, err = ri.List(ctx, metav1.ListOptions{Limit: 1})
			}
			return err == nil, nil
		})
		if err != nil {
			t.Fatalf("kind %s not served: %v", kind, err)
		}
	}
	file := filepath.Join(cluster.tmp, "vap-parity-crds.yaml")
	if err := os.WriteFile(file, []byte(strings.Join(docs, "---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

func ptrTo[T any](v T) *T { return &v }

// sideResult is one side's answer about the compiled rules.
type sideResult struct {
	denied bool
	// findings are "field [policy/rule] enforcement", sorted.
	findings []string
	// errors counts expressions that failed to evaluate.
	errors        int
	errorMessages []string
	// summaryRules are "[policy/rule] enforcement" of the policies with
	// static messages, sorted, and summaryErrors their errors: the server's
	// side only.
	summaryRules  []string
	summaryErrors int
	message       string
	// schemaDenied: the object fails its CRD's schema, so the server
	// rejects it before any ValidatingAdmissionPolicy runs.
	schemaDenied bool
	patches      []crdreport.Patch
}

// failingRules are the "[policy/rule] enforcement" of findings written
// "field [policy/rule] enforcement", once each and sorted.
func failingRules(findings []string) []string {
	var out []string
	for _, f := range findings {
		out = append(out, f[strings.Index(f, " [")+1:])
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// compiledRules are the rules each policy's compiled form enforces.
func (c *vapParityCase) compiledRules(t *testing.T) (map[string]bool, []*vap.Compiled) {
	t.Helper()
	return c.compile(t, vap.Findings)
}

// compile compiles the case's policies with the messages given.
func (c *vapParityCase) compile(t *testing.T, messages vap.Messages) (map[string]bool, []*vap.Compiled) {
	t.Helper()
	inVAP := map[string]bool{}
	var out []*vap.Compiled
	for _, gp := range c.policies {
		compiled, err := vap.Compile(gp, nil, messages)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range compiled.Rules {
			inVAP[gp.Name+"/"+r.Name] = r.Webhook == ""
		}
		out = append(out, compiled)
	}
	return inVAP, out
}

// approvedRules are the rules whose Deny findings an approval lifted, as
// crdguard's warning "approved by <user>: <policy/rule>, ...: <reason>"
// names them.
func (c *vapParityCase) approvedRules(warnings []string) map[string]bool {
	out := map[string]bool{}
	for _, w := range warnings {
		rest, ok := strings.CutPrefix(w, "approved by "+c.user+": ")
		if !ok {
			continue
		}
		ids, _, _ := strings.Cut(rest, ": ")
		for _, id := range strings.Split(ids, ", ") {
			out[id] = true
		}
	}
	return out
}

// crdguardSide runs crdguard validate on the case's files.
func (c *vapParityCase) crdguardSide(t *testing.T, crdFile string) sideResult {
	t.Helper()
	dir := t.TempDir()
	write := func(name string, objs ...any) string {
		var parts []string
		for _, o := range objs {
			data, err := yaml.Marshal(o)
			if err != nil {
				t.Fatal(err)
			}
			parts = append(parts, string(data))
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(strings.Join(parts, "---\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	var gpObjs []any
	for _, gp := range c.policies {
		gp := gp.DeepCopy()
		gp.APIVersion, gp.Kind = v1alpha1.GroupVersion.String(), "GuardPolicy"
		gpObjs = append(gpObjs, gp)
	}
	args := []string{"validate", "--crds", crdFile, "--policies", write("policy.yaml", gpObjs...), "--show-patches", "-o", "json",
		"--user", c.user, "--groups", strings.Join(c.serverGroups(), ",")}
	var sources []string
	switch c.operation {
	case v1alpha1.Create:
		sources = append(sources, write("object.yaml", c.object.Object))
	case v1alpha1.Update:
		args = append(args, "--old", write("old.yaml", c.old.Object))
		sources = append(sources, write("object.yaml", c.object.Object))
	case v1alpha1.Delete:
		args = append(args, "--delete")
		sources = append(sources, write("object.yaml", c.old.Object))
	}
	if ns := c.namespace(); ns != "" {
		sources = append(sources, write("namespace.yaml", c.namespaceObject(ns)))
	}
	code, out, stderr, err := runCommand(exec.CommandContext(t.Context(), cluster.crdguard, append(args, sources...)...))
	// 1 is a denial; 2 with a report is an object crdguard could not
	// evaluate (a CEL cost limit), which the webhook's failurePolicy decides.
	if err != nil || code < 0 || code > 2 {
		t.Fatalf("crdguard %s: exit %d, %v\n%s%s", strings.Join(args, " "), code, err, out, stderr)
	}
	var rep crdreport.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("crdguard validate output: %v\n%s", err, out)
	}
	inVAP, _ := c.compiledRules(t)
	var res sideResult
	for _, r := range rep.Results {
		if r.Kind == "Namespace" && r.APIVersion == "v1" {
			continue
		}
		res.patches = append(res.patches, r.Patches...)
		approved := c.approvedRules(r.Warnings)
		if r.Error != "" {
			if !strings.Contains(r.Error, "could not be evaluated") {
				t.Fatalf("crdguard validate: %s", r.Error)
			}
			res.errors++
			res.denied = true // failurePolicy Fail
		}
		for _, v := range r.Violations {
			if v.Policy == policies.SchemaPolicy && string(v.Enforcement) == string(v1alpha1.Deny) {
				res.schemaDenied = true
			}
			if !inVAP[v.Policy+"/"+v.Rule] {
				continue
			}
			// An approved Deny finding is an audit annotation of
			// crdguard's; the compiled policy lifts it and says nothing.
			if string(v.Enforcement) == string(v1alpha1.Audit) && approved[v.Policy+"/"+v.Rule] {
				continue
			}
			// An expression that fails on the object is a finding for
			// crdguard and an error for the server (failurePolicy Fail).
			if strings.Contains(v.Message, "rule could not be evaluated on this object") {
				res.errors++
				if string(v.Enforcement) == string(v1alpha1.Deny) {
					res.denied = true
				}
				continue
			}
			res.findings = append(res.findings, fmt.Sprintf("%s [%s/%s] %s", v.Field, v.Policy, v.Rule, v.Enforcement))
			if string(v.Enforcement) == string(v1alpha1.Deny) {
				res.denied = true
			}
		}
	}
	slices.Sort(res.findings)
	return res
}

// serverGroups are the groups the server sees for the impersonated user.
func (c *vapParityCase) serverGroups() []string {
	groups := slices.Clone(c.groups)
	if !slices.Contains(groups, "system:authenticated") {
		groups = append(groups, "system:authenticated")
	}
	return groups
}

func (c *vapParityCase) namespace() string {
	for _, o := range []*unstructured.Unstructured{c.object, c.old} {
		if o != nil {
			return o.GetNamespace()
		}
	}
	return ""
}

func (c *vapParityCase) namespaceObject(name string) map[string]any {
	labels := map[string]any{corev1.LabelMetadataName: name}
	for k, v := range c.nsLabels {
		labels[k] = v
	}
	return map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name, "labels": labels}}
}

// warningCollector keeps the server's warnings of one client.
type warningCollector struct {
	mu       sync.Mutex
	warnings []string
}

func (w *warningCollector) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.warnings = append(w.warnings, text)
}

// dynamicClient is an admin client, or one acting as user in groups that
// records warnings, when w is set.
func dynamicClient(t *testing.T, w *warningCollector, impersonate ...rest.ImpersonationConfig) *dynamic.DynamicClient {
	t.Helper()
	cfg := rest.CopyConfig(cluster.config)
	if w != nil {
		cfg.WarningHandler = w
	}
	if len(impersonate) > 0 {
		cfg.Impersonate = impersonate[0]
	}
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return dc
}

var (
	vapWarningRE = regexp.MustCompile(`^Validation failed for ValidatingAdmissionPolicy '([^']+)' with binding '[^']+': (.*)$`)
	enforcements = map[string]v1alpha1.Enforcement{"-deny": v1alpha1.Deny, "-warn": v1alpha1.Warn, "-audit": v1alpha1.Audit}
)

// serverSide installs the compiled policies, sends the request, and reads
// the verdict from the Deny bindings and the findings from the warnings.
func (c *vapParityCase) serverSide(t *testing.T, index int, patches []crdreport.Patch) sideResult {
	t.Helper()
	ctx := t.Context()
	stored := c.storeOld(t)
	_, compiled := c.compiledRules(t)
	_, summarized := c.compile(t, vap.Summaries)
	c.install(t, index, append(compiled, renamed(summarized)...))

	w := &warningCollector{}
	user := dynamicClient(t, w, rest.ImpersonationConfig{UserName: c.user, Groups: c.groups})
	as := func(o *unstructured.Unstructured) dynamic.ResourceInterface { return parityClient(user, o) }
	var err error
	switch c.operation {
	case v1alpha1.Create:
		_, err = as(c.object).Create(ctx, applyParityPatches(t, c.object, patches), metav1.CreateOptions{})
	case v1alpha1.Update:
		obj := applyParityPatches(t, c.object, patches)
		obj.SetResourceVersion(stored.GetResourceVersion())
		_, err = as(obj).Update(ctx, obj, metav1.UpdateOptions{})
	case v1alpha1.Delete:
		err = as(c.old).Delete(ctx, c.old.GetName(), metav1.DeleteOptions{})
	}
	var res sideResult
	if err != nil {
		res.denied, res.message = true, err.Error()
		res.schemaDenied = !strings.Contains(err.Error(), "ValidatingAdmissionPolicy 'crdguard-")
		if res.schemaDenied && !apierrors.IsInvalid(err) {
			t.Fatalf("request failed, not denied by a policy or the schema: %v", err)
		}
	}
	for _, warning := range w.warnings {
		m := vapWarningRE.FindStringSubmatch(warning)
		if m == nil {
			t.Errorf("warning not from a compiled policy: %q", warning)
			continue
		}
		enforcement := enforcements[m[1][strings.LastIndex(m[1], "-"):]]
		findings, ok := vapmessage.Parse(m[2])
		if strings.HasPrefix(m[1], vapSummaryPrefix) {
			if !ok {
				res.summaryErrors++
				continue
			}
			for _, f := range findings {
				res.summaryRules = append(res.summaryRules, fmt.Sprintf("[%s/%s] %s", f.Policy, f.Rule, enforcement))
			}
			continue
		}
		if !ok {
			res.errors++
			res.errorMessages = append(res.errorMessages, m[2])
			continue
		}
		for _, f := range findings {
			res.findings = append(res.findings, fmt.Sprintf("%s [%s/%s] %s", f.Field, f.Policy, f.Rule, enforcement))
		}
	}
	slices.Sort(res.findings)
	slices.Sort(res.summaryRules)
	res.summaryRules = slices.Compact(res.summaryRules)
	return res
}

// renamed are copies of compiled's policies and bindings named
// vapSummaryPrefix..., to install beside the originals.
func renamed(compiled []*vap.Compiled) []*vap.Compiled {
	var out []*vap.Compiled
	for _, c := range compiled {
		copied := &vap.Compiled{Policy: c.Policy}
		for i, p := range c.Policies {
			p, b := p.DeepCopy(), c.Bindings[i].DeepCopy()
			p.Name = vapSummaryPrefix + strings.TrimPrefix(p.Name, "crdguard-")
			b.Name, b.Spec.PolicyName = p.Name, p.Name
			copied.Policies, copied.Bindings = append(copied.Policies, p), append(copied.Bindings, b)
		}
		out = append(out, copied)
	}
	return out
}

// storeOld creates the case's namespace, with its labels, and stores its
// old object, if it has one, before any policy exists. The objects are
// deleted when the test ends.
func (c *vapParityCase) storeOld(t *testing.T) *unstructured.Unstructured {
	t.Helper()
	ctx := t.Context()
	if ns := c.namespace(); ns != "" {
		nsObj := &unstructured.Unstructured{Object: c.namespaceObject(ns)}
		current := &corev1.Namespace{}
		if err := cluster.client.Get(ctx, client.ObjectKey{Name: ns}, current); apierrors.IsNotFound(err) {
			if err := cluster.client.Create(ctx, nsObj); err != nil {
				t.Fatal(err)
			}
		} else if err != nil {
			t.Fatal(err)
		} else {
			current.Labels = nsObj.GetLabels()
			if err := cluster.client.Update(ctx, current); err != nil {
				t.Fatal(err)
			}
		}
	}
	admin := dynamicClient(t, nil)
	t.Cleanup(func() {
		for _, o := range []*unstructured.Unstructured{c.old, c.object} {
			if o != nil {
				_ = parityClient(admin, o).Delete(context.Background(), o.GetName(), metav1.DeleteOptions{})
			}
		}
	})
	if c.old == nil {
		return nil
	}
	stored, err := parityClient(admin, c.old).Create(ctx, c.old.DeepCopy(), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("storing the old object: %v", err)
	}
	return stored
}

// parityClient is dc's client for o's resource, in o's namespace.
func parityClient(dc *dynamic.DynamicClient, o *unstructured.Unstructured) dynamic.ResourceInterface {
	ri := dc.Resource(parityResource(o.GetKind()))
	if o.GetNamespace() != "" {
		return ri.Namespace(o.GetNamespace())
	}
	return ri
}

// applyParityPatches applies crdguard's default patches, as the mutating
// webhook does before any ValidatingAdmissionPolicy runs.
func applyParityPatches(t *testing.T, obj *unstructured.Unstructured, patches []crdreport.Patch) *unstructured.Unstructured {
	t.Helper()
	if len(patches) == 0 {
		return obj.DeepCopy()
	}
	doc, err := json.Marshal(obj.Object)
	if err != nil {
		t.Fatal(err)
	}
	ops, err := json.Marshal(patches)
	if err != nil {
		t.Fatal(err)
	}
	patch, err := jsonpatch.DecodePatch(ops)
	if err != nil {
		t.Fatal(err)
	}
	if doc, err = patch.Apply(doc); err != nil {
		t.Fatalf("applying %s: %v", ops, err)
	}
	out := &unstructured.Unstructured{}
	if err := json.Unmarshal(doc, &out.Object); err != nil {
		t.Fatal(err)
	}
	return out
}

// install creates the compiled policies and bindings, a Warn twin of each
// binding that does not warn, and waits until the server enforces them.
func (c *vapParityCase) install(t *testing.T, index int, compiled []*vap.Compiled) {
	t.Helper()
	var objs []client.Object
	for _, comp := range compiled {
		for i, vap := range comp.Policies {
			binding := comp.Bindings[i]
			objs = append(objs, vap.DeepCopy(), binding.DeepCopy())
			if binding.Spec.ValidationActions[0] != admissionregistrationv1.Warn {
				warn := binding.DeepCopy()
				warn.Name += vapWarnSuffix
				warn.Spec.ValidationActions = []admissionregistrationv1.ValidationAction{admissionregistrationv1.Warn}
				objs = append(objs, warn)
			}
		}
	}
	sentinel := fmt.Sprintf("crdguard-parity-sentinel-%d", index)
	objs = append(objs,
		&admissionregistrationv1.ValidatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: sentinel},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
				FailurePolicy:    ptrTo(admissionregistrationv1.Fail),
				MatchConstraints: sentinelMatch(sentinel),
				Validations:      []admissionregistrationv1.Validation{{Expression: "false", Message: sentinel}},
			},
		},
		&admissionregistrationv1.ValidatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: sentinel},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
				PolicyName: sentinel, ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
			},
		})
	installUntil(t, objs, func(ctx context.Context) bool {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: sentinel, Namespace: "default"}}
		err := cluster.client.Create(ctx, cm, client.DryRunAll)
		return err != nil && strings.Contains(err.Error(), sentinel)
	})
}

// sentinelMatch matches the CREATE of the ConfigMap named sentinel, which
// a sentinel policy denies or mutates.
func sentinelMatch(sentinel string) *admissionregistrationv1.MatchResources {
	return &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
		ResourceNames: []string{sentinel},
		RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
		},
	}}}
}

// installUntil creates objs, the last a sentinel policy, and waits until
// the server applies it (applied tells): its informers have then
// delivered everything created before it. Cleanup deletes them in the
// same order, so that once the server stops applying the sentinel, it
// applies none of the others either.
func installUntil(t *testing.T, objs []client.Object, applied func(context.Context) bool) {
	t.Helper()
	for _, o := range objs {
		if err := cluster.client.Create(t.Context(), o); err != nil {
			t.Fatalf("installing %T %s: %v", o, o.GetName(), err)
		}
	}
	t.Cleanup(func() {
		ctx := context.Background()
		for _, o := range objs {
			_ = cluster.client.Delete(ctx, o)
		}
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			return !applied(ctx), nil
		})
		if err != nil {
			t.Errorf("the server still applies removed policies: %v", err)
		}
	})
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		return applied(ctx), nil
	})
	if err != nil {
		t.Fatalf("the server did not apply the installed policies: %v", err)
	}
}

// TestVAPApplyCLIOutput pipes what `crdguard vap` prints, as YAML and as a
// JSON List, to kubectl apply --dry-run=server: kube-apiserver accepts
// every compiled policy and binding as printed.
func TestVAPApplyCLIOutput(t *testing.T) {
	args := []string{"vap"}
	for _, c := range []string{"resources/ratio-boundaries", "imageVersion/workload-sidecar-excluded", "transitions/list-default-name-key", "deletion/condition-true", "cel/variables-create", "defaults/escaping-and-rounding"} {
		args = append(args, "--policies", filepath.Join(cluster.root, "pkg", "policies", "testdata", c, "policy.yaml"))
	}
	for _, format := range []string{"yaml", "json"} {
		t.Run(format, func(t *testing.T) {
			out, err := exec.CommandContext(t.Context(), cluster.crdguard, append(args, "-o", format)...).Output()
			if err != nil {
				t.Fatalf("crdguard vap: %v", err)
			}
			file := filepath.Join(t.TempDir(), "vap."+format)
			if err := os.WriteFile(file, out, 0o644); err != nil {
				t.Fatal(err)
			}
			applied, err := kubectl(t.Context(), "apply", "--dry-run=server", "-f", file).CombinedOutput()
			if err != nil {
				t.Fatalf("kubectl apply: %v\n%s", err, applied)
			}
			lines := strings.Split(strings.TrimSpace(string(applied)), "\n")
			want := []string{
				"validatingadmissionpolicy.admissionregistration.k8s.io/crdguard-mysql-custom-deny created (server dry run)",
				"validatingadmissionpolicybinding.admissionregistration.k8s.io/crdguard-mysql-custom-deny created (server dry run)",
				"mutatingadmissionpolicy.admissionregistration.k8s.io/crdguard-gpu-limits-defaults created (server dry run)",
				"mutatingadmissionpolicybinding.admissionregistration.k8s.io/crdguard-gpu-limits-defaults created (server dry run)",
			}
			for _, w := range want {
				if !slices.Contains(lines, w) {
					t.Errorf("kubectl apply output lacks %q:\n%s", w, applied)
				}
			}
			if len(lines) != 12 {
				t.Errorf("kubectl applied %d objects, want 12 (a policy and a binding per GuardPolicy):\n%s", len(lines), applied)
			}
		})
	}
}
