package gotypes

import (
	"go/token"
	"testing"
)

// TestCheckIgnoreMarkers: a marker that names no check, or gives no
// reason, fails the load rather than silence nothing or say nothing.
func TestCheckIgnoreMarkers(t *testing.T) {
	at := token.Position{Filename: "types.go", Line: 7}
	tests := []struct {
		name, value, want string
	}{
		{"valid", "zero-value-default,pruned-field the operator sets it", ""},
		{"unknown check", "zero-value-defaults a typo", `types.go:7: +crdguard:lint:ignore names no check "zero-value-defaults"`},
		{"no reason", "pruned-field", "types.go:7: +crdguard:lint:ignore=pruned-field gives no reason: write it after the check names"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &pkgDecls{types: map[string]*typeDecl{
				"WidgetSpec": {pos: at, fields: map[string]*fieldDecl{"Replicas": {pos: at, markers: Markers{ignoreMarker: {tt.value}}}}},
			}}
			got := ""
			if err := checkIgnoreMarkers(d); err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("error %q, want %q", got, tt.want)
			}
		})
	}
}
