package gotypes

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The filler gives every field it can reach a non-zero value, deterministic
// from run to run. It is written here rather than taken from
// sigs.k8s.io/randfill because the proof needs every field on the wire on
// every run, which random filling does not give: randfill leaves about half
// the booleans false and some strings empty (omitempty then drops them, so
// those fields escape the proof on that seed), panics on interface fields,
// and cuts recursion at one global depth, leaving deep fields of finite
// types unfilled. Here recursion stops per type, where it repeats.

// mapKey is the key of every filled map. The API server's pruning prints a
// map key as a path segment ("spec.labels.*") and its validation as an index
// ("spec.labels[*]"), so either way the runtime path reads like the static
// one ("spec.labels[*]") after one replacement.
const mapKey = "*"

// freeForm is the value of free-form JSON fields: an object, so that a
// schema that does not preserve unknown fields prunes it visibly.
var freeForm = []byte(`{"key":"value"}`)

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
	fillTime      = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
)

// knownFills sets the known types of known.go to valid non-zero values;
// variant 1 picks the other wire form where a type has two.
var knownFills = map[string]func(v reflect.Value, variant int){
	metav1Pkg + ".Time":      func(v reflect.Value, _ int) { v.Set(reflect.ValueOf(metav1.NewTime(fillTime))) },
	metav1Pkg + ".MicroTime": func(v reflect.Value, _ int) { v.Set(reflect.ValueOf(metav1.NewMicroTime(fillTime))) },
	metav1Pkg + ".Duration":  func(v reflect.Value, _ int) { v.Set(reflect.ValueOf(metav1.Duration{Duration: time.Hour})) },
	resourcePkg + ".Quantity": func(v reflect.Value, _ int) {
		v.Set(reflect.ValueOf(resource.MustParse("1Gi")))
	},
	intstrPkg + ".IntOrString": func(v reflect.Value, variant int) {
		if variant == 0 {
			v.Set(reflect.ValueOf(intstr.FromString("value")))
		} else {
			v.Set(reflect.ValueOf(intstr.FromInt32(1)))
		}
	},
	runtimePkg + ".RawExtension": func(v reflect.Value, _ int) { v.Set(reflect.ValueOf(runtime.RawExtension{Raw: freeForm})) },
	apiextv1Pkg + ".JSON":        func(v reflect.Value, _ int) { v.Set(reflect.ValueOf(apiextensionsv1.JSON{Raw: freeForm})) },
	unstructuredPkg + ".Unstructured": func(v reflect.Value, _ int) {
		v.Set(reflect.ValueOf(unstructured.Unstructured{Object: map[string]any{"key": "value"}}))
	},
}

type filler struct {
	variant int
	active  map[reflect.Type]bool // structs being filled on the current path
	root    reflect.Type
}

// fillValue returns a new *T, for obj's type *T or T, filled.
func fillValue(obj any, variant int) reflect.Value {
	t := reflect.TypeOf(obj)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	v := reflect.New(t)
	f := &filler{variant: variant, active: map[reflect.Type]bool{}, root: t}
	f.fill(v.Elem())
	return v
}

func (f *filler) fill(v reflect.Value) {
	t := v.Type()
	if fill, ok := knownFills[t.PkgPath()+"."+t.Name()]; ok {
		if v.CanSet() {
			fill(v, f.variant)
		}
		return
	}
	if t.Kind() != reflect.Interface && t.Kind() != reflect.Pointer &&
		(t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler) ||
			t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler)) {
		return // opaque: its valid values are not ours to guess
	}
	if v.Kind() != reflect.Struct && !v.CanSet() {
		return // unexported
	}
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		v.SetUint(1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1.5) // not integral: an integer schema must reject it
	case reflect.String:
		v.SetString("value")
	case reflect.Interface:
		// Only an empty interface can hold a map; a non-empty one stays nil
		// (and is written as null, which the server drops).
		if t.NumMethod() == 0 {
			v.Set(reflect.ValueOf(map[string]any{"key": "value"}))
		}
	case reflect.Pointer:
		if f.active[t.Elem()] {
			return // recursion: nil ends it
		}
		v.Set(reflect.New(t.Elem()))
		f.fill(v.Elem())
	case reflect.Slice:
		// One element is enough to put the item schema to the test.
		if f.active[t.Elem()] {
			return
		}
		v.Set(reflect.MakeSlice(t, 1, 1))
		f.fill(v.Index(0))
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			f.fill(v.Index(i))
		}
	case reflect.Map:
		key := reflect.New(t.Key()).Elem()
		switch key.Kind() {
		case reflect.String:
			key.SetString(mapKey)
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			key.SetInt(1)
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			key.SetUint(1)
		default:
			return // TextMarshaler keys: opaque
		}
		if f.active[t.Elem()] {
			return
		}
		val := reflect.New(t.Elem()).Elem()
		f.fill(val)
		v.Set(reflect.MakeMapWithSize(t, 1))
		v.SetMapIndex(key, val)
	case reflect.Struct:
		if f.active[t] {
			return
		}
		f.active[t] = true
		defer delete(f.active, t)
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			// Exported fields, and embedded structs, whose exported fields
			// encoding/json promotes even when the struct is unexported.
			if (sf.IsExported() || (sf.Anonymous && sf.Type.Kind() == reflect.Struct)) && !f.serverSetInTemplate(t, sf) {
				f.fill(v.Field(i))
			}
		}
	}
	// chan, func, complex: json.Marshal fails on them whatever their value.
}

// serverSetInTemplate is pruned-field's exemption at run time: a client
// never writes the fields the API server sets into an object that is only a
// template (an embedded ObjectMeta's uid, a claim template's status), so
// the proof leaves them zero rather than report their pruning.
func (f *filler) serverSetInTemplate(owner reflect.Type, sf reflect.StructField) bool {
	name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
	if owner.PkgPath()+"."+owner.Name() == metav1Pkg+".ObjectMeta" {
		return !embeddedMetaFields[name]
	}
	return name == "status" && owner != f.root && isResourceType(owner)
}

// isResourceType tells whether a struct embeds TypeMeta and ObjectMeta: a
// Kubernetes object of its own.
func isResourceType(t reflect.Type) bool {
	var typeMeta, objectMeta bool
	for i := 0; i < t.NumField(); i++ {
		if sf := t.Field(i); sf.Anonymous {
			typeMeta = typeMeta || sf.Type == reflect.TypeFor[metav1.TypeMeta]()
			objectMeta = objectMeta || sf.Type == reflect.TypeFor[metav1.ObjectMeta]()
		}
	}
	return typeMeta && objectMeta
}
