package rules

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// versionTableKind allows, for each version at one path, only the versions
// its row lists at another: Percona XtraDB's operator version
// (spec.crVersion) decides which MySQL series (spec.pxc.image) it runs.
//
// Decisions, in the order a check meets them:
//   - Nothing at path: nothing is checked. The operator picks the value,
//     and picks one it supports.
//   - No version at versionPath while path is set: defaultVersion stands
//     for it; without one, a finding at versionPath, since no row can be
//     picked and a pass would fail open.
//   - A version no row matches: a finding at versionPath (unlisted:
//     Deny, the default), since the table does not say what it allows;
//     unlisted: Allow opts out.
//   - The value is read as a transition's imageTag reads it: the tag up
//     to its first "-", or tagPattern's group. A reference without a tag
//     ("latest"), pinned by digest alone, or with a tag the pattern does
//     not match, has no version: a finding at path.
//   - Versions match patterns by their numbers alone: a pre-release or
//     build of 8.0.39 is 8.0.39. A version written to fewer numbers than
//     the pattern (an image tag "8") matches none: it floats over every
//     8.x release.
var versionTableKind = ruleKind{
	name:       "versionTable",
	configured: func(r *v1alpha1.Rule) bool { return r.VersionTable != nil },
	compile:    compileVersionTable,
}

type VersionTable struct {
	VersionPath ObjectPath
	// DefaultVersion is "" when the rule names none.
	DefaultVersion string
	Path           ObjectPath
	// ImageTag is set when path holds an image reference.
	ImageTag *ImageTag
	Rows     []VersionTableRow
	// Unlisted is Deny or Allow, never "".
	Unlisted v1alpha1.UnlistedVersion
}

// VersionTableRow is a row: the versions at versionPath it is for, and
// the versions it allows at path.
type VersionTableRow struct {
	Version versionPattern
	Allowed []versionPattern
}

func compileVersionTable(spec *v1alpha1.Rule, path *field.Path, _ *compileEnv) (Rule, field.ErrorList) {
	cfg := spec.VersionTable
	path = path.Child("versionTable")
	// The CRD defaults unlisted; policies built in Go get the same default.
	r := &VersionTable{DefaultVersion: cfg.DefaultVersion, Unlisted: cmp.Or(cfg.Unlisted, v1alpha1.DenyUnlisted)}
	var errs field.ErrorList
	var err error
	for _, p := range []struct {
		raw  string
		into *ObjectPath
		name string
	}{{cfg.VersionPath, &r.VersionPath, "versionPath"}, {cfg.Path, &r.Path, "path"}} {
		*p.into, err = parsePath(p.raw)
		switch {
		case err != nil:
			errs = append(errs, field.Invalid(path.Child(p.name), p.raw, err.Error()))
		case p.into.HasWildcard():
			errs = append(errs, field.Invalid(path.Child(p.name), p.raw, "must name one value; [*] is not allowed"))
		}
	}
	if cfg.DefaultVersion != "" {
		if _, err := ParseSemanticVersion(cfg.DefaultVersion); err != nil {
			errs = append(errs, field.Invalid(path.Child("defaultVersion"), cfg.DefaultVersion, "is not a version: "+err.Error()))
		}
	}
	if cfg.ImageTag != nil {
		pattern, patternErrs := compileTagPattern(cfg.ImageTag.TagPattern, path.Child("imageTag", "tagPattern"))
		errs = append(errs, patternErrs...)
		r.ImageTag = &ImageTag{Pattern: pattern}
	}
	if len(cfg.Rows) == 0 {
		errs = append(errs, field.Required(path.Child("rows"), "a table needs at least one row"))
	}
	for i, row := range cfg.Rows {
		at := path.Child("rows").Index(i)
		version, err := parseVersionPattern(row.Version)
		if err != nil {
			errs = append(errs, field.Invalid(at.Child("version"), row.Version, err.Error()))
		}
		compiled := VersionTableRow{Version: version}
		if len(row.Allowed) == 0 {
			errs = append(errs, field.Required(at.Child("allowed"), "a row allows at least one version"))
		}
		for j, a := range row.Allowed {
			allowed, err := parseVersionPattern(a)
			if err != nil {
				errs = append(errs, field.Invalid(at.Child("allowed").Index(j), a, err.Error()))
			}
			compiled.Allowed = append(compiled.Allowed, allowed)
		}
		r.Rows = append(r.Rows, compiled)
	}
	if unlisted := []v1alpha1.UnlistedVersion{v1alpha1.DenyUnlisted, v1alpha1.AllowUnlisted}; r.Unlisted != unlisted[0] && r.Unlisted != unlisted[1] {
		errs = append(errs, field.NotSupported(path.Child("unlisted"), cfg.Unlisted, unlisted))
	}
	return r, errs
}

func (r *VersionTable) Operations() []v1alpha1.Operation { return createUpdate }

func (r *VersionTable) Check(_ context.Context, req *Request) ([]Finding, error) {
	obj := req.Object.Object
	value, valueAt, found := r.Path.get(obj)
	if !found || value == nil {
		return nil, nil
	}
	declared, errs := r.declared(obj)
	if errs != nil {
		return findings(errs...), nil
	}
	row := r.row(declared.semver)
	if row == nil {
		if r.Unlisted == v1alpha1.AllowUnlisted {
			return nil, nil
		}
		e := field.Invalid(declared.at, declared.value, fmt.Sprintf("is in no row of the version table, so nothing says which versions of %s it allows; rows: %s (unlisted: Allow in the rule accepts this)", r.Path, r.rowVersions()))
		if declared.isNumber {
			e.Detail += fmt.Sprintf("; %s is the number %s: quote the version in YAML to keep it as written", declared.at, declared.value)
		}
		if declared.fromDefault {
			e.BadValue = field.OmitValueType{}
			e.Detail = fmt.Sprintf("is not set, and its defaultVersion %s ", declared.value) + e.Detail
		}
		return findings(e), nil
	}
	return findings(r.checkValue(valueAt, value, declared, row)...), nil
}

// declared is the version at versionPath, or the finding that says why
// there is none to pick a row with.
func (r *VersionTable) declared(obj map[string]any) (*tableVersion, field.ErrorList) {
	raw, at, found := r.VersionPath.get(obj)
	want, isNumber, ok := scalarString(raw)
	d := &tableVersion{declaredVersion: declaredVersion{at: at, value: want, isNumber: isNumber}}
	if !found || ok && want == "" {
		if r.DefaultVersion == "" {
			return nil, field.ErrorList{field.Required(at, fmt.Sprintf("is not set, so the version table cannot pick the versions of %s it allows; set it, or give the rule the operator's defaultVersion", r.Path))}
		}
		d.value, d.fromDefault, ok = r.DefaultVersion, true, true
	}
	if !ok {
		return nil, field.ErrorList{field.TypeInvalid(at, raw, "must be a string or a number: the version that picks a row of the version table")}
	}
	v, err := ParseSemanticVersion(d.value)
	if err != nil {
		return nil, field.ErrorList{field.Invalid(at, raw, fmt.Sprintf("is not a semantic version (%v), so the version table cannot pick a row", err))}
	}
	d.semver = &v
	return d, nil
}

// tableVersion is the version that picks a row.
type tableVersion struct {
	declaredVersion
	// fromDefault: versionPath is not set, and this is defaultVersion.
	fromDefault bool
}

// row is the first row whose version matches v, nil for none.
func (r *VersionTable) row(v *SemanticVersion) *VersionTableRow {
	for i := range r.Rows {
		if r.Rows[i].Version.matches(*v) {
			return &r.Rows[i]
		}
	}
	return nil
}

func (r *VersionTable) rowVersions() string {
	names := make([]string, len(r.Rows))
	for i, row := range r.Rows {
		names[i] = row.Version.raw
	}
	return strings.Join(names, ", ")
}

// checkValue checks the version at path against the row.
func (r *VersionTable) checkValue(path *field.Path, value any, declared *tableVersion, row *VersionTableRow) field.ErrorList {
	allowed := make([]string, len(row.Allowed))
	for i, a := range row.Allowed {
		allowed[i] = a.raw
	}
	against := declared.String()
	if declared.fromDefault {
		against = fmt.Sprintf("%s (not set: defaultVersion)", &declared.declaredVersion)
	}
	rowText := fmt.Sprintf("allowed with %s: %s", row.Version.raw, strings.Join(allowed, ", "))
	version, subject, errs := r.valueVersion(path, value, against)
	if errs != nil {
		return errs
	}
	v, err := parseVersion(version, r.ImageTag != nil)
	if err != nil {
		return field.ErrorList{field.Invalid(path, value, fmt.Sprintf("%s is not a semantic version, so it cannot be checked against %s; %s", subject, against, rowText))}
	}
	for _, a := range row.Allowed {
		if a.matches(v) {
			return nil
		}
	}
	msg := fmt.Sprintf("%s is not allowed with %s; %s", subject, against, rowText)
	if declared.isNumber {
		msg += fmt.Sprintf("; %s is the number %s: quote the version in YAML to keep it as written", declared.at, declared.value)
	}
	return field.ErrorList{field.Invalid(path, value, msg)}
}

// valueVersion is the version at path as written, and how a message
// names it; or the finding that says why it has none.
func (r *VersionTable) valueVersion(path *field.Path, value any, against string) (version, subject string, errs field.ErrorList) {
	if r.ImageTag == nil {
		s, _, ok := scalarString(value)
		if !ok {
			return "", "", field.ErrorList{field.TypeInvalid(path, value, "must be a version, which is checked against "+against)}
		}
		return s, "version " + s, nil
	}
	image, ok := value.(string)
	if !ok {
		return "", "", field.ErrorList{field.TypeInvalid(path, value, "must be an image reference, whose tag's version is checked against "+against)}
	}
	ref := parseImage(image)
	switch {
	case ref.err != nil:
		return "", "", field.ErrorList{field.Invalid(path, image, "is not a valid image reference: "+ref.err.Error())}
	case ref.tag == "" && ref.hasDigest:
		return "", "", field.ErrorList{field.Invalid(path, image, fmt.Sprintf("is pinned by digest only, so its version cannot be checked against %s; use name:tag@digest", against))}
	case ref.tag == "":
		return "", "", field.ErrorList{field.Invalid(path, image, fmt.Sprintf("has no tag, so it is latest, which is no version that can be checked against %s", against))}
	}
	version, ok = tagVersion(ref.tag, r.ImageTag.Pattern)
	if !ok {
		return "", "", field.ErrorList{field.Invalid(path, image, fmt.Sprintf("image tag %s does not match tagPattern %s, so its version cannot be checked against %s", ref.tag, r.ImageTag.Pattern.Raw, against))}
	}
	return version, "image version " + version, nil
}

// versionPattern is a version table's pattern: one to three numbers,
// optionally ending in ".x" ("1.19.x", "8.0", "8.0.39").
type versionPattern struct {
	raw     string
	numbers []uint64
}

var versionPatternRE = regexp.MustCompile(`^(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*)){0,2}$`)

func parseVersionPattern(s string) (versionPattern, error) {
	numbers := strings.TrimSuffix(s, ".x")
	if !versionPatternRE.MatchString(numbers) || numbers != s && strings.Count(numbers, ".") == 2 {
		return versionPattern{}, fmt.Errorf(`is not a version pattern: one to three numbers, optionally ending in ".x", like 1.19.x or 8.0.39`)
	}
	p := versionPattern{raw: s}
	for _, n := range strings.Split(numbers, ".") {
		u, err := strconv.ParseUint(n, 10, 64)
		if err != nil {
			return versionPattern{}, fmt.Errorf("number %s is too large", n)
		}
		p.numbers = append(p.numbers, u)
	}
	return p, nil
}

// matches tells whether v has the pattern's numbers, written to at least
// as many numbers as the pattern has.
func (p versionPattern) matches(v SemanticVersion) bool {
	if v.parts < len(p.numbers) {
		return false
	}
	have := []uint64{v.Major, v.Minor, v.Patch}
	for i, n := range p.numbers {
		if have[i] != n {
			return false
		}
	}
	return true
}
