package app

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/crdguard/crdguard/pkg/report"
)

// flagChoices are the values a fixed-choice flag takes, or nil for a flag
// that takes anything.
func flagChoices(f *pflag.Flag) []string {
	switch v := f.Value.(type) {
	case *choiceFlag:
		return v.choices
	case *reportOutputFlag:
		return v.choices()
	case *report.Format:
		names := make([]string, 0, len(report.Formats()))
		for _, format := range report.Formats() {
			names = append(names, string(format))
		}
		return names
	}
	return nil
}

// completeChoices registers, for every fixed-choice flag of cmd and its
// subcommands, a shell completion of its values. Without one the shell
// offers file names, which no such flag takes.
func completeChoices(cmd *cobra.Command) {
	cmd.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
		choices := flagChoices(f)
		if choices == nil {
			return
		}
		complete := func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return choices, cobra.ShellCompDirectiveNoFileComp
		}
		if err := cmd.RegisterFlagCompletionFunc(f.Name, complete); err != nil {
			panic(err) // a flag registered twice: a bug in this package
		}
	})
	for _, c := range cmd.Commands() {
		completeChoices(c)
	}
}
