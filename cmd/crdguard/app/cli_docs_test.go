package app

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// docFlags are the flags a row of a flag table in docs/cli.md documents:
// those its first cell names in code spans starting with "-" ("| `-o,
// --output text\|json` |", "| `--user NAME`, `--groups G1,G2` |"), by
// long name, a shorthand alone ("`-o yaml\|json`") by cmd's flag.
func docFlags(row string, flags *pflag.FlagSet) []string {
	if !strings.HasPrefix(row, "| `-") {
		return nil
	}
	first, _, _ := strings.Cut(row[2:], " | ")
	var names []string
	for _, span := range codeSpan.FindAllStringSubmatch(first, -1) {
		if !strings.HasPrefix(span[1], "-") {
			continue
		}
		if m := longFlag.FindStringSubmatch(span[1]); m != nil {
			names = append(names, m[1])
		} else if f := flags.ShorthandLookup(span[1][1:2]); f != nil {
			names = append(names, f.Name)
		} else {
			names = append(names, span[1])
		}
	}
	return names
}

var (
	codeSpan = regexp.MustCompile("`([^`]*)`")
	longFlag = regexp.MustCompile(`--([a-z-]+)`)
)

// TestCLIDocsListEveryFlag: each command's flag table in docs/cli.md
// lists exactly the flags its --help lists, and each fixed-choice flag's
// row names every value it takes, so that help and docs cannot drift.
func TestCLIDocsListEveryFlag(t *testing.T) {
	data, err := os.ReadFile("../../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{} // command name: its section's text
	var name string
	for line := range strings.Lines(string(data)) {
		if heading, ok := strings.CutPrefix(line, "## `crdguard "); ok {
			name = strings.Fields(heading)[0]
			name = strings.TrimRight(name, "`\n")
		} else if strings.HasPrefix(line, "## ") {
			name = ""
		}
		if name != "" {
			sections[name] += line
		}
	}
	root := newRootCommand("crdguard", Streams{})
	for _, cmd := range root.Commands() {
		if cmd.Hidden || cmd.Name() == "help" || cmd.Name() == "completion" {
			continue
		}
		t.Run(cmd.Name(), func(t *testing.T) {
			section, ok := sections[cmd.Name()]
			if !ok {
				t.Fatalf("docs/cli.md has no section for crdguard %s", cmd.Name())
			}
			rows := map[string]string{}
			for line := range strings.Lines(section) {
				for _, flag := range docFlags(line, cmd.Flags()) {
					rows[flag] = line
				}
			}
			var inHelp []string
			cmd.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
				if f.Hidden || f.Name == "help" {
					return
				}
				inHelp = append(inHelp, f.Name)
				row, ok := rows[f.Name]
				if !ok {
					t.Errorf("--%s is in --help, not in docs/cli.md's table", f.Name)
					return
				}
				for _, choice := range flagChoices(f) {
					if !strings.Contains(row, choice) {
						t.Errorf("--%s takes %q, which docs/cli.md's row does not name: %s", f.Name, choice, row)
					}
					if !strings.Contains(f.Usage, choice) && f.Value.Type() != "format" {
						t.Errorf("--%s takes %q, which its --help does not name: %s", f.Name, choice, f.Usage)
					}
				}
			})
			for doc := range rows {
				if !slices.Contains(inHelp, doc) {
					t.Errorf("docs/cli.md lists --%s, which crdguard %s does not have", doc, cmd.Name())
				}
			}
		})
	}
}

// TestDiffConfigHelpNamesWhatTheConfigTakes: diff --config's help names
// the enforcements the config reads, as docs/cli.md does.
func TestDiffConfigHelpNamesWhatTheConfigTakes(t *testing.T) {
	root := newRootCommand("crdguard", Streams{})
	diff, _, err := root.Find([]string{"diff"})
	if err != nil {
		t.Fatal(err)
	}
	usage := diff.Flags().Lookup("config").Usage
	if want := "Deny|Warn|Audit"; !strings.Contains(usage, want) {
		t.Errorf("--config help %q does not name %s", usage, want)
	}
	docs, err := os.ReadFile("../../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := "checks:                       # Deny | Warn | Audit"; !strings.Contains(string(docs), want) {
		t.Errorf("docs/cli.md's config example lacks %q", want)
	}
}

// TestHelpSaysWhatTheDocsSay: what docs/cli.md says of a command that its
// help used to leave out or word as another binary's.
func TestHelpSaysWhatTheDocsSay(t *testing.T) {
	for _, tc := range []struct {
		command       string
		want, notWant string
	}{
		// The rules that stay with the webhook, as docs/cli.md lists them.
		{command: "vap", want: "tagPattern"},
		{command: "vap", want: "versionTable"},
		// A flag of crdguard-webhook, not of this command or the chart.
		{command: "webhook-config", want: "webhook.manageRules", notWant: "--manage-webhook-rules"},
	} {
		help := crdguard(t, "", tc.command, "--help").stdout
		if !strings.Contains(help, tc.want) || tc.notWant != "" && strings.Contains(help, tc.notWant) {
			t.Errorf("%s --help: want %q in it and not %q:\n%s", tc.command, tc.want, tc.notWant, help)
		}
	}
}
