package rules

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

// A transition's version may have a default and several places:
//   - defaultVersion is the version an absent value means, the operator's
//     default. An object that left the value out (RabbitMQ without
//     spec.image) is then judged on its next change, and removing the
//     value is judged as a change to the default, where without it the
//     first is no transition and the second a finding.
//   - alternatives are other places that hold the same version, for
//     operators that take it in one of several forms: CloudNativePG's
//     spec.imageName, or spec.imageCatalogRef.major, the major version
//     the catalog picks an image of. Each side's version is read from the
//     first place that is set. Versions of two different places compare
//     to the precision both write: the catalog's major 16 after the image
//     16.4 is no change, 15 is a downgrade and 17 a major step. Paths
//     with "[*]" would pair items of different lists, so neither the path
//     nor the alternatives may have one.

// VersionPlace is a place other than a transition's path that holds its
// version.
type VersionPlace struct {
	Path ObjectPath
	// ImageTag is set when the place holds an image reference.
	ImageTag *ImageTag
}

// versionAt is one side's value at one of a transition's places: 0 is
// its path, i the alternative i-1.
type versionAt struct {
	side  side
	tag   *ImageTag
	place int
}

// compileVersionPlaces reads defaultVersion and alternatives into t.
func (t *Transition) compileVersionPlaces(cfg *v1alpha1.FieldTransition, at *field.Path) field.ErrorList {
	var errs field.ErrorList
	versions := slices.Contains(versionChecks, cfg.Check)
	if cfg.DefaultVersion != "" {
		t.DefaultVersion = cfg.DefaultVersion
		if _, err := ParseSemanticVersion(cfg.DefaultVersion); err != nil {
			errs = append(errs, field.Invalid(at.Child("defaultVersion"), cfg.DefaultVersion, "is not a version (not an image reference): "+err.Error()))
		}
		if !versions {
			errs = append(errs, field.Forbidden(at.Child("defaultVersion"), fmt.Sprintf("may only be set for checks that compare versions (%s)", checkNames(versionChecks))))
		}
	}
	if len(cfg.Alternatives) == 0 {
		return errs
	}
	if !versions {
		errs = append(errs, field.Forbidden(at.Child("alternatives"), fmt.Sprintf("may only be set for checks that compare versions (%s)", checkNames(versionChecks))))
	}
	if t.Path.HasWildcard() {
		errs = append(errs, field.Forbidden(at.Child("alternatives"), fmt.Sprintf("may only be set for a path without [*]; path %s has one", cfg.Path)))
	}
	seen := []string{cfg.Path}
	for i, a := range cfg.Alternatives {
		aAt := at.Child("alternatives").Index(i)
		p, err := parsePath(a.Path)
		switch {
		case err != nil:
			errs = append(errs, field.Invalid(aAt.Child("path"), a.Path, err.Error()))
		case p.HasWildcard():
			errs = append(errs, field.Invalid(aAt.Child("path"), a.Path, "must name one value; [*] is not allowed"))
		case slices.Contains(seen, a.Path):
			errs = append(errs, field.Duplicate(aAt.Child("path"), a.Path))
		}
		seen = append(seen, a.Path)
		place := VersionPlace{Path: p}
		if a.ImageTag != nil {
			pattern, patternErrs := compileTagPattern(a.ImageTag.TagPattern, aAt.Child("imageTag", "tagPattern"))
			errs = append(errs, patternErrs...)
			place.ImageTag = &ImageTag{Pattern: pattern}
		}
		t.Alternatives = append(t.Alternatives, place)
	}
	return errs
}

func checkNames(checks []v1alpha1.TransitionCheck) string {
	names := ""
	for i, c := range checks {
		if i > 0 {
			names += ", "
		}
		names += string(c)
	}
	return names
}

// judgePlaces judges a transition with alternatives: each side's version
// is read from the first of its places that is set.
func (t *Transition) judgePlaces(oldObj, curObj map[string]any) field.ErrorList {
	old, cur := t.firstSet(oldObj), t.firstSet(curObj)
	if !old.side.found && t.DefaultVersion == "" {
		return nil // setting a version the first time is not a transition
	}
	if !cur.side.found && t.DefaultVersion == "" {
		return field.ErrorList{field.Required(cur.side.path, fmt.Sprintf("was %s at %s; %s does not allow removing it (set %s)", t.describe(old.side.value), old.side.path, t.Check, t.placeNames()))}
	}
	return t.compareVersions(old, cur)
}

// firstSet is obj's value at the first of the transition's places that
// is set; when none is, the path's, not found.
func (t *Transition) firstSet(obj map[string]any) versionAt {
	places := append([]VersionPlace{{Path: t.Path, ImageTag: t.ImageTag}}, t.Alternatives...)
	for i, p := range places {
		value, at, found := p.Path.get(obj)
		if found && value != nil {
			return versionAt{side: side{value: value, found: true, path: at}, tag: p.ImageTag, place: i}
		}
	}
	return versionAt{side: side{path: t.Path.FieldPath()}, tag: t.ImageTag}
}

// placeNames lists the transition's places for a message.
func (t *Transition) placeNames() string {
	names := t.Path.String()
	for _, a := range t.Alternatives {
		names += " or " + a.Path.String()
	}
	return names
}

// sameToPrecision tells whether a and b have the same numbers as far as
// both write them: 16 and 16.4 do, 16.4 and 16.5 do not.
func sameToPrecision(a, b SemanticVersion) bool {
	x := []uint64{a.Major, a.Minor, a.Patch}
	y := []uint64{b.Major, b.Minor, b.Patch}
	n := min(a.parts, b.parts)
	return slices.Equal(x[:n], y[:n])
}
