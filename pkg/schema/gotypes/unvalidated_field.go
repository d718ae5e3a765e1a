package gotypes

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// unvalidatedField: under x-kubernetes-preserve-unknown-fields an
// undeclared field survives, but no schema validates it: any value, of any
// type, is stored, and the controller has to cope with it.
var unvalidatedField = &Check{
	Name:     "unvalidated-field",
	Doc:      "A field the Go type writes that the schema does not declare, under x-kubernetes-preserve-unknown-fields: it is stored but never validated.",
	Severity: Warning,
	Type:     field.ErrorTypeNotFound,
	NeedsCRD: true,
	Run: func(p *Pass) {
		for _, s := range p.Sites {
			if s.Kind != FieldSite || s.Implicit || s.Parent == nil || s.Schema != nil || !s.Parent.XPreserveUnknownFields {
				continue
			}
			p.Report(s, "declare the property in the schema",
				"%s is written as %s, which the schema keeps (x-kubernetes-preserve-unknown-fields) but does not declare: its value is never validated", s.GoName, s.Path)
		}
	},
}
