package diff

import (
	"testing"
)

// A version that neither CRD serves, nor stores new objects in, is read
// by no request: its changes reach only objects still stored in it, which
// the CRD files cannot tell. They are warnings that name what decides.
func TestChangesInAVersionNoRequestUses(t *testing.T) {
	old, new := parseCRD(t, twoVersionsCRD), parseCRD(t, twoVersionsCRD)
	old.Spec.Versions[0].Served, new.Spec.Versions[0].Served = false, false
	s := new.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	s = *s.DeepCopy()
	delete(s.Properties, "size")
	new.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = s
	changes, err := Compare(old, new)
	if err != nil {
		t.Fatal(err)
	}
	const want = "the API server prunes it from stored objects on their next write, and clients setting it lose it silently; " +
		"v1beta1 is served by neither CRD, so only objects still stored in it can meet this: it is breaking if the cluster's status.storedVersions lists v1beta1"
	if len(changes) != 1 || changes[0].Impact != Warning || changes[0].Check != "field-removed" || changes[0].Message != want {
		t.Fatalf("changes %q\n%+v\nwant one field-removed warning saying %q", summary(changes), changes, want)
	}

	// Served on one side, the same change is breaking.
	old.Spec.Versions[0].Served = true
	if changes, err = Compare(old, new); err != nil {
		t.Fatal(err)
	}
	for _, ch := range changes {
		if ch.Check == "field-removed" && ch.Impact != Breaking {
			t.Errorf("served before: %s is %s, want breaking", ch.Check, ch.Impact)
		}
	}
}
