package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// attempt is what kubectl reported for one dry-run request.
type attempt struct {
	accepted  bool
	causes    []string // "field: message" of a 422 Invalid, as kubectl prints them
	unknown   []string // paths of a 400 "strict decoding error: unknown field ..."
	notServed bool     // kubectl found no served resource for the apiVersion and kind
	warnings  []string // the server's Warning headers, as kubectl prints them after "Warning: "
	// object is the dry-run response's object of an accepted request: what
	// the server would have stored.
	object map[string]any
	output string // kubectl's stdout and stderr, for failure messages
}

// kubectlDryRun sends file to the server with dryRun=All: kubectl create,
// or kubectl replace for an update. validate is kubectl's --validate:
// "strict" sends fieldValidation=Strict, "warn" Warn, "false" Ignore.
func kubectlDryRun(ctx context.Context, tg *target, validate string) (attempt, error) {
	verb := "create"
	if tg.update {
		verb = "replace"
	}
	args := []string{verb, "--dry-run=server", "--validate=" + validate, "-o", "json", "-f", tg.file}
	if tg.namespace != "" {
		args = append(args, "--namespace="+tg.namespace)
	}
	code, stdout, stderr, err := runCommand(kubectl(ctx, args...))
	if err != nil {
		return attempt{}, fmt.Errorf("kubectl %s: %w", strings.Join(args, " "), err)
	}
	a, perr := parseKubectl(code == 0, stderr)
	a.causes = withoutGeneratedName(tg, a.causes)
	a.warnings = withoutGeneratedName(tg, a.warnings)
	a.output = fmt.Sprintf("$ kubectl %s\n%s%s", strings.Join(args, " "), stdout, stderr)
	if perr != nil {
		return a, fmt.Errorf("%w\n%s", perr, a.output)
	}
	if a.accepted {
		if err := json.Unmarshal([]byte(stdout), &a.object); err != nil {
			return a, fmt.Errorf("reading the dry-run response: %w\n%s", err, a.output)
		}
	}
	return a, nil
}

var (
	// The header kubectl prints for a 422 Invalid Status (cmdutil.checkErr):
	// `The Widget "w" is invalid: ` followed by the only cause on the same
	// line, or by one "* field: message" line per cause.
	invalidHeader = regexp.MustCompile(`^The (?:request|\S+ "(?:[^"\\]|\\.)*") is invalid: ?(.*)$`)
	unknownField  = regexp.MustCompile(`unknown field "((?:[^"\\]|\\.)*)"`)
	// A 400 from the custom resource decoder (metadata or an embedded
	// resource it cannot read): one "field: message" after the kind.
	decodeError = regexp.MustCompile(`^Error from server \(BadRequest\): error when \w+ "(?:[^"\\]|\\.)*": \S+ in version "[^"]*" cannot be handled as a \S+: (.*)$`)
	// kubectl's REST mapping found no served version of the kind.
	noMatches = regexp.MustCompile(`no matches for kind "[^"]*" in version "[^"]*"`)
)

// parseKubectl reads kubectl's stderr: the server's warnings, and besides
// them nothing when the request succeeded, an Invalid error's causes, a
// strict decoding error's unknown fields, or a decoding error at one field.
// Any other failure is an error: the test cannot tell what the server
// decided.
func parseKubectl(ok bool, stderr string) (attempt, error) {
	a, err := parseKubectlError(ok, stderr)
	if err != nil {
		return attempt{}, err
	}
	for line := range strings.Lines(stderr) {
		if w, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "Warning: "); ok {
			a.warnings = append(a.warnings, w)
		}
	}
	a.warnings = set(a.warnings)
	return a, nil
}

// parseKubectlError reads kubectl's stderr without its warnings.
func parseKubectlError(ok bool, stderr string) (attempt, error) {
	var lines []string
	for line := range strings.Lines(stderr) {
		line = strings.TrimRight(line, "\r\n")
		if line == "" || strings.HasPrefix(line, "Warning: ") {
			continue
		}
		lines = append(lines, line)
	}
	if ok {
		if len(lines) > 0 {
			return attempt{}, fmt.Errorf("kubectl succeeded but printed %q", lines)
		}
		return attempt{accepted: true}, nil
	}
	if len(lines) == 0 {
		return attempt{}, errors.New("kubectl failed without a message")
	}

	if m := invalidHeader.FindStringSubmatch(lines[0]); m != nil {
		var causes []string
		if m[1] != "" {
			causes = append(causes, m[1])
		}
		for _, line := range lines[1:] {
			if rest, ok := strings.CutPrefix(line, "* "); ok {
				causes = append(causes, rest)
			} else if len(causes) > 0 { // a message spanning lines
				causes[len(causes)-1] += "\n" + line
			} else {
				return attempt{}, fmt.Errorf("unexpected line %q in an Invalid error", line)
			}
		}
		if len(causes) == 0 {
			return attempt{}, errors.New("an Invalid error without causes")
		}
		return attempt{causes: set(causes)}, nil
	}

	all := strings.Join(lines, "\n")
	if _, list, ok := strings.Cut(all, "strict decoding error: "); ok {
		var paths []string
		for _, m := range unknownField.FindAllStringSubmatch(list, -1) {
			paths = append(paths, m[1])
		}
		// Everything in the list must be an unknown field; a duplicate
		// field or anything else would need its own comparison.
		if rest := strings.Trim(unknownField.ReplaceAllString(list, ""), ", "); rest != "" || len(paths) == 0 {
			return attempt{}, fmt.Errorf("strict decoding error with more than unknown fields: %q", list)
		}
		return attempt{unknown: set(paths)}, nil
	}
	if m := decodeError.FindStringSubmatch(all); m != nil {
		return attempt{causes: []string{m[1]}}, nil
	}
	if noMatches.MatchString(all) {
		return attempt{notServed: true}, nil
	}
	return attempt{}, errors.New("kubectl failed with an error that is neither Invalid nor a strict decoding error")
}

// set sorts and de-duplicates s.
func set(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}
