package rules

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/blang/semver/v4"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// imageVersionKind checks that the images of an object carry the version
// the object declares, so "spec.version: 8.0.36" cannot run an 8.4.0 image.
//
// Decisions, in the order a check meets them:
//   - No version at versionPath (missing, null or "") while an image the
//     rule checks is set: one finding at versionPath (versionAbsent:
//     Deny, the default). The operator then runs a default version that
//     crdguard cannot know, so nothing shows the image agrees; a pass
//     would fail open. versionAbsent: Allow opts out, for a versionPath
//     that objects may leave out. With no image set either, the operator
//     picks both and there is nothing to disagree: no finding.
//   - A number at versionPath is used as written by the API server: an
//     unquoted YAML 8.0 arrives as the integer 8, and mismatch messages say
//     so, because that is the usual cause.
//   - An image without a tag is "latest", as for the container runtime;
//     messages say the tag is missing.
//   - With compare Semver, a "_" in a tag stands for the "+" of build
//     metadata, which tags cannot hold.
//   - An image with a tag and a digest is judged by its tag: the digest
//     pins the content but carries no version, and resolving it would need
//     the registry.
//   - An image with only a digest cannot be judged: its finding has the
//     enforcement of digestOnly.
//   - With tagPattern, the comparison is of the pattern's version group;
//     a tag the pattern does not match (or "latest") is a finding, as a
//     tag that does not agree is.
//   - With containerName, a container list that has no such container is a
//     finding: the rule was asked to check a container that is not there
//     (renamed, say), and silently checking nothing would fail open.
//   - Without versionPath (CloudNativePG's Cluster has only an image), the
//     rule compares nothing: every image it checks must carry a semantic
//     version in its tag (or in tagPattern's version group). No tag,
//     "latest" and a tag that is no version are findings; a digest-only
//     image is a finding with the enforcement of digestOnly. Compare
//     Exact and TagPrefix and versionAbsent Allow need a version to
//     compare with, so they are refused without versionPath.
var imageVersionKind = ruleKind{
	name:       "imageVersion",
	configured: func(r *v1alpha1.Rule) bool { return r.ImageVersion != nil },
	compile:    compileImageVersion,
}

type ImageVersion struct {
	// VersionPath is nil when the rule only demands a version tag.
	VersionPath    *ObjectPath
	ImagePaths     []ObjectPath
	ContainersPath *ObjectPath
	ContainerName  string
	Exclude        []string
	// TagPattern is nil when the whole tag is compared.
	TagPattern *TagPattern
	Compare    v1alpha1.VersionCompare
	DigestOnly v1alpha1.Enforcement
	// VersionAbsent is Deny or Allow, never "".
	VersionAbsent v1alpha1.VersionAbsent
}

func compileImageVersion(spec *v1alpha1.Rule, path *field.Path, _ *compileEnv) (Rule, field.ErrorList) {
	cfg := spec.ImageVersion
	path = path.Child("imageVersion")
	r := &ImageVersion{
		ContainerName: cfg.ContainerName,
		Exclude:       cfg.ExcludeContainers,
		// The CRD defaults these; policies built in Go get the same defaults.
		Compare:       cmp.Or(cfg.Compare, v1alpha1.CompareSemver),
		DigestOnly:    cmp.Or(cfg.DigestOnly, v1alpha1.Deny),
		VersionAbsent: cmp.Or(cfg.VersionAbsent, v1alpha1.DenyVersionAbsent),
	}
	var errs field.ErrorList

	if cfg.VersionPath != "" {
		versionPath, err := parsePath(cfg.VersionPath)
		switch {
		case err != nil:
			errs = append(errs, field.Invalid(path.Child("versionPath"), cfg.VersionPath, err.Error()))
		case versionPath.HasWildcard():
			errs = append(errs, field.Invalid(path.Child("versionPath"), cfg.VersionPath, "must name one value; [*] is not allowed"))
		}
		r.VersionPath = &versionPath
	} else {
		if r.Compare == v1alpha1.CompareExact || r.Compare == v1alpha1.CompareTagPrefix {
			errs = append(errs, field.Forbidden(path.Child("compare"), fmt.Sprintf("%s compares a tag with versionPath, which is not set; without versionPath a tag must be a semantic version (compare: Semver)", r.Compare)))
		}
		if r.VersionAbsent == v1alpha1.AllowVersionAbsent {
			errs = append(errs, field.Forbidden(path.Child("versionAbsent"), "may only be set with versionPath"))
		}
	}

	imagePaths, pathErrs := parsePaths(cfg.ImagePaths, path.Child("imagePaths"))
	errs = append(errs, pathErrs...)
	r.ImagePaths = imagePaths

	if cfg.ContainersPath != "" {
		p, err := parsePath(cfg.ContainersPath)
		if err != nil {
			errs = append(errs, field.Invalid(path.Child("containersPath"), cfg.ContainersPath, err.Error()))
		}
		r.ContainersPath = &p
	}
	if len(cfg.ImagePaths) == 0 && cfg.ContainersPath == "" {
		errs = append(errs, field.Required(path.Child("imagePaths"), "imagePaths or containersPath is required"))
	}
	if cfg.ContainerName != "" {
		errs = append(errs, validateContainerName(cfg.ContainerName, path.Child("containerName"))...)
	}
	errs = append(errs, validateContainerNames(cfg.ExcludeContainers, path.Child("excludeContainers"))...)
	if cfg.ContainersPath == "" {
		if cfg.ContainerName != "" {
			errs = append(errs, field.Forbidden(path.Child("containerName"), "may only be set with containersPath"))
		}
		if len(cfg.ExcludeContainers) > 0 {
			errs = append(errs, field.Forbidden(path.Child("excludeContainers"), "may only be set with containersPath"))
		}
	}
	if i := slices.Index(cfg.ExcludeContainers, cfg.ContainerName); cfg.ContainerName != "" && i >= 0 {
		errs = append(errs, field.Invalid(path.Child("excludeContainers").Index(i), cfg.ExcludeContainers[i], "excludes the container that containerName selects"))
	}

	tagPattern, patternErrs := compileTagPattern(cfg.TagPattern, path.Child("tagPattern"))
	errs = append(errs, patternErrs...)
	r.TagPattern = tagPattern

	compares := []v1alpha1.VersionCompare{v1alpha1.CompareExact, v1alpha1.CompareSemver, v1alpha1.CompareTagPrefix}
	if !slices.Contains(compares, r.Compare) {
		errs = append(errs, field.NotSupported(path.Child("compare"), cfg.Compare, compares))
	}
	// Audit would hide a digest-only image entirely in a Deny policy; the
	// API allows only Deny and Warn.
	if digestOnly := []v1alpha1.Enforcement{v1alpha1.Deny, v1alpha1.Warn}; !slices.Contains(digestOnly, r.DigestOnly) {
		errs = append(errs, field.NotSupported(path.Child("digestOnly"), cfg.DigestOnly, digestOnly))
	}
	if absent := []v1alpha1.VersionAbsent{v1alpha1.DenyVersionAbsent, v1alpha1.AllowVersionAbsent}; !slices.Contains(absent, r.VersionAbsent) {
		errs = append(errs, field.NotSupported(path.Child("versionAbsent"), cfg.VersionAbsent, absent))
	}
	return r, errs
}

func (r *ImageVersion) Operations() []v1alpha1.Operation { return createUpdate }

func (r *ImageVersion) Check(_ context.Context, req *Request) ([]Finding, error) {
	obj := req.Object.Object
	if r.VersionPath == nil {
		return r.checkImages(obj, nil), nil
	}
	raw, versionAt, found := r.VersionPath.get(obj)
	want, isNumber, ok := scalarString(raw)
	if !found || ok && want == "" {
		return r.checkVersionAbsent(obj, versionAt), nil
	}
	if !ok {
		return findings(field.TypeInvalid(versionAt, raw, "must be a string or a number: the version that images are checked against")), nil
	}
	declared := declaredVersion{at: versionAt, value: want, isNumber: isNumber}
	if r.Compare == v1alpha1.CompareSemver {
		v, err := ParseSemanticVersion(want)
		if err != nil {
			return findings(field.Invalid(versionAt, raw, fmt.Sprintf("is not a semantic version (%v), so images cannot be compared with it (compare: Semver)", err))), nil
		}
		declared.semver = &v
	}
	return r.checkImages(obj, &declared), nil
}

// checkImages checks every image the rule selects in obj against declared,
// or for a version tag when declared is nil.
func (r *ImageVersion) checkImages(obj map[string]any, declared *declaredVersion) []Finding {
	var out []Finding
	for _, p := range r.ImagePaths {
		p.visit(obj, func(path *field.Path, value any, found bool) {
			if found {
				out = append(out, r.checkImage(path, value, declared)...)
			}
		})
	}
	if r.ContainersPath != nil {
		r.ContainersPath.visit(obj, func(path *field.Path, value any, found bool) {
			if found {
				out = append(out, r.checkContainers(path, value, declared)...)
			}
		})
	}
	return out
}

// checkVersionAbsent is the finding for an object without a version at
// versionAt that sets an image the rule would check.
func (r *ImageVersion) checkVersionAbsent(obj map[string]any, versionAt *field.Path) []Finding {
	if r.VersionAbsent == v1alpha1.AllowVersionAbsent || !r.setsImage(obj) {
		return nil
	}
	return findings(field.Required(versionAt, fmt.Sprintf("cannot show the images agree: %s is not set, so the operator runs a default version that crdguard cannot know; set it to the images' version (versionAbsent: Allow in the rule accepts this)", versionAt)))
}

// setsImage tells whether obj sets any image the rule checks: at an image
// path, or of a selected container.
func (r *ImageVersion) setsImage(obj map[string]any) bool {
	set := false
	for _, p := range r.ImagePaths {
		p.visit(obj, func(_ *field.Path, _ any, found bool) {
			set = set || found
		})
	}
	if r.ContainersPath != nil {
		r.ContainersPath.visit(obj, func(_ *field.Path, value any, found bool) {
			list, _ := value.([]any)
			for _, item := range list {
				c, ok := item.(map[string]any)
				if !ok || c["image"] == nil {
					continue
				}
				name, _ := itemName(c)
				if (r.ContainerName == "" || name == r.ContainerName) && !slices.Contains(r.Exclude, name) {
					set = true
				}
			}
		})
	}
	return set
}

// declaredVersion is the object's version, as written and as parsed. A
// nil *declaredVersion stands for a rule without versionPath.
type declaredVersion struct {
	at       *field.Path
	value    string
	isNumber bool
	semver   *SemanticVersion // set for compare Semver
}

func (d *declaredVersion) String() string { return d.at.String() + " " + d.value }

// checkContainers checks the images of one container list.
func (r *ImageVersion) checkContainers(path *field.Path, value any, declared *declaredVersion) []Finding {
	list, ok := value.([]any)
	if !ok {
		return findings(field.TypeInvalid(path, value, "must be a list of containers"))
	}
	var out []Finding
	var names []string
	selected := false
	for i, item := range list {
		c, ok := item.(map[string]any)
		if !ok {
			continue // not a container; the schema reports that
		}
		name, _ := itemName(c)
		names = append(names, strconv.Quote(name))
		if r.ContainerName != "" && name != r.ContainerName || slices.Contains(r.Exclude, name) {
			continue
		}
		selected = true
		if image, ok := c["image"]; ok && image != nil {
			out = append(out, r.checkImage(path.Index(i).Child("image"), image, declared)...)
		}
	}
	if r.ContainerName != "" && !selected {
		e := field.NotFound(path, r.ContainerName)
		e.Detail = "no container has the name that containerName selects, so its image cannot be checked"
		if declared != nil {
			e.Detail += " against " + declared.String()
		} else {
			e.Detail += " for a version tag"
		}
		if len(names) > 0 {
			e.Detail += "; containers: " + strings.Join(names, ", ")
		}
		out = append(out, findings(e)...)
	}
	return out
}

// checkImage compares one image reference with the declared version, or
// with nil checks that its tag carries a version.
func (r *ImageVersion) checkImage(path *field.Path, value any, declared *declaredVersion) []Finding {
	image, ok := value.(string)
	if !ok {
		return findings(field.TypeInvalid(path, value, "must be an image reference"))
	}
	ref := parseImage(image)
	if ref.err != nil {
		return findings(field.Invalid(path, image, "is not a valid image reference: "+ref.err.Error()))
	}
	if ref.hasDigest && ref.tag == "" && declared == nil {
		return []Finding{{
			Error:       field.Invalid(path, image, "is pinned by digest only, so it has no tag to carry a version; use name:tag@digest"),
			Enforcement: r.DigestOnly,
		}}
	}
	if ref.hasDigest && ref.tag == "" {
		return []Finding{{
			Error:       field.Invalid(path, image, fmt.Sprintf("is pinned by digest only, so its version cannot be checked against %s; use name:tag@digest", declared)),
			Enforcement: r.DigestOnly,
		}}
	}
	hasTag, tag := ref.tag != "", ref.tag
	if !hasTag {
		tag = "latest"
	}
	version := tag
	if r.TagPattern != nil {
		v, ok := r.TagPattern.Version(tag)
		if !ok && declared == nil {
			return findings(field.Invalid(path, image, fmt.Sprintf("image tag %s does not match tagPattern %s, so it carries no version", tag, r.TagPattern.Raw)))
		}
		if !ok {
			return findings(field.Invalid(path, image, fmt.Sprintf("image tag %s does not match tagPattern %s, so its version cannot be checked against %s", tag, r.TagPattern.Raw, declared)))
		}
		version = v
	}
	if declared == nil {
		return r.checkVersionTag(path, image, tag, hasTag, version)
	}
	agrees, why := r.agrees(version, declared)
	if agrees {
		return nil
	}
	msg := fmt.Sprintf("image tag %s does not match %s (compare: %s)", tag, declared, r.Compare)
	switch {
	case r.TagPattern != nil:
		msg = fmt.Sprintf("image tag %s holds version %s (tagPattern), which does not match %s (compare: %s)", tag, version, declared, r.Compare)
		why = strings.Replace(why, notSemverTag, "the version is not a semantic version", 1)
	case !hasTag:
		msg = fmt.Sprintf("has no tag, so it is %s, which does not match %s (compare: %s)", tag, declared, r.Compare)
		why = strings.TrimPrefix(why, notSemverTag) // "latest" is plainly no version
	}
	if why != "" {
		msg += "; " + why
	}
	if declared.isNumber {
		msg += fmt.Sprintf("; %s is the number %s: quote the version in YAML to keep it as written", declared.at, declared.value)
	}
	return findings(field.Invalid(path, image, msg))
}

// checkVersionTag demands that version, read from tag, is a semantic
// version, for a rule without versionPath.
func (r *ImageVersion) checkVersionTag(path *field.Path, image, tag string, hasTag bool, version string) []Finding {
	if _, err := ParseSemanticVersion(strings.Replace(version, "_", "+", 1)); err == nil {
		return nil
	}
	var msg string
	switch {
	case !hasTag:
		msg = "has no tag, so it is latest, which carries no version; tag the image with its version"
	case r.TagPattern != nil:
		msg = fmt.Sprintf("image tag %s holds %s (tagPattern), which is not a semantic version", tag, version)
	default:
		msg = fmt.Sprintf("image tag %s is not a semantic version, so it carries no version", tag)
	}
	return findings(field.Invalid(path, image, msg))
}

// agrees tells whether tag carries the declared version, and when it does
// not, what the mode allows, if that is not plain from the mode's name.
func (r *ImageVersion) agrees(tag string, declared *declaredVersion) (bool, string) {
	switch r.Compare {
	case v1alpha1.CompareExact:
		return tag == declared.value, ""
	case v1alpha1.CompareTagPrefix:
		// A variant follows a "-": "8.0.36-debian12" carries 8.0.36, but
		// "8.0.360" does not.
		return tagHasVersion(tag, declared.value), "allowed: " + declared.value + " or " + declared.value + "-<variant>"
	default:
		// Tags cannot hold "+", so registries and Helm write semver build
		// metadata after "_" instead: "8.0.36_build.6" is 8.0.36+build.6.
		v, err := ParseSemanticVersion(strings.Replace(tag, "_", "+", 1))
		if err != nil {
			return false, notSemverTag
		}
		return v.sameAs(*declared.semver), ""
	}
}

const notSemverTag = "the tag is not a semantic version"

// tagHasVersion is the TagPrefix comparison.
func tagHasVersion(tag, version string) bool {
	rest, ok := strings.CutPrefix(tag, version)
	return ok && (rest == "" || strings.HasPrefix(rest, "-"))
}

// scalarString reads a version written as a string or a number. Numbers
// are printed as the API server stores them: 8, 8.1.
func scalarString(v any) (s string, isNumber, ok bool) {
	switch v := v.(type) {
	case string:
		return v, false, true
	case int64:
		return strconv.FormatInt(v, 10), true, true
	case int:
		return strconv.Itoa(v), true, true
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), true, true
	}
	return "", false, false
}

// SemanticVersion is a semantic version that may leave out its minor and patch
// numbers ("16", "8.0"), as database versions and image tags often do.
type SemanticVersion struct {
	semver.Version
	// parts is how many of major, minor and patch were written.
	parts int
}

// versionRE accepts a "v" prefix and one to three numbers without leading
// zeros; semver.Parse then checks the pre-release and build identifiers.
var versionRE = regexp.MustCompile(`^v?(0|[1-9][0-9]*)(?:\.(0|[1-9][0-9]*))?(?:\.(0|[1-9][0-9]*))?((?:-[^+]*)?(?:\+.*)?)$`)

// ParseSemanticVersion parses a semantic version. Missing minor and patch numbers
// are zero for ordering; sameAs still tells "8.0" from "8.0.0".
func ParseSemanticVersion(s string) (SemanticVersion, error) {
	m := versionRE.FindStringSubmatch(s)
	if m == nil {
		return SemanticVersion{}, errors.New("not like 8.0.36 or v1.2.3-rc.1")
	}
	parts := 1
	numbers := []string{m[1], "0", "0"}
	for i, n := range m[2:4] {
		if n != "" {
			numbers[i+1], parts = n, i+2
		}
	}
	v, err := semver.Parse(strings.Join(numbers, ".") + m[4])
	if err != nil {
		return SemanticVersion{}, err
	}
	return SemanticVersion{Version: v, parts: parts}, nil
}

// sameAs is the Semver comparison: equal precedence (so build metadata
// does not count) written to the same precision. "8.0" is not "8.0.0": a
// tag 8.0 floats over every 8.0.x release, so it does not pin 8.0.0.
func (v SemanticVersion) sameAs(o SemanticVersion) bool {
	return v.parts == o.parts && v.Compare(o.Version) == 0
}
