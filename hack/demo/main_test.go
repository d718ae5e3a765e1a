package main

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestShellJoin checks that printed command lines read back, through a
// real sh, as the arguments the demo ran.
func TestShellJoin(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatalf("the demo prints commands for sh; the test needs one: %v", err)
	}
	args := []string{
		"kubectl", "--as=alice", "apply", "-f", "examples/mysql/update/approved.yaml",
		`jsonpath={.metadata.annotations.crdguard\.dev/last-approval}`,
		`{range .items[*]}{@}{"\n"}{end}`, "it's", "", "a b", "$HOME", "*", "~",
	}
	line := shellJoin(args)
	if !strings.HasPrefix(line, "kubectl --as=alice apply -f examples/mysql/update/approved.yaml ") {
		t.Errorf("safe words are quoted: %s", line)
	}
	// set -- LINE makes sh split and unquote LINE as it would a command.
	out, err := exec.Command(sh, "-c", "set -- "+line+`; for a in "$@"; do printf '%s\0' "$a"; done`).Output()
	if err != nil {
		t.Fatalf("sh -c 'set -- %s': %v", line, err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if !slices.Equal(got, args) {
		t.Errorf("sh read %s back as\n %q\nwant %q", line, got, args)
	}
}

func TestVerdict(t *testing.T) {
	for _, c := range []struct {
		accepted, want bool
		line           string
	}{
		{true, true, "=> ACCEPTED"},
		{false, false, "=> DENIED"},
		{true, false, "=> ACCEPTED (UNEXPECTED)"},
		{false, true, "=> DENIED (UNEXPECTED)"},
	} {
		if got := verdict(c.accepted, c.want); got != c.line {
			t.Errorf("verdict(%v, %v) = %q, want %q", c.accepted, c.want, got, c.line)
		}
	}
}

func TestIndent(t *testing.T) {
	for in, want := range map[string]string{
		"":               "",
		"\n":             "",
		"one":            "    one\n",
		"one\ntwo\n":     "    one\n    two\n",
		"one\n\nthree\n": "    one\n    \n    three\n",
	} {
		if got := indent(in); got != want {
			t.Errorf("indent(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestHeading: exactly one blank line before a heading, whether or not the
// output before it ended with one.
func TestHeading(t *testing.T) {
	var b strings.Builder
	d := &demo{out: &tailWriter{w: &b}}
	d.heading("one")
	fmt.Fprint(d.out, "text\n")
	d.heading("two")
	fmt.Fprint(d.out, "x\n")
	fmt.Fprint(d.out, "\n") // one byte at a time, as Fprintln(w) writes it
	d.heading("three")
	want := "\n=== one\n\ntext\n\n=== two\n\nx\n\n=== three\n\n"
	if b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
}
