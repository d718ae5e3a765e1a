package app

import (
	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
	"github.com/crdguard/crdguard/pkg/schema/gotypes"
)

// enforcement is what a run does with a finding of severity s, by
// default: an error denies (exit 1), a warning warns, info is recorded.
// Severity says what a finding is (lint --severity, diff --min-severity,
// where a breaking change is an error); enforcement what is done about it
// (GuardPolicies, diff --config). docs/cli.md#severity-and-enforcement
// documents the mapping.
func enforcement(s gotypes.Severity) v1alpha1.Enforcement {
	switch s {
	case gotypes.Error:
		return v1alpha1.Deny
	case gotypes.Warning:
		return v1alpha1.Warn
	}
	return v1alpha1.Audit
}
