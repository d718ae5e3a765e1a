package app

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/crdguard/crdguard/internal/version"
)

func newVersionCommand(streams Streams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the crdguard version and the Kubernetes validation it runs",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return printVersion(streams.Out)
		},
	}
}

// versionText is what `crdguard version` and `crdguard --version` print:
// crdguard's own version, and the apiextensions-apiserver module whose
// validation gives the verdicts, which tells which Kubernetes release
// crdguard agrees with.
func versionText() string {
	return fmt.Sprintf("crdguard %s\nkubernetes validation: k8s.io/apiextensions-apiserver %s\n", version.Get(), version.Kubernetes())
}

func printVersion(w io.Writer) error {
	_, err := io.WriteString(w, versionText())
	return err
}
