package diff

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// Config is the --config file of crdguard diff. It is decoded strictly: a
// misspelt key is an error, never a silently ignored setting.
type Config struct {
	// Checks sets the enforcement of a check's breaking and warning changes,
	// by check name: Deny fails the run, Warn reports a warning, Audit
	// records the change for information (a report shows every
	// difference). Info changes are always Audit. Default: Deny for
	// breaking, Warn for warning.
	Checks map[string]v1alpha1.Enforcement `json:"checks,omitempty"`
	// EnumValueAdded is the enum-addition policy: the enforcement of a
	// value added to an existing enum. Default: Warn. It is a shorthand
	// for checks["enum-value-added"], which wins if both are set.
	EnumValueAdded v1alpha1.Enforcement `json:"enumValueAdded,omitempty"`
	// Waivers accept known changes.
	Waivers []Waiver `json:"waivers,omitempty"`
	// Deprecated lists, after LoadConfig, every deprecated word the file
	// used, with its field and the word that replaces it, for the caller
	// to warn about.
	Deprecated []string `json:"-"`
}

// Waiver accepts the changes of one check at matching paths: they are
// reported with enforcement Audit and the reason.
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
	c.readDeprecatedWords()
	if errs := c.Validate(); len(errs) > 0 {
		return nil, fmt.Errorf("%s: %w", path, errs.ToAggregate())
	}
	return c, nil
}

var enforcements = []string{string(v1alpha1.Deny), string(v1alpha1.Warn), string(v1alpha1.Audit)}

// deprecatedEnforcements are the words of an earlier vocabulary for an
// enforcement, accepted for one release with a warning: "Error" and "None"
// name a severity, not what the run does with a change.
var deprecatedEnforcements = map[v1alpha1.Enforcement]v1alpha1.Enforcement{"Error": v1alpha1.Deny, "None": v1alpha1.Audit}

// readDeprecatedWords replaces Error and None with Deny and Audit, noting
// each in Deprecated.
func (c *Config) readDeprecatedWords() {
	for _, name := range sortedKeys(c.Checks) {
		if to, ok := deprecatedEnforcements[c.Checks[name]]; ok {
			c.deprecated(field.NewPath("checks").Key(name), c.Checks[name], to)
			c.Checks[name] = to
		}
	}
	if to, ok := deprecatedEnforcements[c.EnumValueAdded]; ok {
		c.deprecated(field.NewPath("enumValueAdded"), c.EnumValueAdded, to)
		c.EnumValueAdded = to
	}
}

func (c *Config) deprecated(p *field.Path, old, replacement v1alpha1.Enforcement) {
	c.Deprecated = append(c.Deprecated, fmt.Sprintf("%s: %q is deprecated and will be refused in the next release: use %q", p, old, replacement))
}

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

func validEnforcement(e v1alpha1.Enforcement) bool {
	return e == v1alpha1.Deny || e == v1alpha1.Warn || e == v1alpha1.Audit
}

// Decision is what Config makes of one change.
type Decision struct {
	Enforcement v1alpha1.Enforcement
	// Waiver is the waiver that applies, nil if none.
	Waiver *Waiver
	// Expired is set when the only matching waiver has expired: the change
	// keeps its enforcement and the run fails regardless.
	Expired bool
}

// Decide applies c (nil: the defaults) to ch as of now.
func (c *Config) Decide(ch Change, now time.Time) Decision {
	d := Decision{Enforcement: ch.Impact.Enforcement()}
	if c == nil {
		return d
	}
	if ch.Impact != Info {
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
		return Decision{Enforcement: v1alpha1.Audit, Waiver: w}
	}
	return d
}

// Enforcement is what a change of impact i does by default: breaking is
// Deny, warning Warn, info Audit. --min-severity lists findings at an
// impact's enforcement or above by the same mapping.
func (i Impact) Enforcement() v1alpha1.Enforcement {
	switch i {
	case Breaking:
		return v1alpha1.Deny
	case Warning:
		return v1alpha1.Warn
	}
	return v1alpha1.Audit
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
