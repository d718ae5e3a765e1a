package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies"
	"github.com/crdguard/crdguard/pkg/policies/vap"
	"github.com/crdguard/crdguard/pkg/report"
)

// Values of vap --messages.
const (
	vapSummaries = "summary"
	vapFindings  = "findings"
)

// vapMessages are what each value of vap --messages compiles.
var vapMessages = map[string]vap.Messages{vapSummaries: vap.Summaries, vapFindings: vap.Findings}

type vapOptions struct {
	crds     []string
	policies []string
	output   string
	messages string
	check    bool
	// webhookPolicies is where to write the GuardPolicies the webhook
	// keeps in vap mode; "" writes none.
	webhookPolicies string
	static          staticOptions
}

func newVAPCommand(streams Streams) *cobra.Command {
	o := &vapOptions{output: outputYAML, messages: vapSummaries}
	cmd := &cobra.Command{
		Use:   "vap --policies PATH [flags]",
		Short: "Compile GuardPolicies to Validating- and MutatingAdmissionPolicies",
		Long: `Compile GuardPolicies to admissionregistration.k8s.io/v1 ValidatingAdmissionPolicies
and bindings that kube-apiserver enforces without the webhook: one policy and one
binding per enforcement (Deny, Warn, Audit) a GuardPolicy's rules use. Each
check is one validation whose message names the rule, the field and what is
allowed. With --messages findings, each check is also one named variable that
lists its findings, with their field paths and values as crdguard validate
prints them, in policies about twice the size. Approvals compile with their
rules: an approver's approval, written in the request, lifts the findings of
the rules it names.
Defaults compile to a MutatingAdmissionPolicy and its binding that set the limits
the mutating webhook sets.

Rules a ValidatingAdmissionPolicy cannot express stay with the webhook: Deny
rules of a policy with approvers that run on DELETE (a deletion uses the stored
approval and its record), NoRemoval below a "[*]", and a tagPattern (of an
imageVersion rule or a transition's imageTag: CEL has no regular-expression
groups to read the version out of the tag), a versionTable rule, and a
transition with defaultVersion or alternatives. Each is listed on stderr, or by
--check.
Give --crds so that NoRemoval matches list items by the CRDs' list-map keys.

--static-manifests DIR writes, instead of printing, the objects in the form
kube-apiserver loads at start from a staticManifestsDir (names ending in
.static.k8s.io, which nobody can create, change or delete through the API): one
directory per admission plugin, the webhook configurations of the rules that
stay with the webhook (at --webhook-url), and DIR/admission-configuration.yaml
for --admission-control-config-file.`,
		Example: `  crdguard vap --policies examples/mysql/policy.yaml --crds examples/mysql/crd.yaml | kubectl apply -f -
  crdguard vap --policies policies/ --check
  crdguard vap --policies policies/ --crds crds/ --static-manifests /etc/kubernetes/crdguard \
    --webhook-url https://10.0.0.10:8443 --webhook-ca-bundle ca.crt`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), streams)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.policies, "policies", nil, "GuardPolicy file or directory (repeatable)")
	f.StringArrayVar(&o.crds, "crds", nil, "CRD file or directory (repeatable), for list-map keys")
	f.VarP(newOutputFlag(&o.output, outputYAML, string(report.JSON)), "output", "o", `output format: "yaml" or "json" (a v1 List)`)
	f.Var(newChoiceFlag(&o.messages, vapSummaries, vapFindings), "messages", `what a failing validation says: "summary" (the rule, the field and what is allowed) or "findings" (each finding with its values)`)
	f.BoolVar(&o.check, "check", false, "print which rules compile and which need the webhook, instead of the objects")
	f.StringVar(&o.webhookPolicies, "webhook-policies", "", "also write to this file the GuardPolicies reduced to the rules that need the webhook (enforcement mode vap)")
	f.StringVar(&o.static.dir, "static-manifests", "", "write the objects to this directory, as kube-apiserver's staticManifestsDir loads them, with an AdmissionConfiguration")
	f.StringVar(&o.static.nodeDir, "static-manifests-node-dir", "", "the --static-manifests directory's absolute path on the control-plane nodes, for the AdmissionConfiguration (default: its absolute path here)")
	f.StringVar(&o.static.webhookURL, "webhook-url", "", "with --static-manifests: the webhook's https base URL as kube-apiserver reaches it, for the rules that stay with the webhook")
	f.StringVar(&o.static.webhookCABundle, "webhook-ca-bundle", "", "with --static-manifests: PEM file of the CA that verifies the webhook's certificate (default: the API server's system roots)")
	cmd.PreRunE = func(cmd *cobra.Command, _ []string) error {
		if o.static.dir == "" {
			for _, name := range []string{"static-manifests-node-dir", "webhook-url", "webhook-ca-bundle"} {
				if cmd.Flags().Changed(name) {
					return usageError("--%s needs --static-manifests", name)
				}
			}
			return nil
		}
		for _, name := range []string{"check", "output"} {
			if cmd.Flags().Changed(name) {
				return usageError("--%s does not go with --static-manifests, which writes YAML files", name)
			}
		}
		return nil
	}
	return cmd
}

func (o *vapOptions) run(ctx context.Context, streams Streams) error {
	messages := vapMessages[o.messages]
	if len(o.policies) == 0 {
		return usageError("--policies is required")
	}
	if err := stdinOnce(pathFlag{"--crds", o.crds}, pathFlag{"--policies", o.policies}); err != nil {
		return err
	}
	registry, guardPolicies, err := policies.Files{CRDs: o.crds, Policies: o.policies, Stdin: streams.In}.Load(ctx)
	if err != nil {
		return inputError(err)
	}
	slices.SortFunc(guardPolicies, func(a, b *v1alpha1.GuardPolicy) int { return strings.Compare(a.Name, b.Name) })
	var compiled []*vap.Compiled
	for _, gp := range guardPolicies {
		c, err := vap.Compile(gp, registry, messages)
		if err != nil {
			return inputError(err)
		}
		compiled = append(compiled, c)
	}
	if o.check {
		if err := printVAPCheck(streams.Out, compiled); err != nil {
			return outputError(err)
		}
		return nil
	}
	for _, c := range compiled {
		for _, r := range c.Rules {
			if r.Webhook != "" {
				fmt.Fprintf(streams.Err, "crdguard: GuardPolicy %s, rule %s stays with the webhook: %s\n", c.Policy, r.Name, r.Webhook)
			}
		}
	}
	items, err := vapItems(compiled)
	if err != nil {
		return &exitError{code: ExitInternal, err: err}
	}
	if o.webhookPolicies != "" {
		if err := writeWebhookPolicies(o.webhookPolicies, guardPolicies, compiled); err != nil {
			return err
		}
	}
	if o.static.dir != "" {
		return o.static.write(streams.Out, registry, guardPolicies, compiled)
	}
	if o.output == string(report.JSON) {
		enc := json.NewEncoder(streams.Out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(map[string]any{"apiVersion": "v1", "kind": "List", "items": items}); err != nil {
			return outputError(err)
		}
		return nil
	}
	return writeYAML(streams.Out, items...)
}

// writeWebhookPolicies writes, as YAML, each GuardPolicy without the rules
// its compiled policies enforce; policies left with no rule are left out.
func writeWebhookPolicies(path string, gps []*v1alpha1.GuardPolicy, compiled []*vap.Compiled) error {
	var kept []runtime.Object
	for i, gp := range gps {
		if p := compiled[i].WebhookPolicy(gp); p != nil {
			p.APIVersion, p.Kind = v1alpha1.GroupVersion.String(), "GuardPolicy"
			kept = append(kept, p)
		}
	}
	return writeObjectsFile(path, "--webhook-policies", kept)
}

// printVAPCheck prints, per GuardPolicy, where each rule runs.
func printVAPCheck(out io.Writer, compiled []*vap.Compiled) error {
	for i, c := range compiled {
		if i > 0 {
			fmt.Fprintln(out)
		}
		fmt.Fprintf(out, "GuardPolicy %s\n", c.Policy)
		w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "  RULE\tKIND\tRUNS IN")
		for _, r := range c.Rules {
			where := "vap"
			switch {
			case r.Webhook != "":
				where = "webhook: " + r.Webhook
			case r.Approvals:
				where = "vap, and webhook for its approvals"
			case r.Mutation:
				where = "mutating admission policy, and webhook"
			}
			fmt.Fprintf(w, "  %s\t%s\t%s\n", r.Name, r.Kind, where)
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// vapItems are the generated objects as plain maps, the mutating policy
// first (admission mutates before it validates), each policy before its
// binding, without the empty creationTimestamp and status a typed object
// would print.
func vapItems(compiled []*vap.Compiled) ([]any, error) {
	var items []any
	for _, c := range compiled {
		var objs []runtime.Object
		if c.Mutating != nil {
			objs = append(objs, c.Mutating, c.MutatingBinding)
		}
		for i := range c.Policies {
			objs = append(objs, c.Policies[i], c.Bindings[i])
		}
		for _, obj := range objs {
			m, err := plainObject(obj)
			if err != nil {
				return nil, err
			}
			items = append(items, m)
		}
	}
	return items, nil
}
