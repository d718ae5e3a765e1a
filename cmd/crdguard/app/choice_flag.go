package app

import (
	"fmt"
	"slices"
	"strings"

	"github.com/crdguard/crdguard/pkg/report"
)

// choiceFlag is a string flag that takes one of a few fixed values. As -o's
// report.Format does, it rejects any other value while the command line is
// parsed, so that the error is a usage error that says which help to read,
// and it takes a value in any letter case, keeping the choice's spelling.
type choiceFlag struct {
	value   *string
	choices []string
	// noun and plural name a value and the choices in the error, worded as
	// report.Format's: unknown output format "x": valid formats are ...
	noun, plural string
	// deprecated maps the values of an earlier vocabulary to the choices
	// that replace them, accepted for one release; deprecatedGiven is the
	// last one given, for the command to warn about (deprecationWarning).
	deprecated      map[string]string
	deprecatedGiven string
}

// newChoiceFlag binds a flag to p, which holds its default, to take one of
// choices, listed in the error in the order given.
func newChoiceFlag(p *string, choices ...string) *choiceFlag {
	return &choiceFlag{value: p, choices: choices, noun: "value", plural: "values"}
}

// newOutputFlag is -o of a command that prints no report: formats are
// those of outputFormats that make sense for what it prints.
func newOutputFlag(p *string, formats ...string) *choiceFlag {
	for _, f := range formats {
		if !slices.Contains(outputFormats, f) {
			panic(fmt.Sprintf("output format %q is not in outputFormats", f))
		}
	}
	return &choiceFlag{value: p, choices: formats, noun: "output format", plural: "formats"}
}

func (c *choiceFlag) String() string { return *c.value }

// withDeprecated has c accept old as the choice replacement, with a
// warning.
func (c *choiceFlag) withDeprecated(old, replacement string) *choiceFlag {
	if c.deprecated == nil {
		c.deprecated = map[string]string{}
	}
	c.deprecated[old] = replacement
	return c
}

// deprecationWarning is the warning for a deprecated value given to the
// flag called name, "" when none was, or when c is nil: options built in
// code rather than parsed from flags have no flag to warn about.
func (c *choiceFlag) deprecationWarning(name string) string {
	if c == nil || c.deprecatedGiven == "" {
		return ""
	}
	return fmt.Sprintf("--%s %s is deprecated and will be refused in the next release: use --%s %s", name, c.deprecatedGiven, name, c.deprecated[c.deprecatedGiven])
}

func (c *choiceFlag) Set(s string) error {
	c.deprecatedGiven = ""
	for old, replacement := range c.deprecated {
		if strings.EqualFold(s, old) {
			*c.value, c.deprecatedGiven = replacement, old
			return nil
		}
	}
	for _, choice := range c.choices {
		if strings.EqualFold(s, choice) {
			*c.value = choice
			return nil
		}
	}
	return fmt.Errorf("unknown %s %q: valid %s are %s", c.noun, s, c.plural, strings.Join(c.choices, ", "))
}

// Type is "string", so that help shows the flag and its quoted default as
// pflag shows a string flag's.
func (c *choiceFlag) Type() string { return "string" }

// reportOutputFlag is -o of a command that prints a report or, instead,
// something of its own (diff's "migrations"): a report format sets format
// and clears extra, an extra output sets extra.
type reportOutputFlag struct {
	format *report.Format
	extra  *string
	extras []string
}

// newReportOutputFlag binds -o to format and extra; extras must be in
// outputFormats.
func newReportOutputFlag(format *report.Format, extra *string, extras ...string) *reportOutputFlag {
	for _, e := range extras {
		if !slices.Contains(outputFormats, e) {
			panic(fmt.Sprintf("output format %q is not in outputFormats", e))
		}
	}
	return &reportOutputFlag{format: format, extra: extra, extras: extras}
}

func (r *reportOutputFlag) String() string {
	if *r.extra != "" {
		return *r.extra
	}
	return r.format.String()
}

func (r *reportOutputFlag) Set(s string) error {
	for _, e := range r.extras {
		if strings.EqualFold(s, e) {
			*r.extra = e
			return nil
		}
	}
	if _, err := report.ParseFormat(s); err != nil {
		return fmt.Errorf("unknown output format %q: valid formats are %s", s, strings.Join(r.choices(), ", "))
	}
	*r.extra = ""
	return r.format.Set(s)
}

func (r *reportOutputFlag) Type() string { return "format" }

// choices are the report formats, then the extras.
func (r *reportOutputFlag) choices() []string {
	names := make([]string, 0, len(report.Formats())+len(r.extras))
	for _, f := range report.Formats() {
		names = append(names, string(f))
	}
	return append(names, r.extras...)
}
