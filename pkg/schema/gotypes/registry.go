package gotypes

import "fmt"

// registry lists every check, one line each, in the order they run. It is
// explicit rather than built by init() side effects so that the set of
// checks is read in one place and a duplicate name fails at start-up.
var registry = register(
	// The Go type alone: struct tags and encoding/json's rules.
	missingJSONTag,
	jsonTagName,
	inlineNamedField,
	duplicateJSONName,
	ignoredField,
	unsupportedType,
	opaqueType,
	// Zero values and required fields: the schema's view when there is a
	// CRD, the markers' otherwise.
	zeroValueDefault,
	zeroNumberDefault,
	emptyStringDefault,
	zeroValueOmitted,
	requiredOmitempty,
	structAlwaysSent,
	// The Go type against the CRD's structural schema.
	missingCRD,
	prunedField,
	unvalidatedField,
	schemaOnlyField,
	typeMismatch,
	markerRequiredMismatch,
)

func register(checks ...*Check) []*Check {
	seen := map[string]bool{}
	for _, c := range checks {
		if seen[c.Name] {
			panic(fmt.Sprintf("gotypes: check %q registered twice", c.Name))
		}
		seen[c.Name] = true
	}
	return checks
}

// Checks returns every check in registry order.
func Checks() []*Check {
	return append([]*Check(nil), registry...)
}

// CheckByName returns the check named name, or nil.
func CheckByName(name string) *Check {
	for _, c := range registry {
		if c.Name == name {
			return c
		}
	}
	return nil
}
