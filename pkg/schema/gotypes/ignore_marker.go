package gotypes

import (
	"errors"
	"fmt"
	"go/token"
	"slices"
	"sort"
	"strings"
)

// ignoreMarker silences checks at one declaration, on purpose and with a
// reason a reviewer reads, so that nobody turns a check off for a whole
// API to quiet one field:
//
//	// +crdguard:lint:ignore=zero-number-default 0 is never a valid UID here
//	PostgresUID int64 `json:"postgresUID,omitempty"`
//
// It applies to findings at the field (or type) it marks and, for a
// third-party type the field holds, to the findings below it.
const ignoreMarker = "crdguard:lint:ignore"

// parseIgnore splits an ignore marker's value into check names and reason.
func parseIgnore(value string) (checks []string, reason string) {
	names, reason, _ := strings.Cut(strings.TrimSpace(value), " ")
	return strings.Split(names, ","), strings.TrimSpace(reason)
}

// ignores tells whether a marker on one of the site's declarations (its
// field, its object's type, or the anchor in the kind's module) silences
// check.
func (s *Site) ignores(check string) bool {
	sets := []Markers{s.anchorMarkers}
	if s.Field != nil {
		sets = append(sets, s.Field.Markers)
	}
	if s.Kind == ObjectSite && s.Shape != nil && s.Shape.Decl != nil {
		sets = append(sets, s.Shape.Decl.markers)
	}
	for _, m := range sets {
		for _, v := range m[ignoreMarker] {
			if checks, _ := parseIgnore(v); slices.Contains(checks, check) {
				return true
			}
		}
	}
	return false
}

// checkIgnoreMarkers fails closed on an ignore marker that would silence
// nothing or say nothing: an unknown check name, or no reason.
func checkIgnoreMarkers(d *pkgDecls) error {
	var errs []error
	check := func(pos token.Position, m Markers) {
		for _, v := range m[ignoreMarker] {
			checks, reason := parseIgnore(v)
			for _, c := range checks {
				if CheckByName(c) == nil {
					errs = append(errs, fmt.Errorf("%s: +%s names no check %q", pos, ignoreMarker, c))
				}
			}
			if reason == "" {
				errs = append(errs, fmt.Errorf("%s: +%s=%s gives no reason: write it after the check names", pos, ignoreMarker, v))
			}
		}
	}
	names := make([]string, 0, len(d.types))
	for name := range d.types {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t := d.types[name]
		check(t.pos, t.markers)
		fields := make([]*fieldDecl, 0, len(t.fields))
		for _, f := range t.fields {
			fields = append(fields, f)
		}
		slices.SortFunc(fields, func(a, b *fieldDecl) int { return a.pos.Line - b.pos.Line })
		for _, f := range fields {
			check(f.pos, f.markers)
		}
	}
	return errors.Join(errs...)
}
