package diff

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Check is one classification rule. A check reports severities, never
// whether the run fails: enforcement comes from Config and is applied by
// the caller.
//
// A registered check sets exactly one of CRD and Property. The catch-all
// and the checks on sets of CRDs set neither: the runner and MatchCRDs find
// what they report.
type Check struct {
	// Name is the check id ("field-removed"), as in "diff/<name>" in reports
	// and in Config.
	Name string
	// Doc says in one line what the check reports.
	Doc string
	// Claims are the fields the check explains. A check must report every
	// difference in the fields it claims (a compatible one at Info):
	// claimed fields are exactly the ones the unclassified catch-all no
	// longer looks at.
	//
	// For CRD checks a claim is a dot-separated path into the CRD, with the
	// versions keyed by name ("spec.versions.*.served"); "*" matches any one
	// segment, and a trailing "?" claims only a node's presence (a version
	// added or removed), not the changes within it. For property checks a
	// claim is a keyword of one schema node ("maxLength").
	Claims []string
	// CRD reports the changes of a CRD as a whole. The runner fills in
	// Change.Check and Change.CRD.
	CRD func(p *CRDPair) []Change
	// Property reports the changes of one schema node present in both
	// CRDs. The runner fills in Change.Check, Change.CRD, Change.Version and,
	// when empty, Change.Path.
	Property func(n *Node) []Change
}

// CRDPair is an old and a new CRD of the same name, both defaulted as the
// API server defaults them on decoding (so that a now-explicit default, such
// as the singular name, is no change).
type CRDPair struct {
	Old, New *apiextensionsv1.CustomResourceDefinition
}

// OldVersion returns the version named name in the old CRD and its index.
func (p *CRDPair) OldVersion(name string) (*apiextensionsv1.CustomResourceDefinitionVersion, int) {
	return findVersion(p.Old, name)
}

// NewVersion returns the version named name in the new CRD and its index.
func (p *CRDPair) NewVersion(name string) (*apiextensionsv1.CustomResourceDefinitionVersion, int) {
	return findVersion(p.New, name)
}

// VersionPath is the path of a version: in the new CRD when it is there,
// else in the old one.
func (p *CRDPair) VersionPath(name string) *field.Path {
	if _, i := p.NewVersion(name); i >= 0 {
		return versionsPath.Index(i)
	}
	_, i := p.OldVersion(name)
	return versionsPath.Index(i)
}

// CommonVersions are the versions both CRDs define, in the new CRD's order,
// with both sides.
func (p *CRDPair) CommonVersions() []VersionPair {
	var out []VersionPair
	for i := range p.New.Spec.Versions {
		nv := &p.New.Spec.Versions[i]
		if ov, _ := p.OldVersion(nv.Name); ov != nil {
			out = append(out, VersionPair{Name: nv.Name, Path: versionsPath.Index(i), Old: ov, New: nv})
		}
	}
	return out
}

// VersionPair is one version as both CRDs define it.
type VersionPair struct {
	Name     string
	Path     *field.Path
	Old, New *apiextensionsv1.CustomResourceDefinitionVersion
}

var versionsPath = field.NewPath("spec", "versions")

func findVersion(crd *apiextensionsv1.CustomResourceDefinition, name string) (*apiextensionsv1.CustomResourceDefinitionVersion, int) {
	for i := range crd.Spec.Versions {
		if crd.Spec.Versions[i].Name == name {
			return &crd.Spec.Versions[i], i
		}
	}
	return nil, -1
}

// Node is one schema node present in both CRDs, at the same place in the
// same version.
type Node struct {
	// Version is the CRD version whose schema this is.
	Version string
	// Path is the node's path in the new CRD.
	Path *field.Path
	Old  *apiextensionsv1.JSONSchemaProps
	New  *apiextensionsv1.JSONSchemaProps
}
