package schema_test

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdguard/crdguard/pkg/schema"
)

// TestHandOverObject checks that an object handed over is validated
// itself, not a copy, with the errors, warnings and stored object of one
// that is not handed over, on every conformance object; and that the old
// object, and every object under fast-path verification, stay as given.
func TestHandOverObject(t *testing.T) {
	for _, set := range conformanceSets() {
		t.Run(set.name, func(t *testing.T) {
			registry := set.crds(t)
			var handedOver int
			for _, o := range readConformanceObjects(t, set.objects) {
				for _, mode := range []schema.FieldValidation{schema.FieldValidationStrict, schema.FieldValidationWarn} {
					where := o.source + " " + o.obj.GetName() + " " + string(mode)
					keptCtx, keptWarnings := schema.RecordWarnings(t.Context())
					kept := o.obj.DeepCopy()
					wantStored, wantErrs, wantErr := registry.DryRun(keptCtx, kept, o.old, schema.ValidateOptions{FieldValidation: mode})
					if !reflect.DeepEqual(kept, o.obj) {
						t.Fatalf("%s: an object not handed over was modified", where)
					}

					var old *unstructured.Unstructured
					if o.old != nil {
						old = o.old.DeepCopy()
					}
					handedCtx, handedWarnings := schema.RecordWarnings(t.Context())
					handed := o.obj.DeepCopy()
					stored, errs, err := registry.DryRun(handedCtx, handed, old, schema.ValidateOptions{FieldValidation: mode, HandOverObject: true})
					// A generated name differs from run to run, and messages
					// quote it.
					generated := o.obj.GetName() == "" && o.obj.GetGenerateName() != ""
					if !reflect.DeepEqual(err, wantErr) || len(errs) != len(wantErrs) || (stored == nil) != (wantStored == nil) ||
						(!generated && (!reflect.DeepEqual(errs, wantErrs) || !reflect.DeepEqual(stored, wantStored))) {
						t.Fatalf("%s: handed over: %v, %v, stored %v; kept: %v, %v, stored %v", where, err, errs, stored, wantErr, wantErrs, wantStored)
					}
					if got, want := handedWarnings.Warnings(), keptWarnings.Warnings(); !reflect.DeepEqual(got, want) {
						t.Fatalf("%s: warnings %q handed over, %q kept", where, got, want)
					}
					if old != nil && !reflect.DeepEqual(old, o.old) {
						t.Fatalf("%s: the old object was modified", where)
					}
					if stored != nil {
						if stored != handed {
							t.Fatalf("%s: the object handed over was copied", where)
						}
						handedOver++
					}

					validated := o.obj.DeepCopy()
					errs, err = registry.ValidateWithOptions(t.Context(), validated, o.old, schema.ValidateOptions{FieldValidation: mode, HandOverObject: true})
					if !reflect.DeepEqual(err, wantErr) || len(errs) != len(wantErrs) || (!generated && !reflect.DeepEqual(errs, wantErrs)) {
						t.Fatalf("%s: ValidateWithOptions of an object handed over: %v, %v; want %v, %v", where, err, errs, wantErr, wantErrs)
					}

					verified := o.obj.DeepCopy()
					_, _, _ = registry.DryRun(schema.WithFastPathVerification(t.Context()), verified, o.old, schema.ValidateOptions{FieldValidation: mode, HandOverObject: true})
					if !reflect.DeepEqual(verified, o.obj) {
						t.Fatalf("%s: an object handed over to a verified validation was modified", where)
					}
				}
			}
			if handedOver == 0 {
				t.Errorf("no object of %s was validated in place", set.objects)
			}
		})
	}
}

// TestHandOverObjectThatIsTheOld checks that an update of an object to
// itself leaves it unchanged, handed over or not: it is the old object too.
func TestHandOverObjectThatIsTheOld(t *testing.T) {
	for _, set := range conformanceSets() {
		if set.name != "certmanager" {
			continue
		}
		registry := set.crds(t)
		objects := readConformanceObjects(t, set.objects)
		if len(objects) == 0 {
			t.Fatalf("no objects in %s", set.objects)
		}
		obj := objects[0].obj.DeepCopy()
		if _, _, err := registry.DryRun(t.Context(), obj, obj, schema.ValidateOptions{HandOverObject: true}); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(obj, objects[0].obj) {
			t.Errorf("an object handed over that is also the old one was modified")
		}
	}
}
