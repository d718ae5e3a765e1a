package app

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/crdguard/crdguard/internal/version"
)

// RunFunc runs the server with completed, valid options until ctx is done.
type RunFunc func(ctx context.Context, o *Options) error

// NewCommand returns the crdguard-webhook command. run is Run in the
// binary; tests pass their own to see the options without a server.
func NewCommand(run RunFunc) *cobra.Command {
	o := NewOptions()
	cmd := &cobra.Command{
		Use:   "crdguard-webhook",
		Short: "Serve crdguard's validating and mutating admission webhooks",
		Long: `crdguard-webhook evaluates admission requests against CRD schemas and
GuardPolicies: /validate denies unsafe objects with every field path,
/mutate applies policy defaults and consumes approvals, /validate-policy
denies GuardPolicies crdguard cannot compile.

Without --policies, GuardPolicies (and, without --crds, CRDs) are watched
from the cluster and applied without a restart; this needs get, list and
watch on guardpolicies.crdguard.dev and customresourcedefinitions.`,
		Args:          cobra.NoArgs,
		Version:       version.Get(),
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Complete()
			if errs := o.Validate(); len(errs) > 0 {
				return errs.ToAggregate()
			}
			return run(cmd.Context(), o)
		},
	}
	o.AddFlags(cmd.Flags())
	// --version prints the version alone, as `crdguard version` does, and
	// exits before the options are read.
	cmd.SetVersionTemplate("{{.Version}}\n")
	return cmd
}
