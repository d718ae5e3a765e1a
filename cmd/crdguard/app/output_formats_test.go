package app

import (
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/crdguard/crdguard/pkg/report"
)

// TestOutputFormatsAreOneList: every command's -o takes its values from
// outputFormats, and every report format is there, so that a format has
// one name across commands.
func TestOutputFormatsAreOneList(t *testing.T) {
	for _, f := range report.Formats() {
		if !slices.Contains(outputFormats, string(f)) {
			t.Errorf("report format %s is not in outputFormats", f)
		}
	}
	root := newRootCommand("crdguard", Streams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard})
	want := map[string][]string{
		"validate": {"text", "json", "sarif", "junit", "markdown"}, "diff": {"text", "json", "sarif", "junit", "markdown", "migrations"},
		"lint": {"text", "json", "sarif", "junit", "markdown"}, "audit": {"text", "json", "sarif", "junit", "markdown"},
		"test": {"text", "junit"}, "vap": {"yaml", "json"}, "webhook-config": {"values", "kustomize"},
	}
	seen := 0
	for _, cmd := range root.Commands() {
		flag := cmd.Flags().Lookup("output")
		if flag == nil {
			continue
		}
		seen++
		got := flagChoices(flag)
		for _, name := range got {
			if !slices.Contains(outputFormats, name) {
				t.Errorf("%s -o takes %q, which is not in outputFormats", cmd.Name(), name)
			}
		}
		if !slices.Equal(got, want[cmd.Name()]) {
			t.Errorf("%s -o takes %v, want %v", cmd.Name(), got, want[cmd.Name()])
		}
	}
	if seen != len(want) {
		t.Errorf("%d commands have -o, want %d", seen, len(want))
	}
}

// TestNewOutputFlagRefusesUnlistedFormat: a command cannot invent a -o
// value outside outputFormats.
func TestNewOutputFlagRefusesUnlistedFormat(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("newOutputFlag accepted a format that is not in outputFormats")
		}
	}()
	var format string
	newOutputFlag(&format, "table")
}
