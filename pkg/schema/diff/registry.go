package diff

import "fmt"

// crdChecks and propertyChecks are the registry: one line per check, in the
// order their changes are reported. No init() side effects: what runs is
// what is listed here.
var (
	crdChecks = register(
		scopeChanged,
		versionRemoved,
		versionAdded,
		versionUnserved,
		storageVersionMoved,
		servedVersionsDiverge,
		storedVersionRemoved,
		namesChanged,
		nameAliasesChanged,
		subresourcesChanged,
		conversionChanged,
		printerColumnsChanged,
		selectableFieldsChanged,
		deprecationChanged,
		metadataChanged,
	)
	propertyChecks = register(
		fieldRemoved,
		fieldAdded,
		typeChanged,
		enumValueRemoved,
		enumIntroduced,
		enumValueAdded,
		requiredChanged,
		defaultChanged,
		maximumChanged,
		minimumChanged,
		patternChanged,
		formatChanged,
		nullableChanged,
		uniqueItemsChanged,
		listTypeChanged,
		preserveUnknownFieldsChanged,
		intOrStringChanged,
		embeddedResourceChanged,
		additionalPropertiesChanged,
		validationRulesChanged,
		descriptionChanged,
	)
	// propertyClaims is the union of the property checks' claims.
	propertyClaims = func() map[string]bool {
		claims := map[string]bool{}
		for _, c := range propertyChecks {
			for _, k := range c.Claims {
				claims[k] = true
			}
		}
		return claims
	}()
)

// names holds every registered name, across both lists and the catch-all,
// so that a name means one check everywhere (Config, waivers, reports).
var names = map[string]bool{Unclassified.Name: true}

// register returns checks after making sure each is well formed and its
// name is unique; a mistake here is a programming error, found by any test.
func register(checks ...Check) []Check {
	for _, c := range checks {
		if names[c.Name] {
			panic(fmt.Sprintf("diff: check %q registered twice", c.Name))
		}
		if (c.CRD == nil) == (c.Property == nil) {
			panic(fmt.Sprintf("diff: check %q must set exactly one of CRD and Property", c.Name))
		}
		names[c.Name] = true
	}
	return checks
}

// Checks lists every check, the catch-all last, for help text and docs.
func Checks() []Check {
	all := append(append([]Check{}, crdChecks...), propertyChecks...)
	all = append(all, additionalChecks...)
	return append(all, Unclassified)
}

// IsCheck tells whether name is a registered check.
func IsCheck(name string) bool { return names[name] }
