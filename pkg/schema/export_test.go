package schema

// FastSchemaVerdict evaluates value with v's compiled schema check and with
// kube-openapi's validator alone: whether the check accepts it for certain,
// and the errors upstream reports.
func FastSchemaVerdict(v *Validator, value any) (fastValid bool, upstreamErrs []error) {
	return v.fastSchema.check.eval(value) == valid, v.fastSchema.upstream.Validate(value).Errors
}

// FastSchemaDecided tells whether v's compiled schema check gives value a
// definite answer, valid or invalid.
func FastSchemaDecided(v *Validator, value any) bool {
	return v.fastSchema.check.eval(value) != unknown
}
