package vap

import (
	"fmt"
	"strings"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/policies/internal/rules"
)

// This file writes each compiled check's static message: its message with
// Summaries, and with Findings what kube-apiserver prints when the findings
// cannot be (a messageExpression over 5 KiB or one that fails). It names
// the field and what is allowed, in the "path: type: detail" form of a
// finding, so that the message still says where to look.

// summary is "path: type: allowed" for the first path a check looks at,
// naming the others after it: one path first, as a finding has it.
func summary(paths []rules.ObjectPath, errorType, allowed string) string {
	if len(paths) == 0 {
		return "<nil>: " + errorType + ": " + allowed
	}
	var others []string
	for _, p := range paths[1:] {
		others = append(others, p.String())
	}
	if len(others) > 0 {
		allowed += " (also at " + strings.Join(others, ", ") + ")"
	}
	return paths[0].String() + ": " + errorType + ": " + allowed
}

// resourcesSummary names a resources rule's places and its requirements.
func resourcesSummary(r *rules.Resources) string {
	var allowed []string
	if len(r.RequireRequests) > 0 && r.RequestsWritten {
		allowed = append(allowed, "requests written out required for "+strings.Join(r.RequireRequests, ", "))
	} else if len(r.RequireRequests) > 0 {
		allowed = append(allowed, "requests required for "+strings.Join(r.RequireRequests, ", "))
	}
	if len(r.RequireLimits) > 0 {
		allowed = append(allowed, "limits required for "+strings.Join(r.RequireLimits, ", "))
	}
	for _, b := range r.Ratios {
		allowed = append(allowed, fmt.Sprintf("limits.%[1]s over requests.%[1]s allowed %[2]s", b.Resource, b.Describe()))
	}
	for _, b := range r.RequestBounds {
		allowed = append(allowed, fmt.Sprintf("requests.%s allowed %s", b.Resource, b.Describe()))
	}
	for _, b := range r.LimitBounds {
		allowed = append(allowed, fmt.Sprintf("limits.%s allowed %s", b.Resource, b.Describe()))
	}
	for _, g := range r.AnyOf {
		var sets []string
		for _, name := range g.Requests {
			sets = append(sets, "requests."+name)
		}
		for _, name := range g.Limits {
			sets = append(sets, "limits."+name)
		}
		allowed = append(allowed, strings.Join(sets, ", ")+" required at one of its places")
	}
	paths := r.Paths
	if r.Preset != "" {
		// The preset's paths depend on the kind: the summary describes them.
		places := "every container's and init container's resources (the " + string(r.Preset) + " preset)"
		if len(paths) == 0 {
			return summary(nil, "Invalid value", strings.Join(allowed, "; ")+", at "+places)
		}
		paths = append(paths[:len(paths):len(paths)], rules.ObjectPath{Raw: places})
	}
	return summary(paths, "Invalid value", strings.Join(allowed, "; "))
}

// imageVersionSummary names the images a rule checks and the version they
// must carry.
func imageVersionSummary(r *rules.ImageVersion, digestOnly bool) string {
	paths := r.ImagePaths
	if r.ContainersPath != nil {
		paths = append(paths[:len(paths):len(paths)], rules.ObjectPath{Raw: r.ContainersPath.String() + "[*].image"})
	}
	if digestOnly {
		return summary(paths, "Invalid value", "an image pinned by digest only has no tag to check against "+r.VersionPath.String()+"; use name:tag@digest")
	}
	allowed := fmt.Sprintf("the image tag must match %s (compare: %s)", r.VersionPath, r.Compare)
	if r.VersionAbsent == v1alpha1.DenyVersionAbsent {
		allowed += ", which must be set when an image is"
	}
	return summary(paths, "Invalid value", allowed)
}

// transitionSummary names a transition's path and what may change.
func transitionSummary(t *rules.Transition) string {
	var allowed string
	switch t.Check {
	case v1alpha1.Immutable:
		allowed = "is immutable once set"
	case v1alpha1.NoDecrease:
		allowed = "may not decrease"
	case v1alpha1.NoIncrease:
		allowed = "may not increase"
	case v1alpha1.NoDowngrade:
		allowed = "may not be downgraded"
	case v1alpha1.NoRemoval:
		allowed = "no item or key may be removed"
	case v1alpha1.MaxMinorSkip:
		allowed = fmt.Sprintf("an upgrade may skip at most %d minor versions", t.MaxMinorSkip)
		if t.MaxMajorSkip != nil {
			allowed += fmt.Sprintf(" and %d major versions", *t.MaxMajorSkip)
		}
	case v1alpha1.MaxMajorSkip:
		allowed = fmt.Sprintf("an upgrade may skip at most %d major versions", *t.MaxMajorSkip)
	case v1alpha1.UpgradePath:
		allowed = "an upgrade may take only the steps of upgradePaths, or stay within its minor version"
	default:
		allowed = string(t.Check)
	}
	return summary([]rules.ObjectPath{t.Path}, "Invalid value", allowed+" (check: "+string(t.Check)+")")
}

// deletionSummary is a deletion rule's message, or its condition.
func deletionSummary(d *rules.Deletion) string {
	msg := d.Message
	if msg == "" {
		msg = "deleting is not allowed"
		if d.Condition != nil {
			msg += " while " + strings.ReplaceAll(strings.TrimSpace(d.Condition.Expression), "\n", " ")
		}
	}
	return summary(nil, "Forbidden", msg)
}
