package gotypes

import (
	"go/token"
	"strings"
)

// SiteKind says what a Site is.
type SiteKind int

const (
	// FieldSite is a Go field that encoding/json writes.
	FieldSite SiteKind = iota
	// ItemSite is a list item or a map value.
	ItemSite
	// ObjectSite is a Go struct written as a JSON object.
	ObjectSite
	// IgnoredSite is a Go field that encoding/json never writes.
	IgnoredSite
)

// Site is one place in a kind's JSON document, with the Go value that is
// written there and the schema that governs it. Checks look at sites.
type Site struct {
	Kind SiteKind
	// Path is the JSON path in field.Path notation, with [*] for any list
	// index or map key: "spec.users[*].name".
	Path string
	// GoName names the Go declaration: "WidgetSpec.Replicas" for a field,
	// "WidgetSpec" for an object.
	GoName string
	// Field is the Go field at a FieldSite or IgnoredSite, and the field
	// holding the list or map at an ItemSite.
	Field *Field
	// Shape is the value's JSON shape (nil at an IgnoredSite).
	Shape *Shape
	// Schema is the value's schema: nil without a CRD, and where the parent
	// schema does not declare the field.
	Schema *Structural
	// Parent is the object schema a FieldSite's field belongs to; nil
	// without a CRD. Object is that object's Go shape.
	Parent *Structural
	Object *Shape
	// Implicit marks apiVersion, kind and metadata of a resource (the root
	// or an x-kubernetes-embedded-resource): the API server owns them.
	Implicit bool
	// Foreign marks fields declared outside the kind's module (metav1,
	// corev1, ...): checks of Go declarations skip them, since the user
	// cannot change them, while schema checks still compare them.
	Foreign bool
	// Pos is the Go source position findings at this site point at.
	Pos token.Position
	// Anchor is the nearest position on the way to the site that lies in
	// the kind's module: Pos itself, or the operator's field through which
	// a third-party type is reached. Zero when nothing on the way is.
	// anchorMarkers are the markers of the declaration at Anchor.
	Anchor        token.Position
	anchorMarkers Markers

	// zeroRejected caches zeroRejected's verdict, which several checks ask
	// for and which compiles validators.
	zeroRejected *bool
}

// walker pairs a kind's shape with its schema, depth first, recording every
// site. With a schema it descends only where the schema does (a field the
// schema lacks is one finding, not one per nested field); without one it
// descends everywhere, stopping at recursion.
type walker struct {
	module     string
	moduleDir  string
	withSchema bool
	sites      []*Site
	active     map[*Shape]bool
}

func walk(k *Kind, root *Structural) []*Site {
	w := &walker{module: k.Module, moduleDir: k.ModuleDir, withSchema: root != nil, active: map[*Shape]bool{}}
	w.object("", k.Shape, root, nil, true, anchor{})
	return w.sites
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// fieldSchema is the schema an object schema gives a property: its own, or
// the additionalProperties schema when the object is a map.
func fieldSchema(obj *Structural, name string) *Structural {
	if obj == nil {
		return nil
	}
	if p, ok := obj.Properties[name]; ok {
		return &p
	}
	if obj.AdditionalProperties != nil {
		return obj.AdditionalProperties.Structural
	}
	return nil
}

// anchor is a declaration in the kind's module that a site lies in or
// below: its position and markers.
type anchor struct {
	pos     token.Position
	markers Markers
}

// anchor is the declaration at pos when it lies in the kind's module, else
// outer: the anchor of what encloses it.
func (w *walker) anchor(pos token.Position, markers Markers, outer anchor) anchor {
	if inDir(pos.Filename, w.moduleDir) {
		return anchor{pos, markers}
	}
	return outer
}

func (s *Site) setAnchor(a anchor) { s.Anchor, s.anchorMarkers = a.pos, a.markers }

func (w *walker) object(path string, sh *Shape, sch *Structural, at *Field, resource bool, outer anchor) {
	site := &Site{Kind: ObjectSite, Path: path, GoName: sh.GoType, Shape: sh, Schema: sch, Field: at}
	if sh.Name != nil {
		site.GoName = sh.Name.Name()
	}
	switch {
	case sh.Decl != nil:
		site.Pos = sh.Decl.pos
	case at != nil:
		site.Pos = at.Pos
	}
	var declMarkers Markers
	if sh.Decl != nil {
		declMarkers = sh.Decl.markers
	}
	objAnchor := w.anchor(site.Pos, declMarkers, outer)
	site.setAnchor(objAnchor)
	w.sites = append(w.sites, site)
	if w.active[sh] {
		return // a recursive type, already being walked on this path
	}
	w.active[sh] = true
	defer delete(w.active, sh)
	resource = resource || (sch != nil && sch.XEmbeddedResource)
	for _, f := range sh.Fields {
		fs := &Site{Kind: FieldSite, Path: join(path, f.JSONName), GoName: goName(f), Field: f, Shape: f.Shape, Pos: f.Pos, Parent: sch, Object: sh}
		fs.Implicit = resource && implicitRootFields[f.JSONName]
		fs.Foreign = f.Module != w.module
		fs.Schema = fieldSchema(sch, f.JSONName)
		fieldAnchor := w.anchor(f.Pos, f.Markers, objAnchor)
		fs.setAnchor(fieldAnchor)
		w.sites = append(w.sites, fs)
		if fs.Implicit || (w.withSchema && fs.Schema == nil) {
			continue
		}
		w.value(fs.Path, f.Shape, fs.Schema, f, fieldAnchor)
	}
	for _, f := range sh.Ignored {
		p := path
		if f.Ignored == ignoredConflict {
			p = join(path, f.JSONName)
		}
		is := &Site{Kind: IgnoredSite, Path: p, GoName: goName(f), Field: f, Pos: f.Pos, Parent: sch, Foreign: f.Module != w.module}
		is.setAnchor(w.anchor(f.Pos, f.Markers, objAnchor))
		w.sites = append(w.sites, is)
	}
}

func (w *walker) value(path string, sh *Shape, sch *Structural, at *Field, outer anchor) {
	if sch != nil {
		if ok, _ := wireMatches(sh, sch); !ok {
			return // type-mismatch reports it; what lies below cannot match either
		}
	}
	switch sh.Wire {
	case WireObject:
		w.object(path, sh, sch, at, false, outer)
	case WireArray, WireMap:
		var item *Structural
		if sch != nil && sh.Wire == WireArray {
			item = sch.Items
		} else if sch != nil && sch.AdditionalProperties != nil {
			item = sch.AdditionalProperties.Structural
		}
		p := path + "[*]"
		is := &Site{Kind: ItemSite, Path: p, GoName: goName(at) + "[*]", Field: at, Shape: sh.Elem, Schema: item, Pos: at.Pos, Foreign: at.Module != w.module}
		is.setAnchor(outer)
		w.sites = append(w.sites, is)
		if w.withSchema && item == nil {
			return // the list or map itself mismatches; one finding there
		}
		w.value(p, sh.Elem, item, at, outer)
	}
}

func goName(f *Field) string {
	if f == nil {
		return ""
	}
	if f.Owner == "" {
		return f.GoName
	}
	return f.Owner + "." + f.GoName
}

// displayPath prints the root as field.Path does.
func displayPath(p string) string {
	if p == "" {
		return "<nil>"
	}
	return p
}

// under tells whether path is p or inside it.
func under(path, p string) bool {
	return path == p || p == "" || strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"[")
}
