package rules

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/crdguard/crdguard/pkg/apis/crdguard/v1alpha1"
)

func TestCompileVersionPlacesErrors(t *testing.T) {
	spec := &v1alpha1.Rule{Name: "versions", Transitions: []v1alpha1.FieldTransition{
		{Path: "spec.size", Check: v1alpha1.NoDecrease, DefaultVersion: "1.0", Alternatives: []v1alpha1.VersionPlace{{Path: "spec.other"}}},
		{Path: "spec.image", Check: v1alpha1.NoDowngrade, ImageTag: &v1alpha1.ImageTagVersion{}, DefaultVersion: "rabbitmq:3.13"},
		{Path: "spec.nodes[*].image", Check: v1alpha1.NoDowngrade, Alternatives: []v1alpha1.VersionPlace{{Path: "spec.nodes[*].version"}, {Path: "spec.nodes[*].image"}}},
		{Path: "spec.imageName", Check: v1alpha1.MaxMajorSkip, MaxMajorSkip: ptr.To[int32](0), Alternatives: []v1alpha1.VersionPlace{{Path: "spec.imageCatalogRef.major", ImageTag: &v1alpha1.ImageTagVersion{TagPattern: "("}}}},
	}}
	_, errs := compileTransitions(spec, field.NewPath("spec", "rules").Index(0), nil)
	want := []string{
		`spec.rules[0].transitions[0].defaultVersion: Forbidden: may only be set for checks that compare versions (NoDowngrade, MaxMinorSkip, MaxMajorSkip, UpgradePath)`,
		`spec.rules[0].transitions[0].alternatives: Forbidden: may only be set for checks that compare versions (NoDowngrade, MaxMinorSkip, MaxMajorSkip, UpgradePath)`,
		`spec.rules[0].transitions[1].defaultVersion: Invalid value: "rabbitmq:3.13": is not a version (not an image reference): not like 8.0.36 or v1.2.3-rc.1`,
		`spec.rules[0].transitions[2].alternatives: Forbidden: may only be set for a path without [*]; path spec.nodes[*].image has one`,
		`spec.rules[0].transitions[2].alternatives[0].path: Invalid value: "spec.nodes[*].version": must name one value; [*] is not allowed`,
		`spec.rules[0].transitions[2].alternatives[1].path: Invalid value: "spec.nodes[*].image": must name one value; [*] is not allowed`,
		"spec.rules[0].transitions[3].alternatives[0].imageTag.tagPattern: Invalid value: \"(\": is not a valid regular expression (Go RE2 syntax): error parsing regexp: missing closing ): `(`",
	}
	if len(errs) != len(want) {
		t.Fatalf("got %d errors, want %d:\n%v", len(errs), len(want), errs)
	}
	for i, e := range errs {
		if e.Error() != want[i] {
			t.Errorf("error %d:\n got %s\nwant %s", i, e.Error(), want[i])
		}
	}
}

func TestSameToPrecision(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"16", "16.4", true},
		{"16.4", "16", true},
		{"16.4", "16.4.2", true},
		{"16.4", "16.5", false},
		{"15", "16.4", false},
		{"16.0.0", "16.0.1", false},
	}
	for _, c := range cases {
		a, errA := ParseSemanticVersion(c.a)
		b, errB := ParseSemanticVersion(c.b)
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		if got := sameToPrecision(a, b); got != c.want {
			t.Errorf("sameToPrecision(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
