package diff

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// Enforcement is what a change does to the run, set per check in Config.
type Enforcement string

const (
	// Error fails the run.
	Error Enforcement = "Error"
	// Warn reports the change as a warning; the run passes.
	Warn Enforcement = "Warn"
	// None records the change for information; the run passes. Changes are
	// never dropped: a report must show every difference.
	None Enforcement = "None"
)

// Config is the --config file of crdguard diff. It is decoded strictly: a
// misspelt key is an error, never a silently ignored setting.
type Config struct {
	// Checks sets the enforcement of a check's breaking and warning changes,
	// by check name. Info changes are always None. Default: Error for
	// breaking, Warn for warning.
	Checks map[string]Enforcement `json:"checks,omitempty"`
	// EnumValueAdded is the enum-addition policy: the enforcement of a
	// value added to an existing enum (Error, Warn or None). Default: Warn.
	// It is a shorthand for checks["enum-value-added"], which wins if both
	// are set.
	EnumValueAdded Enforcement `json:"enumValueAdded,omitempty"`
	// Waivers accept known changes.
	Waivers []Waiver `json:"waivers,omitempty"`
}

// Waiver accepts the changes of one check at matching paths: they are
// reported with enforcement None and the reason.
type Waiver struct {
	// Check is the check name; required.
	Check string `json:"check"`
	// CRD limits the waiver to one CRD by name; empty: every CRD.
	CRD string `json:"crd,omitempty"`
	// Path is the change's path; "*" matches any run of characters
	// ("spec.versions[*].schema.openAPIV3Schema.properties.spec.*").
	// Required, so that a waiver never covers more than its author meant.
	Path string `json:"path"`
	// Reason says why the change is acceptable; required.
	Reason string `json:"reason"`
	// Expires is the last day (YYYY-MM-DD, UTC) the waiver applies. An
	// expired waiver fails the run, so that it is revisited rather than
	// forgotten. Empty: no expiry.
	Expires string `json:"expires,omitempty"`
}

// LoadConfig reads and validates a config file. The errors name the file
// and every invalid field.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c := &Config{}
	if err := yaml.UnmarshalStrict(data, c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if errs := c.Validate(); len(errs) > 0 {
		return nil, fmt.Errorf("%s: %w", path, errs.ToAggregate())
	}
	return c, nil
}

var enforcements = []string{string(Error), string(Warn), string(None)}

// Validate returns every invalid field of c.
func (c *Config) Validate() field.ErrorList {
	var errs field.ErrorList
	for _, name := range sortedKeys(c.Checks) {
		p := field.NewPath("checks").Key(name)
		if !IsCheck(name) {
			errs = append(errs, field.NotFound(p, name))
		}
		if !validEnforcement(c.Checks[name]) {
			errs = append(errs, field.NotSupported(p, c.Checks[name], enforcements))
		}
	}
	if c.EnumValueAdded != "" && !validEnforcement(c.EnumValueAdded) {
		errs = append(errs, field.NotSupported(field.NewPath("enumValueAdded"), c.EnumValueAdded, enforcements))
	}
	for i, w := range c.Waivers {
		p := field.NewPath("waivers").Index(i)
		switch {
		case w.Check == "":
			errs = append(errs, field.Required(p.Child("check"), ""))
		case !IsCheck(w.Check):
			errs = append(errs, field.NotFound(p.Child("check"), w.Check))
		}
		if w.Path == "" {
			errs = append(errs, field.Required(p.Child("path"), `use "*" to waive the check everywhere`))
		}
		if strings.TrimSpace(w.Reason) == "" {
			errs = append(errs, field.Required(p.Child("reason"), "say why the change is acceptable"))
		}
		if w.Expires != "" {
			if _, err := time.Parse(time.DateOnly, w.Expires); err != nil {
				errs = append(errs, field.Invalid(p.Child("expires"), w.Expires, "want a date as YYYY-MM-DD"))
			}
		}
	}
	return errs
}

func validEnforcement(e Enforcement) bool {
	return e == Error || e == Warn || e == None
}

// Decision is what Config makes of one change.
type Decision struct {
	Enforcement Enforcement
	// Waiver is the waiver that applies, nil if none.
	Waiver *Waiver
	// Expired is set when the only matching waiver has expired: the change
	// keeps its enforcement and the run fails regardless.
	Expired bool
}

// Decide applies c (nil: the defaults) to ch as of now.
func (c *Config) Decide(ch Change, now time.Time) Decision {
	d := Decision{Enforcement: defaultEnforcement(ch.Severity)}
	if c == nil {
		return d
	}
	if ch.Severity != Info {
		if ch.Check == enumValueAdded.Name && c.EnumValueAdded != "" {
			d.Enforcement = c.EnumValueAdded
		}
		if e, ok := c.Checks[ch.Check]; ok {
			d.Enforcement = e
		}
	}
	for i := range c.Waivers {
		w := &c.Waivers[i]
		if !w.matches(ch) {
			continue
		}
		if w.expired(now) {
			d.Expired = true
			d.Waiver = w
			continue
		}
		return Decision{Enforcement: None, Waiver: w}
	}
	return d
}

func defaultEnforcement(s Severity) Enforcement {
	switch s {
	case Breaking:
		return Error
	case Warning:
		return Warn
	}
	return None
}

func (w *Waiver) matches(ch Change) bool {
	if w.Check != ch.Check || (w.CRD != "" && w.CRD != ch.CRD) {
		return false
	}
	return globRegexp(w.Path).MatchString(ch.Path)
}

// expired tells whether the waiver's last day is before now's (UTC) day.
func (w *Waiver) expired(now time.Time) bool {
	if w.Expires == "" {
		return false
	}
	last, err := time.Parse(time.DateOnly, w.Expires)
	return err == nil && now.UTC().After(last.Add(24*time.Hour))
}

// globRegexp turns a path glob into a regexp: "*" matches anything, every
// other character itself (paths are full of "[", "]" and ".").
func globRegexp(glob string) *regexp.Regexp {
	parts := strings.Split(glob, "*")
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
}
