package gotypes

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"sync"

	"golang.org/x/tools/go/packages"
)

// typeDecl is what the source says about one named type: where it is
// declared and its markers, and the same for each of its struct fields.
type typeDecl struct {
	pos     token.Position
	markers Markers
	fields  map[string]*fieldDecl
	// pkgMarkers are the markers of the declaring package, where
	// +kubebuilder:validation:Optional flips the default of every field.
	pkgMarkers Markers
}

type fieldDecl struct {
	pos     token.Position
	markers Markers
}

// pkgDecls indexes one package's type declarations by name.
type pkgDecls struct {
	types   map[string]*typeDecl
	markers Markers // package markers (+groupName, +versionName, ...)
}

// declIndex finds declarations and markers of types from any loaded package.
// Type information for dependencies comes from export data, which has no
// comments, so a dependency's files are parsed the first time one of its
// types is walked (cert-manager's certmanager/v1 types embed acme/v1 and
// meta/v1 types whose markers matter as much as their own).
type declIndex struct {
	mu    sync.Mutex
	pkgs  map[string]*packages.Package // every loaded package, by path
	decls map[string]*pkgDecls
}

func newDeclIndex(roots []*packages.Package) *declIndex {
	idx := &declIndex{pkgs: map[string]*packages.Package{}, decls: map[string]*pkgDecls{}}
	packages.Visit(roots, nil, func(p *packages.Package) { idx.pkgs[p.PkgPath] = p })
	return idx
}

// pkg returns the index of the package with path, or an empty one when its
// source cannot be found or parsed: markers are then unknown, which the
// checks treat as absent.
func (idx *declIndex) pkg(path string) *pkgDecls {
	idx.mu.Lock()
	defer idx.mu.Unlock()
	if d, ok := idx.decls[path]; ok {
		return d
	}
	d := &pkgDecls{types: map[string]*typeDecl{}, markers: Markers{}}
	idx.decls[path] = d
	p := idx.pkgs[path]
	if p == nil {
		return d
	}
	// The linted packages come with syntax already; dependencies are parsed
	// here, comments included, and only their type declarations are kept.
	fset, files := p.Fset, p.Syntax
	if len(files) == 0 {
		fset = token.NewFileSet()
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, name, nil, parser.ParseComments|parser.SkipObjectResolution)
			if err == nil {
				files = append(files, f)
			}
		}
	}
	for _, f := range files {
		d.addFile(fset, f)
	}
	return d
}

func (d *pkgDecls) addFile(fset *token.FileSet, f *ast.File) {
	// Package markers sit in any comment above the package clause, not only
	// in the package doc comment (a blank line often separates them).
	for _, g := range f.Comments {
		if g.End() < f.Package {
			d.markers.add(g)
		}
	}
	for _, decl := range f.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.TYPE {
			continue
		}
		for _, spec := range gen.Specs {
			ts := spec.(*ast.TypeSpec)
			doc := ts.Doc
			if doc == nil && len(gen.Specs) == 1 {
				doc = gen.Doc
			}
			td := &typeDecl{pos: fset.Position(ts.Name.Pos()), markers: Markers{}, fields: map[string]*fieldDecl{}, pkgMarkers: d.markers}
			// controller-gen also reads the comment group just above the doc
			// comment when one blank line separates them, which is where
			// kubebuilder scaffolds put +kubebuilder:object:root=true.
			td.markers.add(commentAbove(fset, f, doc), doc)
			d.types[ts.Name.Name] = td
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				continue
			}
			for _, field := range st.Fields.List {
				fm := Markers{}
				fm.add(field.Doc)
				// go/types names an embedded field after its type; index it
				// the same way so both sides meet.
				if len(field.Names) == 0 {
					td.fields[embeddedName(field.Type)] = &fieldDecl{pos: fset.Position(field.Type.Pos()), markers: fm}
				}
				for _, n := range field.Names {
					td.fields[n.Name] = &fieldDecl{pos: fset.Position(n.Pos()), markers: fm}
				}
			}
		}
	}
}

// commentAbove returns the comment group that ends one blank line above doc.
func commentAbove(fset *token.FileSet, f *ast.File, doc *ast.CommentGroup) *ast.CommentGroup {
	if doc == nil {
		return nil
	}
	start := fset.Position(doc.Pos()).Line
	for _, g := range f.Comments {
		if fset.Position(g.End()).Line == start-2 {
			return g
		}
	}
	return nil
}

// embeddedName is the field name Go gives an embedded field: its type name.
func embeddedName(expr ast.Expr) string {
	switch e := expr.(type) {
	case *ast.StarExpr:
		return embeddedName(e.X)
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.IndexExpr:
		return embeddedName(e.X)
	case *ast.IndexListExpr:
		return embeddedName(e.X)
	case *ast.Ident:
		return e.Name
	}
	return ""
}

// typeDecl returns the declaration of a named type, or nil.
func (idx *declIndex) typeDecl(obj *types.TypeName) *typeDecl {
	if obj == nil || obj.Pkg() == nil {
		return nil
	}
	return idx.pkg(obj.Pkg().Path()).types[obj.Name()]
}

// module returns the path of the module holding package path, "" if unknown.
func (idx *declIndex) module(path string) string {
	if p := idx.pkgs[path]; p != nil && p.Module != nil {
		return p.Module.Path
	}
	return ""
}

// moduleDir returns the directory of the module holding package path, ""
// if unknown.
func (idx *declIndex) moduleDir(path string) string {
	if p := idx.pkgs[path]; p != nil && p.Module != nil {
		return p.Module.Dir
	}
	return ""
}
