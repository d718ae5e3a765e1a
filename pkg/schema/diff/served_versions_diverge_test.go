package diff

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// twoVersionsCRD serves v1beta1 and v1 (storage) with the same schema, as
// a CRD usually does while a version is being phased out.
const twoVersionsCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  versions:
  - name: v1beta1
    served: true
    storage: false
    schema:
      openAPIV3Schema: &schema
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: string}
              ports: {type: array, items: {type: object, properties: {name: {type: string}, port: {type: integer}}}}
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: *schema
`

func TestServedVersionsDiverge(t *testing.T) {
	type crd = apiextensionsv1.CustomResourceDefinition
	spec := func(c *crd, version int) *apiextensionsv1.JSONSchemaProps {
		// A deep copy to edit and put back with setSpec: a map value
		// cannot be changed in place, and a shallow copy shares its maps.
		s := c.Spec.Versions[version].Schema.OpenAPIV3Schema.Properties["spec"]
		return s.DeepCopy()
	}
	setSpec := func(c *crd, version int, s *apiextensionsv1.JSONSchemaProps) {
		c.Spec.Versions[version].Schema.OpenAPIV3Schema.Properties["spec"] = *s
	}
	removeSize := func(c *crd, version int) {
		s := spec(c, version)
		delete(s.Properties, "size")
		setSpec(c, version, s)
	}
	addColor := func(c *crd, version int) {
		s := spec(c, version)
		s.Properties["color"] = apiextensionsv1.JSONSchemaProps{Type: "string"}
		setSpec(c, version, s)
	}
	const v0, v1 = "spec.versions[0].schema.openAPIV3Schema.properties.spec", "spec.versions[1].schema.openAPIV3Schema.properties.spec"
	tests := []crdCase{
		{name: "field removed from the served version only", new: func(c *crd) { removeSize(c, 0) }, want: []string{
			"breaking served-versions-diverge v1 " + v1 + ".properties.size in v1 and v1beta1 → in v1 (storage), not in v1beta1",
			"breaking field-removed v1beta1 " + v0 + ".properties.size string → <none>",
		}},
		{name: "field removed from the storage version only", new: func(c *crd) { removeSize(c, 1) }, want: []string{
			"breaking served-versions-diverge v1beta1 " + v0 + ".properties.size in v1 and v1beta1 → in v1beta1, not in v1 (storage)",
			"breaking field-removed v1 " + v1 + ".properties.size string → <none>",
		}},
		// The same in both versions: lost, but the same in every version,
		// which field-removed reports.
		{name: "field removed from both", new: func(c *crd) { removeSize(c, 0); removeSize(c, 1) }, want: []string{
			"breaking field-removed v1beta1 " + v0 + ".properties.size string → <none>",
			"breaking field-removed v1 " + v1 + ".properties.size string → <none>",
		}},
		{name: "field added to the storage version only", new: func(c *crd) { addColor(c, 1) }, want: []string{
			"breaking served-versions-diverge v1 " + v1 + ".properties.color <none> → in v1 (storage), not in v1beta1",
			"info field-added v1 " + v1 + ".properties.color <none> → string",
		}},
		{name: "field added to both", new: func(c *crd) { addColor(c, 0); addColor(c, 1) }, want: []string{
			"info field-added v1beta1 " + v0 + ".properties.color <none> → string",
			"info field-added v1 " + v1 + ".properties.color <none> → string",
		}},
		{name: "inside array items", new: func(c *crd) {
			s := spec(c, 0)
			delete(s.Properties["ports"].Items.Schema.Properties, "port")
			setSpec(c, 0, s)
		}, want: []string{
			"breaking served-versions-diverge v1 " + v1 + ".properties.ports.items.properties.port in v1 and v1beta1 → in v1 (storage), not in v1beta1",
			"breaking field-removed v1beta1 " + v0 + ".properties.ports.items.properties.port integer → <none>",
		}},
		{name: "webhook conversion may carry it", old: func(c *crd) { c.Spec.Conversion = webhookConversion() }, new: func(c *crd) {
			c.Spec.Conversion = webhookConversion()
			removeSize(c, 0)
		}, want: []string{
			"warning served-versions-diverge v1 " + v1 + ".properties.size in v1 and v1beta1 → in v1 (storage), not in v1beta1",
			"breaking field-removed v1beta1 " + v0 + ".properties.size string → <none>",
		}},
		// Already so in the old CRD: not news, so not reported again.
		{name: "divergence already there", old: func(c *crd) { removeSize(c, 0) }, new: func(c *crd) { removeSize(c, 0) }},
		// The served version keeps unknown fields: nothing is pruned.
		{name: "kept as unknown", new: func(c *crd) {
			s := spec(c, 0)
			delete(s.Properties, "size")
			s.XPreserveUnknownFields = new(true)
			setSpec(c, 0, s)
		}, want: []string{
			"warning field-removed v1beta1 " + v0 + ".properties.size string → <none>",
			"info preserve-unknown-fields-changed v1beta1 " + v0 + ".x-kubernetes-preserve-unknown-fields false → true",
		}},
		// Nobody reads or writes through a version that is not served:
		// only objects still stored in it meet its schema.
		{name: "not served", old: func(c *crd) { c.Spec.Versions[0].Served = false }, new: func(c *crd) {
			c.Spec.Versions[0].Served = false
			removeSize(c, 0)
		}, want: []string{
			"warning field-removed v1beta1 " + v0 + ".properties.size string → <none>",
		}},
	}
	runCRDCases(t, twoVersionsCRD, tests)
}

func webhookConversion() *apiextensionsv1.CustomResourceConversion {
	return &apiextensionsv1.CustomResourceConversion{
		Strategy: apiextensionsv1.WebhookConverter,
		Webhook:  &apiextensionsv1.WebhookConversion{ConversionReviewVersions: []string{"v1"}},
	}
}
