package gotypes

import (
	"fmt"
	"go/token"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Severity is how much a finding matters.
type Severity string

const (
	// Error: a user loses data or is refused: the API server prunes,
	// rejects or replaces what the Go type means to keep.
	Error Severity = "error"
	// Warning: probably unintended, or a defect only where a value means
	// something the types cannot tell (is 0 "none" or "unset"?).
	Warning Severity = "warning"
	// Info: the rest: worth knowing, deliberate in most APIs, or
	// undecidable (an opaque type).
	Info Severity = "info"
	// Off disables a check (only as an override in Options.Severity).
	Off Severity = "off"
)

// Check is one lint rule. Checks never decide their final severity: the
// runner applies Options.Severity over the default given here.
type Check struct {
	// Name is the rule id, as in "gotypes/<name>" in reports.
	Name string
	// Doc says what the check finds and why it matters.
	Doc string
	// Severity is the default severity.
	Severity Severity
	// Type is the field.ErrorType reports file the finding under.
	Type field.ErrorType
	// NeedsCRD marks checks that compare with a schema; they are skipped
	// without --crds.
	NeedsCRD bool
	// PerDeclaration marks checks whose findings are about a Go declaration
	// alone: the runner reports each one once, at the first path it was
	// found, rather than once per path that reaches the declaration.
	PerDeclaration bool
	// Run reports the check's findings at the sites of one kind.
	Run func(*Pass)
}

// Pass is one check's view of one kind.
type Pass struct {
	Kind *Kind
	// Sites are the kind's sites, walked with the kind's schema when it has
	// one; Schema is that root schema, nil without a CRD for the kind.
	Sites  []*Site
	Schema *Structural
	// CRDName names the CRD defining the kind's group and kind, even when it
	// lacks the kind's version; "" when none does.
	CRDName string
	// StatusSubresource says the CRD serves the kind's version with the
	// status subresource: writes to the main resource drop status.
	StatusSubresource bool
	report            func(Finding)
	check             *Check
}

// Report records a finding at site, at the site's own path.
func (p *Pass) Report(site *Site, hint, format string, args ...any) {
	p.ReportPath(site, site.Path, hint, format, args...)
}

// ReportPath records a finding at site's source position for another JSON
// path (a schema property with no Go field has no site of its own).
func (p *Pass) ReportPath(site *Site, path, hint, format string, args ...any) {
	if site.ignores(p.check.Name) {
		return
	}
	f := Finding{
		Check:   p.check.Name,
		Kind:    p.Kind.GroupVersionKind,
		GoName:  site.GoName,
		Pos:     site.Pos,
		Path:    displayPath(path),
		Message: fmt.Sprintf(format, args...),
		Hint:    hint,
	}
	if site.Anchor.IsValid() && !inDir(site.Pos.Filename, p.Kind.ModuleDir) {
		f.Pos, f.DeclaredAt = site.Anchor, site.Pos
	}
	p.report(f)
}

// inDir tells whether file is inside dir; everything is, for an unknown dir.
func inDir(file, dir string) bool {
	return dir == "" || strings.HasPrefix(file, dir+string(filepath.Separator))
}

// Finding is one problem: where in Go, where in JSON, what and how to fix it.
type Finding struct {
	Check    string
	Severity Severity
	// Type is the check's field.ErrorType.
	Type field.ErrorType
	// Kind is the CRD kind being linted; GoName the Go declaration
	// ("WidgetSpec.Replicas").
	Kind   schema.GroupVersionKind
	GoName string
	// Pos is the Go file:line of the field (of the struct, for schema
	// properties that have no field). A finding inside a third-party type
	// (k8s.io/api's) points at the linted module's field that reaches it,
	// which is what its authors can change.
	Pos token.Position
	// DeclaredAt is where the third-party declaration behind Pos is, when
	// Pos is the linted module's field that reaches it; zero otherwise.
	DeclaredAt token.Position
	// Path is the JSON path, [*] standing for any index or key; "<nil>" is
	// the whole object.
	Path string
	// Message says what is wrong, what was found and what was expected;
	// Hint how to fix it.
	Message, Hint string
}

// String renders a finding as compilers do, so editors can jump to it.
func (f Finding) String() string {
	return fmt.Sprintf("%s: %s [%s] %s: %s (fix: %s)", f.Pos, f.Severity, f.Check, f.Path, f.Message, f.Hint)
}
