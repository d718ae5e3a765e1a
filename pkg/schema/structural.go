package schema

import (
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
)

// StructuralSchema returns the structural schema of one version of crd, the
// form the API server prunes, defaults and validates with. It is the one a
// Validator is built on, before the Validator prunes its defaults.
func StructuralSchema(crd *apiextensionsv1.CustomResourceDefinition, version string) (*structuralschema.Structural, error) {
	_, structural, err := versionSchema(crd, version)
	return structural, err
}

// versionSchema returns one version's schema in the internal form the
// server's OpenAPI validators take, and the structural schema built from it
// with the server's calls.
func versionSchema(crd *apiextensionsv1.CustomResourceDefinition, version string) (*apiextensions.JSONSchemaProps, *structuralschema.Structural, error) {
	v1Validation, err := apihelpers.GetSchemaForVersion(crd, version)
	if err != nil {
		return nil, nil, err
	}
	if v1Validation == nil || v1Validation.OpenAPIV3Schema == nil {
		return nil, nil, fmt.Errorf("CustomResourceDefinition %q version %s has no schema", crd.Name, version)
	}
	validation := &apiextensions.CustomResourceValidation{}
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v1Validation, validation, nil); err != nil {
		return nil, nil, err
	}
	structural, err := structuralschema.NewStructural(validation.OpenAPIV3Schema)
	if err != nil {
		return nil, nil, fmt.Errorf("CustomResourceDefinition %q version %s: %w", crd.Name, version, err)
	}
	return validation.OpenAPIV3Schema, structural, nil
}
