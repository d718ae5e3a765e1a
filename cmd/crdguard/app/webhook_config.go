package app

import (
	"context"

	"github.com/spf13/cobra"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/crdguard/crdguard/pkg/policies"
	"github.com/crdguard/crdguard/pkg/webhookrules"
)

// The webhooks whose rules webhook-config renders, as the chart and
// config/ name them.
const (
	validateWebhook = "validate.crdguard.dev"
	mutateWebhook   = "mutate.crdguard.dev"
)

type webhookConfigOptions struct {
	crds     []string
	policies []string
	output   string
	// name of the two webhook configurations the kustomize patch targets.
	name string
}

func newWebhookConfigCommand(streams Streams) *cobra.Command {
	o := &webhookConfigOptions{output: outputValues, name: "crdguard"}
	cmd := &cobra.Command{
		Use:   "webhook-config --policies PATH --crds PATH [flags]",
		Short: "Render the webhooks' admission rules from GuardPolicies",
		Long: `Render the admission rules of the validate.crdguard.dev and mutate.crdguard.dev
webhooks from the GuardPolicies, for installs that keep the rules in git instead of
letting the webhook manage them (the chart's webhook.manageRules).

Each policy's kinds are mapped to resources by the CRDs (--crds) and client-go's
built-in kinds; a kind neither defines is an error (exit code 2), as is a match
that would route leases or events. /validate gets each policy's operations;
/mutate CREATE and UPDATE of the policies with defaults rules or approvers.

-o values (default) prints a Helm values file for charts/crdguard
(webhook.manageRules false, webhook.rules, webhook.mutateRules); -o kustomize
prints a strategic-merge patch of the ValidatingWebhookConfiguration and the
MutatingWebhookConfiguration named --name, for config/ or the chart's rendered
manifests.`,
		Example: `  crdguard webhook-config --policies examples/mysql/policy.yaml --crds examples/mysql/crd.yaml > rules.yaml
  helm upgrade --install crdguard charts/crdguard -f rules.yaml
  crdguard webhook-config --policies policies/ --crds crds/ -o kustomize > webhook-rules.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), streams)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.policies, "policies", nil, "GuardPolicy file or directory (repeatable)")
	f.StringArrayVar(&o.crds, "crds", nil, "CRD file or directory (repeatable): the guarded custom kinds' resources")
	f.VarP(newOutputFlag(&o.output, outputValues, outputKustomize), "output", "o", `output format: "values" (Helm values) or "kustomize" (a patch)`)
	f.StringVar(&o.name, "name", o.name, "name of the webhook configurations the kustomize patch targets")
	return cmd
}

func (o *webhookConfigOptions) run(ctx context.Context, streams Streams) error {
	if len(o.policies) == 0 {
		return usageError("--policies is required")
	}
	if err := stdinOnce(pathFlag{"--crds", o.crds}, pathFlag{"--policies", o.policies}); err != nil {
		return err
	}
	engine, _, err := policies.Files{CRDs: o.crds, Policies: o.policies, Stdin: streams.In}.Engine(ctx)
	if err != nil {
		return inputError(err)
	}
	rules, err := webhookrules.Compute(engine.Routes(), webhookrules.OfflineMapper(engine.Schemas()))
	if err != nil {
		return inputError(err)
	}
	if o.output == outputKustomize {
		return writeYAML(streams.Out, kustomizePatch(o.name, rules)...)
	}
	return writeYAML(streams.Out, map[string]any{"webhook": map[string]any{
		"manageRules": false,
		"rules":       rules.Validate,
		"mutateRules": rules.Mutate,
	}})
}

// kustomizePatch is a strategic-merge patch of each configuration's
// webhook, by name (the merge key of webhooks); rules, which have no merge
// key, are replaced whole.
func kustomizePatch(name string, rules webhookrules.Rules) []any {
	configuration := func(kind, webhook string, rules []admissionregistrationv1.RuleWithOperations) any {
		return map[string]any{
			"apiVersion": admissionregistrationv1.SchemeGroupVersion.String(),
			"kind":       kind,
			"metadata":   map[string]any{"name": name},
			"webhooks":   []any{map[string]any{"name": webhook, "rules": rules}},
		}
	}
	return []any{
		configuration("ValidatingWebhookConfiguration", validateWebhook, rules.Validate),
		configuration("MutatingWebhookConfiguration", mutateWebhook, rules.Mutate),
	}
}
