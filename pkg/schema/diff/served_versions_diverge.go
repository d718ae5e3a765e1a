package diff

import (
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// servedVersionsDiverge compares versions with each other rather than with
// their old selves: the other checks see a field removed from v1beta1 only
// as a change to v1beta1, but with v1 still declaring it the real damage is
// on the round trip between the two. The API server prunes a request
// against the schema of the version it is written in and a stored object
// against the storage version's, so a field the storage version declares
// and another served version does not is dropped when an object is written
// back through that version, and one that only the other version declares
// is dropped on the way to storage.
//
// Only divergences the old CRD did not already have are reported, so that
// versions that always differed (a v1alpha1 kept for reads, say) do not
// raise the same finding on every upgrade. The check claims nothing: the
// fields it looks at are the schema walk's and the version checks'.
var servedVersionsDiverge = Check{
	Name: "served-versions-diverge",
	Doc:  "a served version no longer declares a field the storage version does, or the other way round (lost on round trips)",
	CRD: func(p *CRDPair) []Change {
		storage := storageVersion(p.New.Spec.Versions)
		sv, si := p.NewVersion(storage)
		if sv == nil || schemaOf(sv) == nil {
			return nil
		}
		// A conversion webhook can carry a field across versions (the
		// Kubernetes convention is an annotation), which None cannot: the
		// divergence is then the webhook's to handle, not certain loss.
		impact := Breaking
		if c := p.New.Spec.Conversion; c != nil && c.Strategy == apiextensionsv1.WebhookConverter {
			impact = Warning
		}
		var out []Change
		for i := range p.New.Spec.Versions {
			v := &p.New.Spec.Versions[i]
			if v.Name == storage || !v.Served || schemaOf(v) == nil {
				continue
			}
			// The old CRD's divergences between its own storage version and
			// this one: when the storage version moved, what was lost on
			// writes through v is not what is lost now.
			before := map[string]bool{}
			oldStorage := storageVersion(p.Old.Spec.Versions)
			if s, o := oldSchema(p, oldStorage), oldSchema(p, v.Name); oldStorage != v.Name && s != nil && o != nil {
				for _, d := range divergences(s, o, nil) {
					before[d.key()] = true
				}
			}
			for _, d := range divergences(schemaOf(sv), schemaOf(v), nil) {
				if before[d.key()] {
					continue
				}
				out = append(out, divergenceChange(p, d, impact, storage, si, v.Name, i))
			}
		}
		return out
	},
}

// divergence is a field one of two versions declares and the other does
// not, at the topmost such node: what lies below it differs too, and says
// nothing more.
type divergence struct {
	// path is the field's place below openAPIV3Schema.
	path []schemaStep
	// inStorage: the storage version declares it, the other does not.
	inStorage bool
}

func (d divergence) key() string {
	var b strings.Builder
	if d.inStorage {
		b.WriteString("storage")
	} else {
		b.WriteString("other")
	}
	for _, s := range d.path {
		b.WriteString("\x00" + s.keyword + "\x00" + s.name)
	}
	return b.String()
}

// fieldPath is the divergence's path below root.
func (d divergence) fieldPath(root *field.Path) *field.Path {
	p := root
	for _, step := range d.path {
		p = step.path(p)
	}
	return p
}

// divergences walks the storage and the other version's schemas together
// through properties, items and additionalProperties. A field missing under
// a node that keeps unknown fields is stored all the same, so it is no
// divergence.
func divergences(storage, other *apiextensionsv1.JSONSchemaProps, at []schemaStep) []divergence {
	var out []divergence
	missing := func(from, in *apiextensionsv1.JSONSchemaProps, inStorage bool) {
		if in.XPreserveUnknownFields != nil && *in.XPreserveUnknownFields {
			return
		}
		for _, name := range sortedKeys(from.Properties) {
			if len(at) == 0 && alwaysKept[name] {
				continue
			}
			if _, ok := in.Properties[name]; !ok {
				out = append(out, divergence{path: append(clone(at), schemaStep{"properties", name}), inStorage: inStorage})
			}
		}
	}
	missing(storage, other, true)
	missing(other, storage, false)
	for _, c := range commonChildren(storage, other) {
		out = append(out, divergences(c.a, c.b, append(clone(at), c.schemaStep))...)
	}
	return out
}

// alwaysKept are the root fields the API server never prunes, declared or
// not.
var alwaysKept = map[string]bool{"apiVersion": true, "kind": true, "metadata": true}

func clone(steps []schemaStep) []schemaStep {
	return append([]schemaStep(nil), steps...)
}

func divergenceChange(p *CRDPair, d divergence, impact Impact, storage string, storageIndex int, other string, otherIndex int) Change {
	// The path is the field's in the version that has it, and Version that
	// version's, as for every change: the path's version index and Version
	// name the same version.
	version, has, lacks, index := other, other, storage+" (storage)", otherIndex
	if d.inStorage {
		version, has, lacks, index = storage, storage+" (storage)", other, storageIndex
	}
	ch := Change{
		Impact: impact, Version: version,
		Path: d.fieldPath(versionsPath.Index(index).Child("schema", "openAPIV3Schema")).String(),
		New:  "in " + has + ", not in " + lacks,
	}
	// Say what the old CRD had, when both versions declared the field
	// there: the usual cause is a field removed from one version only.
	if oldS, oldO := oldSchema(p, storage), oldSchema(p, other); oldS != nil && oldO != nil && declares(oldS, d.path) && declares(oldO, d.path) {
		ch.Old = "in " + storage + " and " + other
	}
	if d.inStorage {
		ch.Message = "objects written back through " + other + " lose this field: the API server prunes what " + other + " does not declare"
	} else {
		ch.Message = "values set through " + other + " are lost: the storage version " + storage + " does not declare this field and stored objects are pruned to its schema"
	}
	if impact != Breaking {
		ch.Message += ", unless the conversion webhook carries it across"
	}
	return ch
}

func oldSchema(p *CRDPair, version string) *apiextensionsv1.JSONSchemaProps {
	v, _ := p.OldVersion(version)
	if v == nil {
		return nil
	}
	return schemaOf(v)
}

// declares tells whether s has the field at path.
func declares(s *apiextensionsv1.JSONSchemaProps, path []schemaStep) bool {
	for _, step := range path {
		if s = step.in(s); s == nil {
			return false
		}
	}
	return true
}

func schemaOf(v *apiextensionsv1.CustomResourceDefinitionVersion) *apiextensionsv1.JSONSchemaProps {
	if v.Schema == nil {
		return nil
	}
	return v.Schema.OpenAPIV3Schema
}
