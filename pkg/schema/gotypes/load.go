package gotypes

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Kind is a CRD root type found in Go source.
type Kind struct {
	// GroupVersionKind is what the type serves as: the group from the
	// package's +groupName marker (or its schema.GroupVersion variable), the
	// version from +versionName or the package name, and the type's name as
	// kind, as controller-gen derives them.
	GroupVersionKind schema.GroupVersionKind
	// GoType is the type's package-qualified name ("example.com/api/v1.Widget").
	GoType string
	// Pos is where the type is declared.
	Pos token.Position
	// Shape is the JSON object the type serialises to.
	Shape *Shape
	// Module is the module path of the type's package ("" outside modules),
	// and ModuleDir its directory.
	Module, ModuleDir string
}

// loadMode type-checks the named packages from source (for their syntax and
// constant values) and their dependencies from export data, which is fast;
// dependencies' comments are read on demand by the declaration index.
const loadMode = packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
	packages.NeedTypesInfo | packages.NeedImports | packages.NeedModule

// maxLoadErrors caps the package errors quoted in Load's error: the first
// few say what is wrong; hundreds would bury them.
const maxLoadErrors = 10

// Load finds the CRD root types in the packages matching patterns (go list
// patterns such as "./api/..."), resolved from the module in dir ("" for
// the current directory). A root type is marked
// +kubebuilder:object:root=true or embeds metav1.TypeMeta and
// metav1.ObjectMeta; list types (embedding metav1.ListMeta) are not kinds,
// nor are types marked +kubebuilder:skipversion, which no CRD serves.
// Packages that do not compile are an error: their types cannot be trusted.
func Load(ctx context.Context, dir string, patterns ...string) ([]*Kind, error) {
	cfg := &packages.Config{Context: ctx, Mode: loadMode, Dir: dir, Tests: false}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, err
	}
	var errs []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			errs = append(errs, loadError(e))
		}
	})
	if len(errs) > 0 {
		if len(errs) > maxLoadErrors {
			errs = append(errs[:maxLoadErrors], fmt.Sprintf("and %d more errors", len(errs)-maxLoadErrors))
		}
		return nil, errors.New("loading Go packages: " + strings.Join(errs, "; "))
	}
	decls := newDeclIndex(pkgs)
	var kinds []*Kind
	var sh *shaper
	for _, p := range pkgs {
		if p.Types == nil || p.Fset == nil {
			continue
		}
		// go/packages puts every package of one Load in one FileSet, so one
		// shaper (and its memo of shapes) serves them all.
		if sh == nil {
			sh = newShaper(p.Fset, decls)
		}
		if err := checkIgnoreMarkers(decls.pkg(p.PkgPath)); err != nil {
			return nil, err
		}
		gv := groupVersion(p, decls.pkg(p.PkgPath))
		scope := p.Types.Scope()
		for _, name := range scope.Names() {
			tn, ok := scope.Lookup(name).(*types.TypeName)
			if !ok || tn.IsAlias() {
				continue
			}
			named, ok := tn.Type().(*types.Named)
			if !ok || named.TypeParams().Len() > 0 || !isRoot(named, decls.typeDecl(tn)) || skipsVersion(decls.typeDecl(tn)) {
				continue
			}
			k := &Kind{
				GroupVersionKind: gv.WithKind(name),
				GoType:           typeKey(tn),
				Pos:              p.Fset.Position(tn.Pos()),
				Shape:            sh.shape(named),
				Module:           decls.module(p.PkgPath),
				ModuleDir:        decls.moduleDir(p.PkgPath),
			}
			if d := decls.typeDecl(tn); d != nil {
				k.Pos = d.pos
			}
			kinds = append(kinds, k)
		}
	}
	sort.SliceStable(kinds, func(i, j int) bool { return kinds[i].GoType < kinds[j].GoType })
	return kinds, nil
}

// loadError renders a package error as go build does: "file:line: msg",
// or the message alone when it has no position (packages.Error prints
// "-: msg" then).
func loadError(e packages.Error) string {
	if e.Pos == "" || e.Pos == "-" {
		return e.Msg
	}
	return e.Error()
}

// isRoot applies controller-gen's rule (+kubebuilder:object:root=true) and
// the convention every API type follows without it (embedded TypeMeta and
// ObjectMeta), leaving out list types, which are roots of their own kind of
// request but never of a CRD's schema.
func isRoot(named *types.Named, decl *typeDecl) bool {
	st, ok := named.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	embeds := map[string]bool{}
	for i := 0; i < st.NumFields(); i++ {
		if f := st.Field(i); f.Embedded() {
			if n, ok := types.Unalias(f.Type()).(*types.Named); ok {
				embeds[typeKey(n.Obj())] = true
			}
		}
	}
	if embeds[metav1Pkg+".ListMeta"] {
		return false
	}
	if decl != nil {
		if v, ok := decl.markers.Value("kubebuilder:object:root"); ok && v != "false" {
			return true
		}
	}
	return embeds[metav1Pkg+".TypeMeta"] && embeds[metav1Pkg+".ObjectMeta"]
}

// skipsVersion applies controller-gen's +kubebuilder:skipversion: the type's
// version is left out of the CRD on purpose, so there is no schema to
// compare it with, and it serves no object.
func skipsVersion(decl *typeDecl) bool {
	return decl != nil && decl.markers.Has("kubebuilder:skipversion")
}

// groupVersion reads the group and version the way controller-gen does:
// +groupName and +versionName package markers, the version defaulting to the
// package name. Without +groupName, a package-level schema.GroupVersion
// literal (kubebuilder's groupversion_info.go) supplies both.
func groupVersion(p *packages.Package, d *pkgDecls) schema.GroupVersion {
	gv := schema.GroupVersion{Version: p.Name}
	if v, ok := d.markers.Value("versionName"); ok {
		gv.Version = v
	}
	if g, ok := d.markers.Value("groupName"); ok {
		gv.Group = g
		return gv
	}
	if lit, ok := groupVersionLiteral(p); ok {
		return lit
	}
	return gv
}

func groupVersionLiteral(p *packages.Package) (schema.GroupVersion, bool) {
	for _, f := range p.Syntax {
		for _, decl := range f.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.VAR {
				continue
			}
			for _, spec := range gen.Specs {
				for _, value := range spec.(*ast.ValueSpec).Values {
					if gv, ok := groupVersionOf(p.TypesInfo, value); ok {
						return gv, true
					}
				}
			}
		}
	}
	return schema.GroupVersion{}, false
}

// groupVersionOf evaluates a schema.GroupVersion{Group: ..., Version: ...}
// literal whose fields are constants.
func groupVersionOf(info *types.Info, expr ast.Expr) (schema.GroupVersion, bool) {
	lit, ok := expr.(*ast.CompositeLit)
	if !ok || info == nil {
		return schema.GroupVersion{}, false
	}
	n, ok := types.Unalias(info.TypeOf(lit)).(*types.Named)
	if !ok || typeKey(n.Obj()) != "k8s.io/apimachinery/pkg/runtime/schema.GroupVersion" {
		return schema.GroupVersion{}, false
	}
	var gv schema.GroupVersion
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		key, _ := kv.Key.(*ast.Ident)
		tv := info.Types[kv.Value]
		if key == nil || tv.Value == nil || tv.Value.Kind() != constant.String {
			continue
		}
		switch key.Name {
		case "Group":
			gv.Group = constant.StringVal(tv.Value)
		case "Version":
			gv.Version = constant.StringVal(tv.Value)
		}
	}
	return gv, gv.Version != ""
}
