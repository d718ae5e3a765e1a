package diff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdguard/crdguard/pkg/schema"
)

// Compare classifies every difference between old and new, two versions of
// the same CRD. Neither argument is modified. The changes come in a stable
// order: CRD-level checks first, then each common version's schema from the
// root down, then whatever no check explained.
func Compare(old, new *apiextensionsv1.CustomResourceDefinition) ([]Change, error) {
	if old.Name != new.Name {
		return nil, fmt.Errorf("cannot compare CustomResourceDefinition %q with %q: only versions of the same CRD compare", old.Name, new.Name)
	}
	p := &CRDPair{Old: defaulted(old), New: defaulted(new)}
	var changes []Change
	for _, c := range crdChecks {
		for _, ch := range c.CRD(p) {
			ch.Check, ch.CRD = c.Name, new.Name
			changes = append(changes, ch)
		}
	}
	unexplained, err := crdResidual(p)
	if err != nil {
		return nil, err
	}
	for _, v := range p.CommonVersions() {
		if v.Old.Schema == nil || v.New.Schema == nil || v.Old.Schema.OpenAPIV3Schema == nil || v.New.Schema.OpenAPIV3Schema == nil {
			continue // a schema present on one side only is in the residual
		}
		root := &Node{Version: v.Name, Path: v.Path.Child("schema", "openAPIV3Schema"), Old: v.Old.Schema.OpenAPIV3Schema, New: v.New.Schema.OpenAPIV3Schema}
		nodeChanges, err := compareNode(root)
		if err != nil {
			return nil, err
		}
		for i := range nodeChanges {
			nodeChanges[i].CRD = new.Name
			if neverRequested(v) {
				onlyStoredObjects(&nodeChanges[i])
			}
		}
		changes = append(changes, nodeChanges...)
	}
	for _, d := range unexplained {
		changes = append(changes, Change{
			Check: Unclassified.Name, Impact: Breaking, CRD: new.Name, Version: d.version(),
			Path: d.displayPath(p), Old: d.oldValue(), New: d.newValue(),
			Message: "no check classifies this change: review it by hand, then waive it or report the missing check",
		})
	}
	return tidy(changes), nil
}

// neverRequested tells whether no request uses a version's schema, before
// or after: neither CRD serves it, nor stores new objects in it.
func neverRequested(v VersionPair) bool {
	return !v.Old.Served && !v.New.Served && !v.Old.Storage && !v.New.Storage
}

// onlyStoredObjects lowers a breaking change in a version no request uses
// to a warning: only objects still stored in it (the CRD's
// status.storedVersions) can meet the new schema, which the files do not
// tell.
func onlyStoredObjects(ch *Change) {
	if ch.Impact != Breaking {
		return
	}
	ch.Impact = Warning
	ch.Message += fmt.Sprintf("; %s is served by neither CRD, so only objects still stored in it can meet this: it is breaking if the cluster's status.storedVersions lists %s", ch.Version, ch.Version)
}

// Unclassified is the catch-all: it is not in the registry's check lists
// because the runner itself finds what it reports, but it is configured and
// waived like any check.
var Unclassified = Check{
	Name: "unclassified",
	Doc:  "a difference no other check explains (fails closed: breaking unless configured otherwise)",
}

// defaulted applies the API server's decoding defaults to a copy.
func defaulted(crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	c := crd.DeepCopy()
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(c)
	return c
}

// compareNode runs the property checks on one node, then recurses into the
// children both sides have, then reports the keywords no check claimed.
func compareNode(n *Node) ([]Change, error) {
	var changes []Change
	for _, c := range propertyChecks {
		for _, ch := range c.Property(n) {
			ch.Check, ch.Version = c.Name, n.Version
			if ch.Path == "" {
				ch.Path = n.Path.String()
			}
			changes = append(changes, ch)
		}
	}
	oldRest, newRest := shallow(n.Old), shallow(n.New)
	for _, child := range commonChildren(n.Old, n.New) {
		// What the walk steps into is compared there, not as a keyword here.
		switch child.keyword {
		case "items":
			oldRest.Items, newRest.Items = nil, nil
		case "additionalProperties":
			oldRest.AdditionalProperties, newRest.AdditionalProperties = nil, nil
		}
		c, err := compareNode(&Node{Version: n.Version, Path: child.path(n.Path), Old: child.a, New: child.b})
		if err != nil {
			return nil, err
		}
		changes = append(changes, c...)
	}

	// Whatever differs in this node's own keywords and no check claims is
	// unclassified. Sub-schemas the walk does not enter (allOf, anyOf, not,
	// patternProperties, ...) are compared whole here, so they fail closed.
	oldKeys, err := toMap(oldRest)
	if err != nil {
		return nil, err
	}
	newKeys, err := toMap(newRest)
	if err != nil {
		return nil, err
	}
	for _, key := range unionKeys(oldKeys, newKeys) {
		ov, oldOK := oldKeys[key]
		nv, newOK := newKeys[key]
		if (oldOK == newOK && reflect.DeepEqual(ov, nv)) || propertyClaims[key] {
			continue
		}
		changes = append(changes, Change{
			Check: Unclassified.Name, Impact: Breaking, Version: n.Version,
			Path: n.Path.Child(key).String(), Old: render(ov, oldOK), New: render(nv, newOK),
			Message: "no check classifies this schema change: review it by hand, then waive it or report the missing check",
		})
	}
	return changes, nil
}

// propertyPath is the path of the property name below parent.
func propertyPath(parent *field.Path, name string) *field.Path {
	return schema.KeyPath(parent.Child("properties"), name)
}

// shallow is a copy of a node without its properties, which the walk and
// the field-removed/field-added checks explain.
func shallow(s *apiextensionsv1.JSONSchemaProps) *apiextensionsv1.JSONSchemaProps {
	c := *s
	c.Properties = nil
	return &c
}

// toMap renders a schema node as its JSON keys, so that keywords compare
// as the API server stores them, whatever Go type holds them.
func toMap(v any) (map[string]any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// render prints a value as compact JSON, "" when absent.
func render(v any, ok bool) string {
	if !ok {
		return ""
	}
	// Not json.Marshal: it escapes "<", ">" and "&", which CEL rules and
	// patterns are full of.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func unionKeys[V any](a, b map[string]V) []string {
	keys := sortedKeys(a)
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return slices.Compact(keys)
}

// difference is one differing leaf of the CRD-level trees.
type difference struct {
	path         []string
	old, new     any
	oldOK, newOK bool
}

func (d difference) oldValue() string { return render(d.old, d.oldOK) }
func (d difference) newValue() string { return render(d.new, d.newOK) }

// version is the version a difference is in, "" outside spec.versions.
func (d difference) version() string {
	if len(d.path) >= 3 && d.path[0] == "spec" && d.path[1] == "versions" {
		return d.path[2]
	}
	return ""
}

// displayPath turns the name-keyed tree path back into a field path with
// the version's index.
func (d difference) displayPath(p *CRDPair) string {
	if v := d.version(); v != "" {
		path := p.VersionPath(v)
		for _, s := range d.path[3:] {
			path = path.Child(s)
		}
		return path.String()
	}
	return strings.Join(d.path, ".")
}

// crdResidual walks both CRDs generically and returns the differences no
// CRD check claims. The versions are keyed by name, so that reordering them
// is no change, and the schemas both sides have are left to the schema walk.
func crdResidual(p *CRDPair) ([]difference, error) {
	oldTree, err := crdTree(p.Old, p.New)
	if err != nil {
		return nil, err
	}
	newTree, err := crdTree(p.New, p.Old)
	if err != nil {
		return nil, err
	}
	var diffs []difference
	diffTrees(nil, oldTree, newTree, true, true, &diffs)
	var out []difference
	for _, d := range diffs {
		if !crdClaimed(d) {
			out = append(out, d)
		}
	}
	return out, nil
}

// crdTree is crd as a generic tree with spec.versions keyed by name. The
// schema of a version other also has is left out: the schema walk compares it.
func crdTree(crd, other *apiextensionsv1.CustomResourceDefinition) (map[string]any, error) {
	tree, err := runtime.DefaultUnstructuredConverter.ToUnstructured(crd)
	if err != nil {
		return nil, err
	}
	spec, _ := tree["spec"].(map[string]any)
	list, _ := spec["versions"].([]any)
	versions := map[string]any{}
	for i, v := range list {
		version, _ := v.(map[string]any)
		name := crd.Spec.Versions[i].Name
		if ov, _ := findVersion(other, name); ov != nil && ov.Schema != nil && ov.Schema.OpenAPIV3Schema != nil && crd.Spec.Versions[i].Schema != nil && crd.Spec.Versions[i].Schema.OpenAPIV3Schema != nil {
			if schema, ok := version["schema"].(map[string]any); ok {
				delete(schema, "openAPIV3Schema")
			}
		}
		versions[name] = version
	}
	if spec != nil {
		spec["versions"] = versions
	}
	return tree, nil
}

// diffTrees collects the differences between a and b: maps are compared key
// by key, anything else as a whole.
func diffTrees(path []string, a, b any, aOK, bOK bool, out *[]difference) {
	am, aIsMap := a.(map[string]any)
	bm, bIsMap := b.(map[string]any)
	if aOK && bOK && aIsMap && bIsMap {
		for _, k := range unionKeys(am, bm) {
			av, aHas := am[k]
			bv, bHas := bm[k]
			diffTrees(append(slices.Clone(path), k), av, bv, aHas, bHas, out)
		}
		return
	}
	if aOK == bOK && reflect.DeepEqual(a, b) {
		return
	}
	*out = append(*out, difference{path: path, old: a, new: b, oldOK: aOK, newOK: bOK})
}

// crdClaimed tells whether a CRD check claims a difference.
func crdClaimed(d difference) bool {
	for _, c := range crdChecks {
		for _, claim := range c.Claims {
			if claimMatches(claim, d) {
				return true
			}
		}
	}
	return false
}

func claimMatches(claim string, d difference) bool {
	presenceOnly := strings.HasSuffix(claim, "?")
	segments := strings.Split(strings.TrimSuffix(claim, "?"), ".")
	if len(d.path) < len(segments) || (presenceOnly && (len(d.path) != len(segments) || d.oldOK == d.newOK)) {
		return false
	}
	for i, s := range segments {
		if s != "*" && s != d.path[i] {
			return false
		}
	}
	return true
}
