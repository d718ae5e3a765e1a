package app

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/crdguard/crdguard/internal/version"
)

func newVersionCommand(streams Streams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the crdguard version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintln(streams.Out, version.Get())
			return err
		},
	}
}
