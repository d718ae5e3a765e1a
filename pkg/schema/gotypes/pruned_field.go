package gotypes

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// prunedField: a field the Go type writes and the schema does not declare.
// The API server prunes it on every write, so the controller reads back a
// zero value, and nobody is told.
//
// Fields the API server sets are exempt where they sit in a template rather
// than in a stored object: the ObjectMeta fields outside controller-gen's
// embedded subset (uid, resourceVersion, ownerReferences, ...) and the
// status of an embedded Kubernetes object (a PersistentVolumeClaim
// template's). Nobody writes them there, so pruning them loses nothing, and
// no regenerated CRD would declare them.
var prunedField = &Check{
	Name:     "pruned-field",
	Doc:      "A field the Go type writes that the schema does not declare: the API server prunes it on every write and the controller reads back its zero value.",
	Severity: Error,
	Type:     field.ErrorTypeForbidden,
	NeedsCRD: true,
	Run: func(p *Pass) {
		for _, s := range p.Sites {
			switch {
			case s.Kind == FieldSite && !s.Implicit && s.Parent != nil && s.Schema == nil &&
				!s.Parent.XPreserveUnknownFields && declaresFields(s.Parent) && !serverSetInTemplate(s):
				p.Report(s, "regenerate the CRD, or add the property to its schema",
					"%s is written as %s, but the schema does not declare it: the API server prunes it on every write", s.GoName, s.Path)
			case s.Kind == ObjectSite && s.Field != nil && s.Schema != nil && s.Schema.Type == "object" && !declaresFields(s.Schema) &&
				!s.Schema.XPreserveUnknownFields && hasExplicitFields(s):
				// One finding for the object rather than one per field.
				at := *s
				at.Pos, at.GoName = s.Field.Pos, goName(s.Field)
				hint := "declare its properties in the schema, or mark it x-kubernetes-preserve-unknown-fields (or x-kubernetes-embedded-resource)"
				if isObjectMeta(s.Shape) {
					hint = "generate the CRD with controller-gen's crd:generateEmbeddedObjectMeta=true, which declares name, namespace, labels, annotations and finalizers"
				}
				p.Report(&at, hint,
					"%s is a %s, but the schema declares an object without properties: the API server prunes every field of it", at.GoName, s.Shape.GoType)
			}
		}
	},
}

// declaresFields tells whether an object schema names any property, or
// accepts any through additionalProperties.
func declaresFields(s *Structural) bool {
	return len(s.Properties) > 0 || s.AdditionalProperties != nil
}

// hasExplicitFields tells whether an object writes fields other than those
// the API server owns on an embedded resource.
func hasExplicitFields(s *Site) bool {
	for _, f := range s.Shape.Fields {
		if !(s.Schema.XEmbeddedResource && implicitRootFields[f.JSONName]) {
			return true
		}
	}
	return false
}

// embeddedMetaFields are the ObjectMeta properties controller-gen declares
// for an embedded ObjectMeta (crd:generateEmbeddedObjectMeta=true): the ones
// a user writes in a template.
var embeddedMetaFields = map[string]bool{"name": true, "namespace": true, "labels": true, "annotations": true, "finalizers": true}

// serverSetInTemplate tells whether a field site is one the API server sets
// on a stored object, inside an object that is not stored itself: an
// embedded ObjectMeta's uid or managedFields, or a template's status.
func serverSetInTemplate(s *Site) bool {
	switch {
	case isObjectMeta(s.Object):
		return !embeddedMetaFields[s.Field.JSONName]
	case s.Field.JSONName == "status":
		return s.Path != "status" && isResource(s.Object)
	}
	return false
}

func isObjectMeta(sh *Shape) bool {
	return sh != nil && sh.Name != nil && typeKey(sh.Name) == metav1Pkg+".ObjectMeta"
}

// isResource tells whether an object shape is a Kubernetes object of its
// own: it writes kind and an ObjectMeta as metadata.
func isResource(sh *Shape) bool {
	var kind, meta bool
	for _, f := range sh.Fields {
		kind = kind || f.JSONName == "kind"
		meta = meta || (f.JSONName == "metadata" && isObjectMeta(f.Shape))
	}
	return kind && meta
}
