package gotypes

import (
	"context"
	"encoding/json"
	"go/types"
	"strconv"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
)

// validateValue validates a JSON value against a schema as the API server
// validates a custom resource: its OpenAPI schema validator, built by the
// same constructor from the same JSONSchemaProps (unsupported formats
// stripped), then the x-kubernetes-validations CEL rules. Transition rules
// (oldSelf) do not run, as on a create. A schema that cannot be rebuilt
// rejects nothing.
func validateValue(s *Structural, v any) field.ErrorList {
	// The structural schema goes back to JSONSchemaProps through JSON,
	// the schema's own wire form, so that no validator is built any other
	// way than the server builds it.
	raw, err := json.Marshal(s.ToKubeOpenAPI())
	if err != nil {
		return nil
	}
	var v1 apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal(raw, &v1); err != nil {
		return nil
	}
	var props apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, &props, nil); err != nil {
		return nil
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(&props)
	if err != nil {
		return nil
	}
	errs := apiservervalidation.ValidateCustomResource(nil, v, validator)
	if c := cel.NewValidator(s, false, celconfig.PerCallLimit); c != nil {
		celErrs, _ := c.Validate(context.Background(), nil, s, v, nil, celconfig.RuntimeCELCostBudget)
		errs = append(errs, celErrs...)
	}
	return errs
}

// markerSchema is the schema controller-gen generates for a scalar of kind k
// from the value validation markers in m, nil without any. CEL rules
// (XValidation) are left out: without a CRD only the OpenAPI constraints are
// judged.
func markerSchema(m Markers, k types.BasicKind) *Structural {
	const prefix = "kubebuilder:validation:"
	props := &apiextensions.JSONSchemaProps{Type: jsonType(k)}
	found := false
	number := func(name string) *float64 {
		v, ok := m.Value(prefix + name)
		if !ok {
			return nil
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil
		}
		found = true
		return &f
	}
	count := func(name string) *int64 {
		v, ok := m.Value(prefix + name)
		if !ok {
			return nil
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil
		}
		found = true
		return &n
	}
	flag := func(name string) bool {
		v, ok := m.Value(prefix + name)
		return ok && (v == "" || v == "true")
	}
	text := func(name string) string {
		v, ok := m.Value(prefix + name)
		if !ok {
			return ""
		}
		if u, err := strconv.Unquote(v); err == nil {
			v = u
		}
		found = found || v != ""
		return v
	}
	props.Minimum, props.Maximum, props.MultipleOf = number("Minimum"), number("Maximum"), number("MultipleOf")
	props.ExclusiveMinimum, props.ExclusiveMaximum = flag("ExclusiveMinimum"), flag("ExclusiveMaximum")
	props.MinLength, props.MaxLength = count("MinLength"), count("MaxLength")
	props.Pattern, props.Format = text("Pattern"), text("Format")
	if v, ok := m.Value(prefix + "Enum"); ok {
		for _, e := range strings.Split(v, ";") {
			props.Enum = append(props.Enum, enumItem(strings.TrimSpace(e), k))
		}
		found = true
	}
	if !found {
		return nil
	}
	s, err := structuralschema.NewStructural(props)
	if err != nil {
		return nil
	}
	return s
}

func jsonType(k types.BasicKind) string {
	switch {
	case k == types.Bool:
		return "boolean"
	case k == types.String:
		return "string"
	case k >= types.Float32 && k <= types.Float64:
		return "number"
	}
	return "integer"
}

// enumItem reads one value of an Enum marker as controller-gen does: a
// quoted string, or a literal of the field's type.
func enumItem(e string, k types.BasicKind) apiextensions.JSON {
	if u, err := strconv.Unquote(e); err == nil {
		return u
	}
	switch k {
	case types.Bool:
		if b, err := strconv.ParseBool(e); err == nil {
			return b
		}
	case types.String:
	default:
		if n, err := strconv.ParseInt(e, 10, 64); err == nil {
			return n
		}
		if f, err := strconv.ParseFloat(e, 64); err == nil {
			return f
		}
	}
	return e
}
