package vap

// compileDefaults: a ValidatingAdmissionPolicy only validates. The mutating
// webhook keeps filling defaults, and admission runs it before any
// ValidatingAdmissionPolicy, so compiled checks see the defaulted object.
func compileDefaults() ([]ruleCEL, error) {
	return nil, needsWebhook("defaults patch the object; a ValidatingAdmissionPolicy cannot mutate (the mutating webhook keeps this rule, and runs before ValidatingAdmissionPolicies)")
}
