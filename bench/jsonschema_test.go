package main

import (
	"reflect"
	"testing"
)

// The cases of openapi2jsonschema.py's own tests, test_additional_properties
// and test_replace_int_or_string, plus what the port must keep from the
// script: the root stays open, lists are not walked.
func TestAdditionalProperties(t *testing.T) {
	tests := []struct {
		name      string
		in, want  map[string]any
		skipFirst bool
	}{
		{
			name: "closes objects with properties",
			in:   map[string]any{"something": map[string]any{"properties": map[string]any{}}},
			want: map[string]any{"something": map[string]any{"properties": map[string]any{}, "additionalProperties": false}},
		},
		{
			name: "leaves other maps alone",
			in:   map[string]any{"something": map[string]any{"somethingelse": map[string]any{}}},
			want: map[string]any{"something": map[string]any{"somethingelse": map[string]any{}}},
		},
		{
			name:      "root stays open, an explicit additionalProperties is kept",
			skipFirst: true,
			in: map[string]any{"properties": map[string]any{
				"labels": map[string]any{"properties": map[string]any{}, "additionalProperties": true},
			}},
			want: map[string]any{"properties": map[string]any{
				"labels": map[string]any{"properties": map[string]any{}, "additionalProperties": true},
			}},
		},
		{
			name: "lists are not walked",
			in:   map[string]any{"anyOf": []any{map[string]any{"properties": map[string]any{}}}},
			want: map[string]any{"anyOf": []any{map[string]any{"properties": map[string]any{}}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := additionalProperties(tt.in, tt.skipFirst); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestReplaceIntOrString(t *testing.T) {
	tests := []struct {
		name     string
		in, want map[string]any
	}{
		{
			name: "int-or-string becomes oneOf",
			in:   map[string]any{"something": map[string]any{"format": "int-or-string"}},
			want: map[string]any{"something": map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}}},
		},
		{
			name: "other formats stay",
			in:   map[string]any{"something": map[string]any{"format": "string"}},
			want: map[string]any{"something": map[string]any{"format": "string"}},
		},
		{
			name: "inside lists too",
			in:   map[string]any{"allOf": []any{map[string]any{"port": map[string]any{"format": "int-or-string"}}}},
			want: map[string]any{"allOf": []any{map[string]any{"port": map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}}}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := replaceIntOrString(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
