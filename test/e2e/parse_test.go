package e2e

import (
	"slices"
	"testing"
)

// TestParseKubectl pins the kubectl output formats the comparison relies
// on, so a kubectl upgrade that changes them fails here and not as a
// confusing disagreement.
func TestParseKubectl(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ok     bool
		stderr string
		want   attempt
		err    bool
	}{{
		name: "accepted with a warning",
		ok:   true, stderr: "Warning: metadata.finalizers: \"x\": prefer a domain-qualified finalizer name\n",
		want: attempt{accepted: true, warnings: []string{"metadata.finalizers: \"x\": prefer a domain-qualified finalizer name"}},
	}, {
		name: "denied with a warning",
		stderr: "Warning: test.crdguard.dev/v1beta2 Gadget is deprecated; use test.crdguard.dev/v1 Gadget\n" +
			"The Gadget \"g\" is invalid: spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1\n",
		want: attempt{
			causes:   []string{"spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1"},
			warnings: []string{"test.crdguard.dev/v1beta2 Gadget is deprecated; use test.crdguard.dev/v1 Gadget"},
		},
	}, {
		name:   "one cause on the header line",
		stderr: "The Widget \"w\" is invalid: spec.name: Invalid value: \"ABCD\": spec.name in body should match '^[a-z]+$'\n",
		want:   attempt{causes: []string{"spec.name: Invalid value: \"ABCD\": spec.name in body should match '^[a-z]+$'"}},
	}, {
		name: "several causes, one repeated",
		stderr: "The Widget \"w\" is invalid: \n* spec.size: Unsupported value: \"x\": supported values: \"small\"\n" +
			"* <nil>: Invalid value: null: some validation rules were not checked\n* spec.size: Unsupported value: \"x\": supported values: \"small\"\n\n",
		want: attempt{causes: []string{"<nil>: Invalid value: null: some validation rules were not checked", "spec.size: Unsupported value: \"x\": supported values: \"small\""}},
	}, {
		name:   "a cause message spanning lines",
		stderr: "The Widget \"w\" is invalid: \n* spec: Invalid value: first line\nsecond line\n",
		want:   attempt{causes: []string{"spec: Invalid value: first line\nsecond line"}},
	}, {
		name: "strict decoding error",
		stderr: `Error from server (BadRequest): error when creating "w.yaml": Widget in version "v1" cannot be handled as a Widget: ` +
			`strict decoding error: unknown field "spec.users[0].baz", unknown field "metadata.foo"` + "\n",
		want: attempt{unknown: []string{"metadata.foo", "spec.users[0].baz"}},
	}, {
		name:   "strict decoding error with a duplicate field",
		stderr: `Error from server (BadRequest): error when creating "w.yaml": Widget in version "v1" cannot be handled as a Widget: strict decoding error: duplicate field "spec.a"` + "\n",
		err:    true,
	}, {
		name:   "decoding error at one field",
		stderr: `Error from server (BadRequest): error when replacing "w.yaml": Widget in version "v1" cannot be handled as a Widget: spec.template.apiVersion: Invalid value: 1: must be a string` + "\n",
		want:   attempt{causes: []string{"spec.template.apiVersion: Invalid value: 1: must be a string"}},
	}, {
		name: "unserved version",
		stderr: `error: resource mapping not found for name: "w" namespace: "" from "w.yaml": no matches for kind "Widget" in version "test.crdguard.dev/v1alpha1"` +
			"\nensure CRDs are installed first\n",
		want: attempt{notServed: true},
	}, {
		name:   "anything else",
		stderr: "Error from server (NotFound): error when creating \"w.yaml\": namespaces \"x\" not found\n",
		err:    true,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseKubectl(tc.ok, tc.stderr)
			if (err != nil) != tc.err {
				t.Fatalf("error = %v, want error: %v", err, tc.err)
			}
			if tc.err {
				return
			}
			if got.accepted != tc.want.accepted || got.notServed != tc.want.notServed ||
				!slices.Equal(got.causes, tc.want.causes) || !slices.Equal(got.unknown, tc.want.unknown) ||
				!slices.Equal(got.warnings, tc.want.warnings) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
