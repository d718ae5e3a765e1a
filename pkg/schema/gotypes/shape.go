package gotypes

import (
	"go/token"
	"go/types"
	"sort"
)

// WireType is the JSON form of a Go type under encoding/json.
type WireType string

const (
	WireObject      WireType = "object"  // a struct: a fixed set of fields
	WireMap         WireType = "map"     // a map: any keys, one value type
	WireArray       WireType = "array"   // a slice or array
	WireString      WireType = "string"  // also []byte, TextMarshalers and ",string" scalars
	WireInteger     WireType = "integer" // signed and unsigned integers
	WireNumber      WireType = "number"  // floats
	WireBoolean     WireType = "boolean" //
	WireIntOrString WireType = "int-or-string"
	WireAny         WireType = "any"    // free-form JSON: interfaces, RawExtension, apiextensions JSON
	WireOpaque      WireType = "opaque" // a custom MarshalJSON: the form is not guessed
	// WireUnsupported is a type json.Marshal fails on (chan, func, complex).
	WireUnsupported WireType = "unsupported"
)

// Shape is the JSON a Go type serialises to.
type Shape struct {
	Wire WireType
	// GoType is the Go type as written in its package ("metav1.Time",
	// "[]string").
	GoType string
	// Format refines strings: "date-time", "duration", "quantity", "byte".
	Format string
	// Fields are the fields encoding/json writes for an object, in its order.
	Fields []*Field
	// Ignored are the struct's fields encoding/json never writes: json:"-",
	// unexported fields, and fields that lose to a same-named one.
	Ignored []*Field
	// Elem is the shape of array items and map values.
	Elem *Shape
	// Decl is a named struct's declaration (nil for anonymous structs).
	Decl *typeDecl
	// Name is the named type, when the shape has one.
	Name *types.TypeName
}

// Field is one Go struct field as encoding/json sees it.
type Field struct {
	// GoName is the field's Go name; Owner the struct declaring it.
	GoName, Owner string
	// JSONName is the key encoding/json writes it under.
	JSONName string
	Tag      Tag
	Embedded bool
	// Type is the declared Go type; Pointer says it is a pointer, so that
	// nil (rather than a zero value) is what omitempty leaves out.
	Type    types.Type
	Pointer bool
	// Shape is the field's value; nil for ignored fields.
	Shape *Shape
	Pos   token.Position
	// Markers are the field's own; TypeMarkers those of its named type,
	// where controller-gen also reads validation markers.
	Markers, TypeMarkers Markers
	// Ignored says why encoding/json never writes the field ("" when it does).
	Ignored string
	// Module is the module path of the package declaring the field.
	Module string
}

// Reasons a field is never written.
const (
	ignoredDash       = `json:"-"`
	ignoredUnexported = "unexported"
	ignoredConflict   = "conflict"
)

// shaper computes shapes. Named types are memoised before their fields are
// computed, so recursive types end in a shared *Shape rather than looping.
type shaper struct {
	fset  *token.FileSet
	decls *declIndex
	memo  map[*types.Named]*Shape
}

func newShaper(fset *token.FileSet, decls *declIndex) *shaper {
	return &shaper{fset: fset, decls: decls, memo: map[*types.Named]*Shape{}}
}

func qualifier(p *types.Package) string { return p.Name() }

func (s *shaper) shape(t types.Type) *Shape {
	t = types.Unalias(t)
	if p, ok := t.(*types.Pointer); ok {
		// A pointer is written as what it points to (or null).
		return s.shape(p.Elem())
	}
	named, _ := t.(*types.Named)
	if named != nil {
		if sh, ok := s.memo[named]; ok {
			return sh
		}
	}
	sh := &Shape{GoType: types.TypeString(t, qualifier)}
	if named != nil {
		// Memoised before the fields are computed: a field of the type's
		// own type then finds this shape instead of recursing forever.
		s.memo[named] = sh
		sh.Name = named.Obj()
		// Known types come first: they all have a MarshalJSON, and their
		// form is documented, so it must not be reported as opaque.
		if k, ok := knownTypes[typeKey(named.Obj())]; ok {
			sh.Wire, sh.Format = k.wire, k.format
			return sh
		}
	}
	// encoding/json checks interfaces and marshalers before the kind.
	if _, ok := t.Underlying().(*types.Interface); ok {
		sh.Wire = WireAny
		return sh
	}
	if hasMethod(t, "MarshalJSON") {
		sh.Wire = WireOpaque
		return sh
	}
	if hasMethod(t, "MarshalText") {
		sh.Wire, sh.Format = WireString, "text"
		return sh
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		sh.Wire = basicWire(u)
	case *types.Slice:
		// []byte is base64, unless its element type marshals itself, in
		// which case encoding/json writes an array like any other slice.
		if b, ok := types.Unalias(u.Elem()).Underlying().(*types.Basic); ok && b.Kind() == types.Byte &&
			!hasMethod(u.Elem(), "MarshalJSON") && !hasMethod(u.Elem(), "MarshalText") {
			sh.Wire, sh.Format = WireString, "byte" // base64
			return sh
		}
		sh.Wire, sh.Elem = WireArray, s.shape(u.Elem())
	case *types.Array:
		// Even [N]byte is an array: only slices of bytes are base64.
		sh.Wire, sh.Elem = WireArray, s.shape(u.Elem())
	case *types.Map:
		if !validMapKey(u.Key()) {
			sh.Wire = WireUnsupported
			return sh
		}
		sh.Wire, sh.Elem = WireMap, s.shape(u.Elem())
	case *types.Struct:
		sh.Wire = WireObject
		if named != nil {
			sh.Decl = s.decls.typeDecl(named.Obj())
		}
		s.structFields(sh, u, named)
	default: // chan, func, unsafe.Pointer
		sh.Wire = WireUnsupported
	}
	return sh
}

func basicWire(b *types.Basic) WireType {
	switch info := b.Info(); {
	case info&types.IsBoolean != 0:
		return WireBoolean
	case info&types.IsInteger != 0:
		return WireInteger
	case info&types.IsFloat != 0:
		return WireNumber
	case info&types.IsString != 0:
		return WireString
	}
	return WireUnsupported // complex numbers, unsafe.Pointer
}

// validMapKey is encoding/json's rule: string and integer kinds, or a
// TextMarshaler.
func validMapKey(t types.Type) bool {
	if b, ok := t.Underlying().(*types.Basic); ok && b.Info()&(types.IsString|types.IsInteger) != 0 {
		return true
	}
	return hasMethod(t, "MarshalText")
}

// hasMethod tells whether t or *t has method name. encoding/json uses
// pointer-receiver marshalers for addressable values, which every field of
// an object marshalled through a pointer is.
func hasMethod(t types.Type, name string) bool {
	if _, ok := t.Underlying().(*types.Interface); ok {
		return false
	}
	if _, ok := t.(*types.Pointer); !ok {
		t = types.NewPointer(t)
	}
	sel := types.NewMethodSet(t).Lookup(nil, name)
	return sel != nil && sel.Obj().Exported()
}

func typeKey(obj *types.TypeName) string {
	if obj.Pkg() == nil {
		return obj.Name()
	}
	return obj.Pkg().Path() + "." + obj.Name()
}

// candidate is one field found while flattening embedded structs.
type candidate struct {
	field  *Field
	tagged bool
	index  []int
}

// structFields flattens a struct exactly as encoding/json's typeFields does:
// breadth first through embedded structs without a tag name, where a field
// at a shallower depth wins over deeper ones of the same name, a tagged one
// wins at equal depth, and two equal ones cancel each other out.
func (s *shaper) structFields(sh *Shape, st *types.Struct, named *types.Named) {
	type level struct {
		st    *types.Struct
		named *types.Named
		index []int
	}
	var found []candidate
	next := []level{{st, named, nil}}
	visited := map[*types.Struct]bool{}
	for len(next) > 0 {
		current := next
		next = nil
		for _, lv := range current {
			if visited[lv.st] {
				continue
			}
			visited[lv.st] = true
			for i := 0; i < lv.st.NumFields(); i++ {
				v := lv.st.Field(i)
				f := s.newField(lv.named, v, lv.st.Tag(i))
				index := append(append([]int(nil), lv.index...), i)
				ft := types.Unalias(v.Type())
				if p, ok := ft.(*types.Pointer); ok {
					ft = types.Unalias(p.Elem())
				}
				_, isStruct := ft.Underlying().(*types.Struct)
				// The order of these tests is encoding/json's: an unexported
				// embedded struct still promotes its exported fields, and
				// json:"-" is only looked at on fields that could be written.
				switch {
				case v.Embedded() && !v.Exported() && !isStruct:
					f.Ignored = ignoredUnexported
				case !v.Embedded() && !v.Exported():
					f.Ignored = ignoredUnexported
				case f.Tag.Skip():
					f.Ignored = ignoredDash
				}
				if f.Ignored != "" {
					sh.Ignored = append(sh.Ignored, f)
					continue
				}
				name := f.Tag.Name
				if !validTagName(name) {
					name = ""
				}
				// An embedded struct (or pointer to one) without a tag name is
				// flattened into this object, one level deeper; with a name,
				// or ",inline" and a name, it is an ordinary named field.
				if name == "" && v.Embedded() && isStruct {
					n, _ := ft.(*types.Named)
					next = append(next, level{ft.Underlying().(*types.Struct), n, index})
					continue
				}
				f.JSONName = name
				if f.JSONName == "" {
					f.JSONName = v.Name()
				}
				f.Shape = s.fieldShape(v.Type(), f.Tag)
				found = append(found, candidate{field: f, tagged: name != "", index: index})
			}
		}
	}
	// Dominance, as in encoding/json: sort by name, depth, tagged first.
	sort.SliceStable(found, func(i, j int) bool {
		a, b := found[i], found[j]
		if a.field.JSONName != b.field.JSONName {
			return a.field.JSONName < b.field.JSONName
		}
		if len(a.index) != len(b.index) {
			return len(a.index) < len(b.index)
		}
		return a.tagged && !b.tagged
	})
	var kept []candidate
	for i := 0; i < len(found); {
		j := i + 1
		for j < len(found) && found[j].field.JSONName == found[i].field.JSONName {
			j++
		}
		group := found[i:j]
		// The first field dominates unless the next one is as shallow and
		// as tagged: then they cancel, and every such field is dropped.
		if len(group) > 1 && len(group[0].index) == len(group[1].index) && group[0].tagged == group[1].tagged {
			for _, c := range group {
				if len(c.index) == len(group[0].index) && c.tagged == group[0].tagged {
					c.field.Ignored = ignoredConflict
					sh.Ignored = append(sh.Ignored, c.field)
				}
			}
		} else {
			kept = append(kept, group[0])
		}
		i = j
	}
	// Fields are written in declaration (index) order.
	sort.Slice(kept, func(i, j int) bool { return lessIndex(kept[i].index, kept[j].index) })
	for _, c := range kept {
		sh.Fields = append(sh.Fields, c.field)
	}
}

func lessIndex(a, b []int) bool {
	for k := range a {
		if k >= len(b) {
			return false
		}
		if a[k] != b[k] {
			return a[k] < b[k]
		}
	}
	return len(a) < len(b)
}

// fieldShape applies the ",string" option, which encoding/json honours only
// on (pointers to) booleans, numbers and strings: the value is then quoted.
func (s *shaper) fieldShape(t types.Type, tag Tag) *Shape {
	sh := s.shape(t)
	if !tag.Has("string") {
		return sh
	}
	switch sh.Wire {
	case WireBoolean, WireInteger, WireNumber, WireString:
		if sh.Name == nil || knownTypes[typeKey(sh.Name)] == (knownType{}) {
			if hasMethod(t, "MarshalJSON") || hasMethod(t, "MarshalText") {
				return sh
			}
			return &Shape{Wire: WireString, GoType: sh.GoType, Format: "quoted"}
		}
	}
	return sh
}

func (s *shaper) newField(owner *types.Named, v *types.Var, structTag string) *Field {
	f := &Field{GoName: v.Name(), Tag: parseTag(structTag), Embedded: v.Embedded(), Type: v.Type(), Pos: s.fset.Position(v.Pos())}
	_, f.Pointer = types.Unalias(v.Type()).(*types.Pointer)
	f.Markers, f.TypeMarkers = Markers{}, Markers{}
	if v.Pkg() != nil {
		f.Module = s.decls.module(v.Pkg().Path())
	}
	if owner != nil {
		f.Owner = owner.Obj().Name()
		if d := s.decls.typeDecl(owner.Origin().Obj()); d != nil {
			if fd := d.fields[v.Name()]; fd != nil {
				f.Pos, f.Markers = fd.pos, fd.markers
			}
		}
	}
	ft := types.Unalias(v.Type())
	if p, ok := ft.(*types.Pointer); ok {
		ft = types.Unalias(p.Elem())
	}
	if n, ok := ft.(*types.Named); ok {
		if d := s.decls.typeDecl(n.Origin().Obj()); d != nil {
			f.TypeMarkers = d.markers
		}
	}
	return f
}

// basicKind returns the basic kind under t (through one pointer), or
// types.Invalid when t is not a boolean, number or string.
func basicKind(t types.Type) types.BasicKind {
	t = types.Unalias(t)
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if b, ok := t.Underlying().(*types.Basic); ok {
		return b.Kind()
	}
	return types.Invalid
}
